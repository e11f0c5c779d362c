import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import type { UserSummary } from '@/api/generated';
import { fullName, usersPageQuery } from '@/api/users';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { DataTable } from '@/components/ui/data-table';
import { SearchForm } from '@/components/ui/search-form';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';

import { ApproveDialog } from './approve-dialog';
import { VerifiedToggle } from './verified-toggle';

/**
 * `/admin/pending-users` (super admin): accounts not yet active (signed up, awaiting
 * approval), 10 a page, with a search. Approving is the spec's two steps: a role, then
 * an organisation.
 */
export default function PendingUsersScreen() {
  const list = useListParams();
  const q = useQuery(usersPageQuery({ page: list.page, is_admin: true, is_active: 'false', search: list.search }));
  useClampPage(list.page, q.data, list.setPage);
  const [approving, setApproving] = useState<UserSummary | null>(null);

  return (
    <section>
      <h1>Pending Users</h1>
      <div className="toolbar">
        <SearchForm label="Search users" value={list.search} onSearch={list.setSearch} />
      </div>
      <DataTable
        label="Pending users"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={list.search ? `No pending user matches "${list.search}".` : 'No user is waiting for approval.'} />}
        columns={['Name', 'E-mail', 'E-mail verified', 'Signed up', 'Actions']}
        row={(u) => (
          <tr key={u.id}>
            <td>{fullName(u)}</td>
            <td>{u.email}</td>
            <td>
              <VerifiedToggle user={u} />
            </td>
            <td>{formatDateTime(u.created_at)}</td>
            <td className="actions">
              <button type="button" className="small" aria-label={`Approve ${fullName(u)}`} onClick={() => setApproving(u)}>
                Approve
              </button>
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Pending users" page={list.page} count={q.data.count} onPage={list.setPage} /> : null}
      {approving ? <ApproveDialog user={approving} onClose={() => setApproving(null)} /> : null}
    </section>
  );
}
