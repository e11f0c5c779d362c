import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { paths } from '@/config/paths';

import { requestedVideosQuery } from '../api/labeler';
import { Editor } from './label-screen';
import { VideosToLabel } from './videos-to-label';

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
          <VideosToLabel
            q={q}
            page={page}
            onPage={setPage}
            empty={<EmptyState title="No videos yet.">The organisation has not uploaded any yet.</EmptyState>}
            onLabel={(v) => setParams({ video: String(v.id) })}
          />
        </>
      )}
    </section>
  );
}
