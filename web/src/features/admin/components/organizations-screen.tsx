import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Organization } from '@/api/generated';
import { organizationsKey } from '@/api/organizations';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { DataTable } from '@/components/ui/data-table';
import { SearchForm } from '@/components/ui/search-form';
import { DATA_DELETED, ORG_DELETE_FAILED } from '@/config/messages';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/toast';

import { deleteOrganization, organizationsPageQuery } from '../api/organizations';
import { DepartmentsDialog } from './departments-dialog';
import { OrganizationFormDialog } from './organization-form-dialog';

type Open =
  | { kind: 'create' }
  | { kind: 'edit'; org: Organization }
  | { kind: 'delete'; org: Organization }
  | { kind: 'departments'; org: Organization };

/** `/admin/organizations` (super admin): the organisations, 10 a page, with a search;
 * create, change, delete, and each one's departments. */
export default function OrganizationsScreen() {
  const { page, search, setPage, setSearch } = useListParams();
  const q = useQuery(organizationsPageQuery(page, search));
  useClampPage(page, q.data, setPage);
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);

  return (
    <section>
      <div className="screen-header">
        <h1>Organizations</h1>
        <button type="button" onClick={() => setOpen({ kind: 'create' })}>
          Create Organization
        </button>
      </div>
      <div className="toolbar">
        <SearchForm label="Search organizations" value={search} onSearch={setSearch} />
      </div>
      <DataTable
        label="Organizations"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No organization matches "${search}".` : 'No organizations yet.'} />}
        columns={['Name', 'Sub-domain', 'Proxy server', 'Created', 'Actions']}
        row={(o) => (
          <tr key={o.id}>
            <td>{o.org_name_to_display}</td>
            <td>{o.name}</td>
            <td>{o.use_proxy_server ? 'Yes' : 'No'}</td>
            <td>{formatDateTime(o.created_at)}</td>
            <td className="actions">
              <button type="button" className="small secondary" aria-label={`Edit ${o.org_name_to_display}`} onClick={() => setOpen({ kind: 'edit', org: o })}>
                Edit
              </button>
              <button
                type="button"
                className="small secondary"
                aria-label={`Departments of ${o.org_name_to_display}`}
                onClick={() => setOpen({ kind: 'departments', org: o })}
              >
                Departments
              </button>
              <button type="button" className="small danger" aria-label={`Delete ${o.org_name_to_display}`} onClick={() => setOpen({ kind: 'delete', org: o })}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Organizations" page={page} count={q.data.count} onPage={setPage} /> : null}

      {open?.kind === 'create' ? <OrganizationFormDialog onClose={close} /> : null}
      {open?.kind === 'edit' ? <OrganizationFormDialog org={open.org} onClose={close} /> : null}
      {open?.kind === 'departments' ? <DepartmentsDialog org={open.org} onClose={close} /> : null}
      {open?.kind === 'delete' ? <DeleteOrganization org={open.org} onClose={close} /> : null}
    </section>
  );
}

function DeleteOrganization({ org, onClose }: { org: Organization; onClose: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => deleteOrganization(org.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      onClose();
      await qc.invalidateQueries({ queryKey: organizationsKey });
    },
    onError: (err) => notify.failure(err, 'delete', ORG_DELETE_FAILED),
  });
  return (
    <ConfirmDialog
      title="Delete organization"
      confirmLabel="Delete"
      busy={m.isPending}
      onConfirm={() => m.mutate()}
      onCancel={onClose}
    >
      <p>
        Delete <strong>{org.org_name_to_display}</strong>? Its departments and its users' links to it are deleted too.
        This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
