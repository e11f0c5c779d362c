import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { Pager } from '@/components/ui/pager';
import { SearchForm } from '@/components/ui/search-form';
import { TRAIN_STATUS_LABEL, formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';

import { adminTasksQuery, taskVideosPath } from '../api/tasks';

/**
 * `/admin/tasks` (All Operations, super admin): every organisation's operations, 10 a
 * page, searched by name, one organisation's on request (`?organization=`): name,
 * organisation, steps, training status, when made; each links to its Task Videos.
 */
export default function AdminTasksScreen() {
  const { page, search, filters, setPage, setSearch, setFilter } = useListParams(['organization']);
  const org = Number(filters.organization) || null;
  const q = useQuery(adminTasksQuery(page, search, org));
  useClampPage(page, q.data, setPage);

  return (
    <section>
      <div className="screen-header">
        <h1>All Operations</h1>
      </div>
      <div className="toolbar">
        <SearchForm label="Search operations" value={search} onSearch={setSearch} />
      </div>
      <OrganizationSelect value={org} none="All organizations" onChange={(o) => setFilter('organization', o === null ? '' : String(o))} />
      <DataTable
        label="All operations"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No operation matches "${search}".` : 'No operations yet.'} />}
        columns={['Operation', 'Organization', 'Steps', 'Training', 'Created', 'Videos']}
        row={(t) => (
          <tr key={t.id}>
            <td>{t.taskName}</td>
            <td>{t.Organization.org_name_to_display}</td>
            <td>{t.stepsCount}</td>
            <td>{TRAIN_STATUS_LABEL[t.train_status]}</td>
            <td>{formatDateTime(t.created_at)}</td>
            <td>
              <Link to={taskVideosPath(t)} aria-label={`Videos of ${t.taskName}`}>
                Videos
              </Link>
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="All operations" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
