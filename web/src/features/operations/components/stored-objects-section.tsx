import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { formatDateTime } from '@/lib/format';

import { kindLabel, sizeLabel, storedObjectsQuery } from '../api/stored-objects';

/** The task's files in the object store, listed when asked (each is looked up there). */
export function StoredObjectsSection({ taskId }: { taskId: number }) {
  const titleId = useId();
  const [asked, setAsked] = useState(false);
  const q = useQuery({ ...storedObjectsQuery(taskId), enabled: asked });
  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Stored files</h3>
      {!asked ? (
        <button type="button" className="small secondary" onClick={() => setAsked(true)}>
          List stored files
        </button>
      ) : null}
      {asked && q.isPending ? <p>Looking the files up…</p> : null}
      {q.isError ? (
        <p role="alert" className="query-error">
          Could not list the stored files.
        </p>
      ) : null}
      {q.data && q.data.length === 0 ? <p className="muted">No stored file yet.</p> : null}
      {q.data && q.data.length > 0 ? (
        <table className="data-table" aria-label="Stored files">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Of</th>
              <th scope="col">Key</th>
              <th scope="col">Size</th>
              <th scope="col">Stored</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((o) => (
              <tr key={`${o.kind}:${o.record}:${o.key}`}>
                <td>{kindLabel(o.kind)}</td>
                <td>{o.name}</td>
                <td>
                  <code>{o.key}</code>
                </td>
                <td>{sizeLabel(o.size_bytes)}</td>
                <td>{o.last_modified !== null ? formatDateTime(o.last_modified) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
