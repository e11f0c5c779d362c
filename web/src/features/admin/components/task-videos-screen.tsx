import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';

import type { Video } from '@/api/generated';
import { type VideoFilter, videoListQuery } from '@/api/videos';
import { VideoState } from '@/components/media/video-state';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, SelectField } from '@/components/ui/field';
import { Pager } from '@/components/ui/pager';
import { paths } from '@/config/paths';
import { formatDateTime, megabytes, seconds } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';

const TYPES = ['', 'true', 'false'] as const;
const ORDERS = ['', '-no_of_comments', 'no_of_comments'] as const;

/** The list's filter from the address's values (anything else: none). */
export function filterOf(f: Record<'type' | 'from' | 'to' | 'ordering', string>): VideoFilter {
  return {
    isUploadedVideo: TYPES.find((t) => t === f.type) ?? '',
    from: f.from,
    to: f.to,
    ordering: ORDERS.find((o) => o === f.ordering) ?? '',
  };
}

/**
 * `/admin/task-videos/{taskId}/{taskName}` (Task Videos, super admin, from All
 * Operations and Trained Operations): the operation's videos, whichever organisation
 * it is of, 10 a page, with the spec's filters (type, dates, order by comments, in the
 * address); a ready video plays here.
 */
export default function TaskVideosScreen() {
  const params = useParams();
  const task = Number(params.taskId);
  const name = params.taskName ?? '';
  const { page, filters, setPage, setFilter } = useListParams(['type', 'from', 'to', 'ordering']);
  const filter = filterOf(filters);
  const valid = Number.isInteger(task) && task > 0;
  const q = useQuery({ ...videoListQuery(task, page, filter), enabled: valid });
  useClampPage(page, q.data, setPage);
  const [playing, setPlaying] = useState<Video | null>(null);

  return (
    <section>
      <div className="screen-header">
        <h1>Task Videos</h1>
      </div>
      <p>
        Videos of <strong>{name || `operation ${params.taskId ?? ''}`}</strong> · <Link to={paths.admin.tasks}>All Operations</Link>
      </p>
      {!valid ? (
        <EmptyState title="No such operation." />
      ) : (
        <>
          <div className="filters" role="group" aria-label="Video filters">
            <SelectField label="Video type" value={filter.isUploadedVideo} onChange={(e) => setFilter('type', e.target.value)}>
              <option value="">All Videos</option>
              <option value="true">Training</option>
              <option value="false">Trace</option>
            </SelectField>
            <Field label="From" type="date" value={filter.from} max={filter.to || undefined} onChange={(e) => setFilter('from', e.target.value)} />
            <Field label="To" type="date" value={filter.to} min={filter.from || undefined} onChange={(e) => setFilter('to', e.target.value)} />
            <SelectField label="Order" value={filter.ordering} onChange={(e) => setFilter('ordering', e.target.value)}>
              <option value="">Newest first</option>
              <option value="-no_of_comments">Most comments first</option>
              <option value="no_of_comments">Fewest comments first</option>
            </SelectField>
          </div>
          <DataTable
            label="Task videos"
            query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
            empty={<EmptyState title="No videos match." />}
            columns={['Thumbnail', 'Name', 'Type', 'Tags', 'Comments', 'Length', 'Size', 'Uploaded']}
            row={(v) => (
              <tr key={v.id}>
                <td>{v.thumbnail_url ? <img src={v.thumbnail_url} alt="" width={96} /> : '—'}</td>
                <td>
                  {v.url ? (
                    <button type="button" className="link-button" aria-label={`Play ${v.file_name}`} onClick={() => setPlaying(v)}>
                      {v.file_name}
                    </button>
                  ) : (
                    <>
                      {v.file_name} <VideoState v={v} />
                    </>
                  )}
                </td>
                <td>{v.isUploadedVideo ? 'Training' : 'Trace'}</td>
                <td>{v.tags.length > 0 ? v.tags.join(', ') : '—'}</td>
                <td>{v.no_of_comments}</td>
                <td>{seconds(v.duration_ms)}</td>
                <td>{megabytes(v.size_bytes)}</td>
                <td>{formatDateTime(v.created_at)}</td>
              </tr>
            )}
          />
          {q.data ? <Pager page={page} count={q.data.count} onPage={setPage} label="Task videos" /> : null}
          {playing?.url ? (
            <figure className="player">
              <video
                key={playing.id}
                controls
                src={playing.url}
                poster={playing.thumbnail_url ?? undefined}
                aria-label={`Playing ${playing.file_name}`}
                width={640}
              />
              <figcaption>{playing.file_name}</figcaption>
            </figure>
          ) : null}
        </>
      )}
    </section>
  );
}
