/**
 * People's changes to cycles (`telemetry/cycle/{id}`, `telemetry/archive_cycle/`,
 * `telemetry/archived_cycle/{id}`) and a cycle's details with its history. Every change
 * invalidates the cycle queries (`cyclesKey`): lists and figures follow at once.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Archived, ArchivedCycle, CycleDetails, Page } from '@/api/generated';
import { api } from '@/lib/api-client';
import { cyclesKey } from '@/api/device-stream';
import { MAX_CHARS } from '@/api/generated';

/** The longest reason the server takes (`REASON_MAX`, `validate::MAX_REASON_CHARS`). */
export const REASON_MAX = MAX_CHARS.REASON;

export const cycleDetailsQuery = (id: string) =>
  queryOptions({
    queryKey: [...cyclesKey, 'details', id],
    queryFn: () => api.get<CycleDetails>('telemetry/trace/trace_single_cycle_details/', { query: { cycle_id: id } }),
  });

export const setVerdict = (id: string, good: boolean, reason: string) =>
  api.patch<CycleDetails>(`telemetry/cycle/${encodeURIComponent(id)}`, { good, reason });

export const archiveCycles = (ids: string[], reason: string) =>
  api.post<Archived>('telemetry/archive_cycle/', { ids, reason });

export const archivedCyclesQuery = (organization: number | null, page: number) => {
  const query: Record<string, number> = { page, page_size: 20 };
  if (organization !== null) query.organization = organization;
  return queryOptions({
    queryKey: [...cyclesKey, 'archived', organization, page],
    queryFn: () => api.get<Page<ArchivedCycle>>('telemetry/archive_cycle/', { query }),
  });
};

/** Brings an archived cycle back into the lists and figures. */
export const restoreCycle = (id: string) => api.delete<void>(`telemetry/archived_cycle/${encodeURIComponent(id)}`);

/** Deletes a cycle, archived or not, for good. */
export const deleteCycle = (id: string) => api.delete<void>(`telemetry/cycle/${encodeURIComponent(id)}/`);

/** A history entry's change in words. */
export const CHANGE_LABEL: Record<string, string> = {
  good: 'Marked good',
  bad: 'Marked bad',
  archived: 'Archived',
  restored: 'Restored',
  reviewed: 'Reviewed',
};
