/**
 * The super admin's reports (our own calls, docs/decisions.md): User Report
 * (`GET admin/user-report/`, its CSV `admin/user-report/csv/`), Labelers
 * (`GET admin/labelers/`) and Annotations (`GET admin/annotations/`). Labeling is
 * requested and withdrawn through the organisation's own calls
 * (`organization/task/{id}/labelers/`) in the task's organisation.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { AdminLabeler, AnnotationProgress, LabelRequest, Page, UserReport } from '@/api/generated';
import { api } from '@/lib/api-client';

export const userReportKey = ['admin-user-report'] as const;
export const labelersKey = ['admin-labelers'] as const;
export const annotationsKey = ['admin-annotations'] as const;

/** The user report's filters as the address holds them (dates `YYYY-MM-DD`, local). */
export type ReportFilter = {
  from: string;
  to: string;
  organization: number | null;
  role: string;
  search: string;
  ordering: string;
};

/** Local midnight of a `YYYY-MM-DD` date, `days` later, as RFC 3339; none when blank. */
export function localDay(date: string, days = 0): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days).toISOString();
}

/** The query the report calls take: the period's whole days in the browser's time zone. */
export const reportQuery = (f: ReportFilter) => ({
  from: localDay(f.from),
  to: localDay(f.to, 1),
  organization: f.organization ?? undefined,
  role: f.role || undefined,
  search: f.search || undefined,
  ordering: f.ordering || undefined,
});

export const userReportQuery = (page: number, f: ReportFilter) =>
  queryOptions({
    queryKey: [...userReportKey, { page, ...f }],
    queryFn: () => api.get<UserReport>('admin/user-report/', { query: { page, ...reportQuery(f) } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** Every row of the report (all pages) as a CSV file. */
export const userReportCsv = (f: ReportFilter) => api.blob('GET', 'admin/user-report/csv/', { query: reportQuery(f) });

export const labelersQuery = (page: number, search: string) =>
  queryOptions({
    queryKey: [...labelersKey, { page, search }],
    queryFn: () => api.get<Page<AdminLabeler>>('admin/labelers/', { query: { page, search: search || undefined } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

export const annotationsQuery = (page: number, organization: number | null, search: string, pageSize?: number) =>
  queryOptions({
    queryKey: [...annotationsKey, { page, organization, search, pageSize }],
    queryFn: () =>
      api.get<Page<AnnotationProgress>>('admin/annotations/', {
        query: { page, organization: organization ?? undefined, search: search || undefined, page_size: pageSize },
      }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** Asks the labeler with `email` to label operation `task` of `organization`. */
export const requestLabeler = (task: number, organization: number, email: string) =>
  api.post<LabelRequest[]>(`organization/task/${task}/labelers/`, { email }, { organization });

/** Withdraws the request of operation `task` of `organization` from `labeler`. */
export const withdrawLabeler = (task: number, organization: number, labeler: number) =>
  api.delete<null>(`organization/task/${task}/labelers/${labeler}/`, { organization });
