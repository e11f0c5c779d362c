import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';

import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { paths } from '@/config/paths';

import { requestedVideosQuery } from '../api/labeler';
import { seconds } from '../labels';
import { Editor } from './label-screen';

/** `/labeler/videos/:organization/:taskName/:taskId`: a requested operation's videos;
 * choosing one opens the labeling editor (the same as Label Training Set's). */
export default function LabelerVideosScreen() {
  const { organization, taskName, taskId } = useParams();
  const task = Number(taskId) || 0;
  const [params, setParams] = useSearchParams();
  const videoId = Number(params.get('video')) || null;
  const [page, setPage] = useState(1);
  const q = useQuery(requestedVideosQuery(task, page));
  const chosen = q.data?.results.find((v) => v.id === videoId) ?? null;
  return (
    <section>
      <div className="screen-header">
        <h1>{taskName}</h1>
        <span className="muted">{organization}</span>
      </div>
      <Link to={paths.labeler.tasks}>← Operations Requested</Link>
      {chosen ? (
        <>
          <button type="button" className="link-button" onClick={() => setParams({})}>
            ← All videos
          </button>
          <Editor video={chosen} editable via="labeler" />
        </>
      ) : (
        <>
          <DataTable
            label="Videos to label"
            query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
            empty={<EmptyState title="No videos yet.">The organisation has not uploaded any yet.</EmptyState>}
            columns={['Name', 'Type', 'Length', '']}
            row={(v) => (
              <tr key={v.id}>
                <td>{v.file_name}</td>
                <td>{v.isUploadedVideo ? 'Training' : 'Trace'}</td>
                <td>{v.duration_ms !== null ? seconds(v.duration_ms) : ''}</td>
                <td>
                  <button type="button" className="secondary" onClick={() => setParams({ video: String(v.id) })}>
                    Label {v.file_name}
                  </button>
                </td>
              </tr>
            )}
          />
          {q.data ? <Pager page={page} count={q.data.count} onPage={setPage} label="Videos" /> : null}
        </>
      )}
    </section>
  );
}
