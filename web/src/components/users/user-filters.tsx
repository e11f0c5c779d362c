import { useQuery } from '@tanstack/react-query';

import { rolesQuery } from '@/api/users';
import { SearchForm } from '@/components/ui/search-form';
import { RoleOptions } from '@/components/ui/role-options';
import type { ListParams } from '@/lib/list-params';

export const USER_FILTERS = ['is_active', 'role__name'] as const;
export type UserFilterKey = (typeof USER_FILTERS)[number];

/** The user lists' search, status (`is_active`) and role (`role__name`) filters. */
export function UserFilters({ list }: { list: ListParams<UserFilterKey> }) {
  const roles = useQuery(rolesQuery());
  return (
    <div className="toolbar">
      <SearchForm label="Search users" value={list.search} onSearch={list.setSearch} />
      <label>
        Status
        <select value={list.filters.is_active} onChange={(e) => list.setFilter('is_active', e.target.value)}>
          <option value="">All</option>
          <option value="true">Active</option>
          <option value="false">Inactive</option>
        </select>
      </label>
      <label>
        Role
        <select value={list.filters.role__name} onChange={(e) => list.setFilter('role__name', e.target.value)}>
          <option value="">All roles</option>
          <RoleOptions roles={roles.data ?? []} by="name" />
        </select>
      </label>
    </div>
  );
}
