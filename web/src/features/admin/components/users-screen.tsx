import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import type { UserSummary } from '@/api/generated';
import { allOrganizationsQuery } from '@/api/organizations';
import { fullName, roleLabel, usersPageQuery } from '@/api/users';
import { EmptyState } from '@/components/ui/empty-state';
import { Dialog } from '@/components/ui/dialog';
import { Pager } from '@/components/ui/pager';
import { DataTable } from '@/components/ui/data-table';
import { DeleteUserDialog } from '@/components/users/delete-user-dialog';
import { USER_FILTERS, UserFilters } from '@/components/users/user-filters';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { useSession } from '@/lib/session';

import { AssignOrgForm } from './assign-org-form';
import { LockoutList } from './lockout-list';
import { VerifiedToggle } from './verified-toggle';

type Open = { kind: 'assign'; user: UserSummary } | { kind: 'delete'; user: UserSummary };

/**
 * `/admin/users` (All Users, super admin): every user of every organisation, 10 a page,
 * with the search, status and role filters; the admin-side e-mail-verified flag, an
 * organisation for users who lack one, deleting an account; and the lockout list.
 */
export default function UsersScreen() {
  const me = useSession();
  const list = useListParams(USER_FILTERS);
  const q = useQuery(usersPageQuery({ page: list.page, is_admin: true, search: list.search, ...list.filters }));
  useClampPage(list.page, q.data, list.setPage);
  const orgs = useQuery(allOrganizationsQuery());
  const orgName = new Map((orgs.data ?? []).map((o) => [o.id, o.org_name_to_display]));
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);

  return (
    <section>
      <h1>All Users</h1>
      <UserFilters list={list} />
      <DataTable
        label="Users"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title="No user matches these filters." />}
        columns={['Name', 'E-mail', 'Role', 'Organization', 'Status', 'E-mail verified', 'Created', 'Actions']}
        row={(u) => (
          <tr key={u.id}>
            <td>{fullName(u)}</td>
            <td>{u.email}</td>
            <td>{roleLabel(u.role)}</td>
            <td>{u.Organization === null ? '—' : (orgName.get(u.Organization) ?? `#${u.Organization}`)}</td>
            <td>{u.is_active ? 'Active' : u.is_approved ? 'Inactive' : 'Awaiting approval'}</td>
            <td>
              <VerifiedToggle user={u} />
            </td>
            <td>{formatDateTime(u.created_at)}</td>
            <td className="actions">
              {u.is_approved && u.role !== 'admin' ? (
                <button type="button" className="small secondary" aria-label={`Assign organization to ${fullName(u)}`} onClick={() => setOpen({ kind: 'assign', user: u })}>
                  Assign organization
                </button>
              ) : null}
              {u.id !== me.id ? (
                <button type="button" className="small danger" aria-label={`Delete ${fullName(u)}`} onClick={() => setOpen({ kind: 'delete', user: u })}>
                  Delete
                </button>
              ) : null}
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Users" page={list.page} count={q.data.count} onPage={list.setPage} /> : null}

      <LockoutList />

      {open?.kind === 'assign' ? (
        <Dialog title={`Assign an organization to ${fullName(open.user)}`} onClose={close}>
          <p className="muted">
            The user is linked to the organization; it becomes their current one when they have none.
          </p>
          <AssignOrgForm email={open.user.email} cancelLabel="Cancel" onCancel={close} onDone={close} />
        </Dialog>
      ) : null}
      {open?.kind === 'delete' ? <DeleteUserDialog user={open.user} onClose={close} /> : null}
    </section>
  );
}
