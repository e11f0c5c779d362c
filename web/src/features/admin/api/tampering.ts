/**
 * Tampering requests (`/admin/tampering-requests`, issue 31): cameras their devices found
 * covered or moved, for a person to review. `GET telemetry/tampering_requests/` (every
 * organisation's for the super admin, `state` open or resolved, 10 a page) and `PATCH
 * telemetry/tampering_requests/{id}/` (accept the new view: the device takes it as its
 * reference; or dismiss, with a note).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { Page, TamperingRequest, TamperingReview } from '@/api/generated';
import { api } from '@/lib/api-client';

export const tamperingKey = ['tampering-requests'] as const;

export type TamperingFilter = 'open' | 'resolved' | '';

export const tamperingPageQuery = (page: number, state: TamperingFilter, organization: number | null) =>
  queryOptions({
    queryKey: [...tamperingKey, { page, state, organization }],
    queryFn: () =>
      api.get<Page<TamperingRequest>>('telemetry/tampering_requests/', {
        query: { page, state: state || undefined, organization: organization ?? undefined },
      }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

export const reviewTampering = (id: number, body: TamperingReview) =>
  api.patch<TamperingRequest>(`telemetry/tampering_requests/${id}/`, body);
