/**
 * Organisations and their departments (spec section 7 "Organisations and validation"):
 * the super admin's paged list with a search, create, change, delete.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { Department, DepartmentCreate, Organization, OrganizationCreate, OrganizationPatch, Page } from '@/api/generated';
import { organizationsKey } from '@/api/organizations';
import { api } from '@/lib/api-client';

export const organizationsPageQuery = (page: number, search: string) =>
  queryOptions({
    queryKey: [...organizationsKey, 'page', { page, search }],
    queryFn: () =>
      api.get<Page<Organization>>('organization/get_organizations', { query: { page, search: search || undefined } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

export const createOrganization = (body: OrganizationCreate) => api.post<Organization>('organization/', body);

export const updateOrganization = (id: number, body: OrganizationPatch) => api.patch<Organization>(`organization/${id}/`, body);

export const deleteOrganization = (id: number) => api.delete<null>(`organization/${id}/`);

export const departmentsKey = (org: number) => ['departments', org] as const;

export const departmentsQuery = (org: number) =>
  queryOptions({
    queryKey: departmentsKey(org),
    queryFn: () => api.get<Department[]>(`organization/${org}/department/`),
    staleTime: 0,
  });

export const createDepartment = (org: number, body: DepartmentCreate) =>
  api.post<Department>(`organization/${org}/department/`, body);
