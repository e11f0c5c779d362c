import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { metadataRows, videoMetadataQuery } from '../api/video-metadata';

/** A ready video's file details, read from the stored file when asked. */
export function VideoDetails({ video }: { video: number }) {
  const titleId = useId();
  const [asked, setAsked] = useState(false);
  const q = useQuery({ ...videoMetadataQuery(video), enabled: asked });
  return (
    <section className="section" aria-labelledby={titleId}>
      <h4 id={titleId}>File details</h4>
      {!asked ? (
        <button type="button" className="small secondary" onClick={() => setAsked(true)}>
          Read file details
        </button>
      ) : null}
      {asked && q.isPending ? <p>Reading the file…</p> : null}
      {q.isError ? (
        <p role="alert" className="query-error">
          Could not read the file details.
        </p>
      ) : null}
      {q.data ? (
        <dl aria-label="File details">
          {metadataRows(q.data).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </section>
  );
}
