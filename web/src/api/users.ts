/**
 * The user lists and roles (spec section 7 "Account"), shared by the super admin's
 * user screens and the organisation's Users screen.
 *
 * `users_list/v2` is paged (10 a page) and filtered by `is_admin` (every organisation:
 * super admin only), `is_active`, `role__name` and `search`; without `is_admin` it
 * lists the users of the organisation the request acts in.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { Page, RoleRecord, UserSummary } from '@/api/generated';
import { ROLE_LABELS, parseRole } from '@/lib/access/roles';
import { api } from '@/lib/api-client';

export type UsersFilter = {
  page: number;
  is_admin?: boolean;
  /** '' (any), 'true' or 'false'. */
  is_active?: string;
  role__name?: string;
  search?: string;
};

export const usersKey = ['users'] as const;

export function getUsersPage(f: UsersFilter): Promise<Page<UserSummary>> {
  return api.get<Page<UserSummary>>('account/users_list/v2', {
    query: {
      page: f.page,
      is_admin: f.is_admin ? true : undefined,
      is_active: f.is_active || undefined,
      role__name: f.role__name || undefined,
      search: f.search || undefined,
    },
  });
}

export const usersPageQuery = (f: UsersFilter) =>
  queryOptions({
    queryKey: [...usersKey, 'page', f],
    queryFn: () => getUsersPage(f),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

export const rolesKey = ['roles'] as const;

export const rolesQuery = () =>
  queryOptions({
    queryKey: rolesKey,
    queryFn: () => api.get<RoleRecord[]>('account/roles/'),
  });

/** Deletes an account (super admin: any; organisation admin: their organisation's). */
export const deleteUser = (id: number) => api.delete<null>(`account/update-delete/${id}/`);

/** "Ada Lovelace", or the e-mail address when the user has no name. */
export function fullName(u: Pick<UserSummary, 'name' | 'lastname' | 'email'>): string {
  const n = `${u.name} ${u.lastname}`.trim();
  return n === '' ? u.email : n;
}

/** A role's label ('Organization Admin'), or its name when the portal does not know it. */
export function roleLabel(name: string | null): string {
  if (name === null) return '—';
  const r = parseRole(name);
  return r ? ROLE_LABELS[r] : name;
}
