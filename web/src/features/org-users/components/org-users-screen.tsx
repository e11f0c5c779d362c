import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import type { UserSummary } from '@/api/generated';
import { fullName, roleLabel, usersPageQuery } from '@/api/users';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { DataTable } from '@/components/ui/data-table';
import { DeleteUserDialog } from '@/components/users/delete-user-dialog';
import { USER_FILTERS, UserFilters } from '@/components/users/user-filters';
import { ScreenHeader } from '@/components/ui/screen-header';
import { can } from '@/lib/access/roles';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { useSession } from '@/lib/session';

import { WorkstationPasswordDialog } from './workstation-password-dialog';

type Open = { kind: 'password'; user: UserSummary } | { kind: 'delete'; user: UserSummary };

/**
 * `/user/org-users` (Users): the users of the organisation the session acts in, 10 a
 * page, with the search, status and role filters. Roles holding `ManageOrgUsers` (org
 * admin, support user) may also delete an account and set a workstation user's
 * password; the others (`user`, docs user) only read.
 */
export default function OrgUsersScreen() {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageOrgUsers');
  const list = useListParams(USER_FILTERS);
  const q = useQuery(usersPageQuery({ page: list.page, search: list.search, ...list.filters }));
  useClampPage(list.page, q.data, list.setPage);
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);

  return (
    <section>
      <ScreenHeader title="Users" />
      <UserFilters list={list} />
      <DataTable
        label="Users"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title="No user matches these filters." />}
        columns={['Name', 'E-mail', 'Role', 'Status', 'Created', manage && 'Actions']}
        row={(u) => (
          <tr key={u.id}>
            <td>{fullName(u)}</td>
            <td>{u.email}</td>
            <td>{roleLabel(u.role)}</td>
            <td>{u.is_active ? 'Active' : 'Inactive'}</td>
            <td>{formatDateTime(u.created_at)}</td>
            {manage ? (
              <td className="actions">
                {u.role === 'workstation_user' ? (
                  <button
                    type="button"
                    className="small secondary"
                    aria-label={`Set password of ${fullName(u)}`}
                    onClick={() => setOpen({ kind: 'password', user: u })}
                  >
                    Set password
                  </button>
                ) : null}
                {u.id !== s.id && u.role !== 'admin' ? (
                  <button type="button" className="small danger" aria-label={`Delete ${fullName(u)}`} onClick={() => setOpen({ kind: 'delete', user: u })}>
                    Delete
                  </button>
                ) : null}
              </td>
            ) : null}
          </tr>
        )}
      />
      {q.data ? <Pager label="Users" page={list.page} count={q.data.count} onPage={list.setPage} /> : null}
      {open?.kind === 'password' ? <WorkstationPasswordDialog user={open.user} onClose={close} /> : null}
      {open?.kind === 'delete' ? <DeleteUserDialog user={open.user} onClose={close} /> : null}
    </section>
  );
}
