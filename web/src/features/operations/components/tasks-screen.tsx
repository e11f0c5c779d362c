import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { ScreenHeader } from '@/components/ui/screen-header';
import { SearchForm } from '@/components/ui/search-form';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';

import { TRAIN_STATUS_LABEL } from '@/lib/format';

import { taskPageQuery } from '../api/tasks';

/**
 * `/user/tasks` (Tasks): the organisation's operations, 10 a page, starred first, with a
 * search on the name: name, step count, training status, creation date. A name opens
 * the operation on the Define Operation screen (`/user/process?task=ID`).
 */
export default function TasksScreen() {
  const { page, search, setPage, setSearch } = useListParams();
  const q = useQuery(taskPageQuery(page, search));
  useClampPage(page, q.data, setPage);

  return (
    <section>
      <ScreenHeader title="Tasks" />
      <div className="toolbar">
        <SearchForm label="Search tasks" value={search} onSearch={setSearch} />
      </div>
      <DataTable
        label="Tasks"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No task matches "${search}".` : 'No tasks yet.'} />}
        columns={['Name', 'Steps', 'Status', 'Created']}
        row={(t) => (
          <tr key={t.id}>
            <td>
              {t.starred ? (
                <span className="star" title="Starred">
                  <span aria-hidden="true">★ </span>
                  <span className="visually-hidden">Starred: </span>
                </span>
              ) : null}
              <Link to={`${paths.user.process}?task=${t.id}`}>{t.taskName}</Link>
            </td>
            <td>{t.stepsCount}</td>
            <td>
              <span className={`badge status-${t.train_status}`}>{TRAIN_STATUS_LABEL[t.train_status]}</span>
            </td>
            <td>{formatDateTime(t.created_at)}</td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Tasks" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
