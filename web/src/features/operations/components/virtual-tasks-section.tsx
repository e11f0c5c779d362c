import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';

import { virtualTasksQuery } from '../api/virtual-tasks';

/**
 * The task's virtual tasks: each process as an operation of its own, its steps (numbered
 * as in the whole operation) and the steps that start and end its cycles.
 */
export function VirtualTasksSection({ taskId }: { taskId: number }) {
  const titleId = useId();
  const q = useQuery(virtualTasksQuery(taskId));
  const list = (ix: readonly number[]) => (ix.length ? ix.map((i) => i + 1).join(', ') : '—');
  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Virtual tasks</h3>
      {q.isError ? (
        <p role="alert" className="query-error">
          Could not load the virtual tasks.
        </p>
      ) : null}
      {q.isPending ? <p>Loading virtual tasks…</p> : null}
      {q.data ? (
        <table className="data-table" aria-label="Virtual tasks">
          <thead>
            <tr>
              <th scope="col">Virtual task</th>
              <th scope="col">Steps</th>
              <th scope="col">Starts on</th>
              <th scope="col">Ends on</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((v) => (
              <tr key={v.process}>
                <td>{v.taskName}</td>
                <td>{v.steps.map((s) => `${s.index + 1}. ${s.name}`).join(', ') || '—'}</td>
                <td>{list(v.required_steps_for_start)}</td>
                <td>{list(v.required_steps_for_end)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
