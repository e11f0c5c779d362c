/**
 * The audit log of administrators' changes (`GET organization/audit_log/`): the super
 * admin reads every organisation's, an organisation admin its own (the server decides).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { AuditEntry, Page } from '@/api/generated';
import { PAGE_SIZE } from '@/config/constants';
import { api } from '@/lib/api-client';

export const auditLogKey = ['audit-log'] as const;

export const auditLogQuery = (page: number) =>
  queryOptions({
    queryKey: [...auditLogKey, { page }],
    queryFn: () => api.get<Page<AuditEntry>>('organization/audit_log/', { query: { page, page_size: PAGE_SIZE } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
