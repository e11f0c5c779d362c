/**
 * All Devices (`/admin/devices`, super admin): every organisation's devices, 10 a page,
 * searched, archived ones apart, each with its health (its open events, issue 30):
 * `GET device/devicelistadminview`.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { AdminDevice, Page } from '@/api/generated';
import { api } from '@/lib/api-client';

export const adminDevicesKey = ['admin-devices'] as const;

export const adminDevicesPageQuery = (page: number, query: string, archived: boolean) =>
  queryOptions({
    queryKey: [...adminDevicesKey, { page, query, archived }],
    queryFn: () =>
      api.get<Page<AdminDevice>>('device/devicelistadminview', {
        query: { page, query: query || undefined, archived: archived ? true : undefined },
      }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
