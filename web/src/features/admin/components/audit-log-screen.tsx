import { useQuery } from '@tanstack/react-query';

import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { ScreenHeader } from '@/components/ui/screen-header';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';

import { auditLogQuery } from '../api/audit-log';

/** `/audit-log` (super admin, organisation admin): the administrators' changes, newest
 * first, 10 a page: when, who, from where, which call on what, and its answer. */
export default function AuditLogScreen() {
  const { page, setPage } = useListParams();
  const q = useQuery(auditLogQuery(page));
  useClampPage(page, q.data, setPage);

  return (
    <section>
      <ScreenHeader title="Audit Log" />
      <DataTable
        label="Audit log"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title="No changes recorded yet." />}
        columns={['When', 'Who', 'Client', 'Organization', 'Call', 'Target', 'Status']}
        row={(e) => (
          <tr key={e.id}>
            <td>{formatDateTime(e.at)}</td>
            <td>
              {e.email} <span className="muted">({e.role})</span>
            </td>
            <td>{e.client_ip}</td>
            <td>{e.organization_id ?? '—'}</td>
            <td>
              <code>
                {e.method} {e.route}
              </code>
            </td>
            <td>{e.target || '—'}</td>
            <td>{e.status}</td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Audit log" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
