import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import type { AnnotationProgress } from '@/api/generated';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { Pager } from '@/components/ui/pager';
import { SearchForm } from '@/components/ui/search-form';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';

import { annotationsQuery } from '../api/reports';

/** The operation's screen in the admin area (Task Videos), whichever organisation it is of. */
export const operationPath = (t: Pick<AnnotationProgress, 'task' | 'taskName'>) =>
  paths.admin.taskVideos.replace(':taskId', String(t.task)).replace(':taskName', encodeURIComponent(t.taskName));

/** A share of the videos: '2 of 3'. */
const of = (n: number, all: number) => `${n} of ${all}`;

/**
 * `/admin/annotations` (Annotations, super admin): labelling progress of every
 * organisation's operations (or one organisation's), the latest label change first, 10
 * a page, searched by name: the operation's ready videos, how many are labelled (labels
 * to train on), reviewed (checked in verification mode or propagated and marked
 * reviewed), propagated ones still to review, step segments, labelers asked, the last
 * change. Each operation links to its videos (Task Videos).
 */
export default function AnnotationsScreen() {
  const { page, search, filters, setPage, setSearch, setFilter } = useListParams(['org']);
  const org = Number(filters.org) || null;
  const q = useQuery(annotationsQuery(page, org, search));
  useClampPage(page, q.data, setPage);

  return (
    <section>
      <div className="screen-header">
        <h1>Annotations</h1>
      </div>
      <OrganizationSelect value={org} onChange={(o) => setFilter('org', o === null ? '' : String(o))} none="All organizations" />
      <div className="toolbar">
        <SearchForm label="Search operations" value={search} onSearch={setSearch} />
      </div>
      <DataTable
        label="Annotations"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No operation matches "${search}".` : 'No operations yet.'} />}
        columns={['Operation', 'Organization', 'Videos', 'Labelled', 'Reviewed', 'To review', 'Segments', 'Labelers', 'Last change']}
        row={(t) => (
          <tr key={t.task}>
            <td>
              <Link to={operationPath(t)} aria-label={`Videos of ${t.taskName}`}>
                {t.taskName}
              </Link>
            </td>
            <td>{t.org_name_to_display}</td>
            <td>{t.videos}</td>
            <td>{of(t.labelled_videos, t.videos)}</td>
            <td>{of(t.reviewed_videos, t.videos)}</td>
            <td>{t.to_review}</td>
            <td>{t.segments}</td>
            <td>{t.labelers}</td>
            <td>{t.last_change === null ? 'Never' : formatDateTime(t.last_change)}</td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Annotations" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
