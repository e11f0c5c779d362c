/**
 * Every organisation (the super admin's `organization/`), shared by the admin screens
 * that name or choose one: the user lists, the organisation step of an approval, Org
 * Model Versions. Their changes invalidate `organizationsKey`.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Organization } from '@/api/generated';
import { api } from '@/lib/api-client';

export const organizationsKey = ['organizations'] as const;

export const allOrganizationsQuery = () =>
  queryOptions({
    queryKey: [...organizationsKey, 'all'],
    queryFn: () => api.get<Organization[]>('organization/'),
  });
