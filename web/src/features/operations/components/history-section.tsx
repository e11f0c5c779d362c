import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Task, TaskHistoryEntry } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { TASK_HISTORY_FAILED, TASK_REVERT_FAILED } from '@/config/messages';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

import { putTask, revertTask, taskHistoryQuery } from '../api/tasks';

/**
 * The task's history, newest first: when, who, what (created, updated, deleted,
 * restored, reverted, cloned) and which fields. Revert (after a confirmation) sets the
 * task back to its state after that change; the server's message says what changed
 * (spec section 8), and the task and its history reload.
 */
export function HistorySection({ task, manage }: { task: Task; manage: boolean }) {
  const titleId = useId();
  const q = useQuery(taskHistoryQuery(task.id));
  const [reverting, setReverting] = useState<TaskHistoryEntry | null>(null);
  const entries = q.data;

  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>History</h3>
      {q.isError ? (
        <p role="alert" className="query-error">
          {TASK_HISTORY_FAILED}{' '}
          <button type="button" className="small secondary" onClick={() => void q.refetch()}>
            Try again
          </button>
        </p>
      ) : null}
      {q.isPending ? <p>Loading history…</p> : null}
      {entries && entries.length === 0 ? <p className="muted">No change recorded.</p> : null}
      {entries && entries.length > 0 ? (
        <table className="data-table" aria-label="History">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Changed fields</th>
              {manage ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {entries.map((h) => (
              <tr key={h.id}>
                <td>{formatDateTime(h.created_at)}</td>
                <td>{h.user_name || '—'}</td>
                <td>{h.action}</td>
                <td>{h.changed_fields.length ? h.changed_fields.join(', ') : '—'}</td>
                {manage ? (
                  <td className="actions">
                    <button
                      type="button"
                      className="small secondary"
                      aria-label={`Revert to ${h.action} of ${formatDateTime(h.created_at)}`}
                      onClick={() => setReverting(h)}
                    >
                      Revert
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {reverting ? <RevertDialog task={task} entry={reverting} onClose={() => setReverting(null)} /> : null}
    </section>
  );
}

function RevertDialog({ task, entry, onClose }: { task: Task; entry: TaskHistoryEntry; onClose: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => revertTask(task.id, { history_id: entry.id }),
    onSuccess: async (r) => {
      notify.success(r.msg);
      onClose();
      await putTask(qc, r.task);
    },
    onError: (err) => {
      notify.failure(err, 'post', TASK_REVERT_FAILED);
      onClose();
    },
  });
  return (
    <ConfirmDialog title="Revert operation" confirmLabel="Revert" busy={m.isPending} onConfirm={() => m.mutate()} onCancel={onClose}>
      <p>
        Set <strong>{task.taskName}</strong> back to its state after this change ({entry.action}
        {entry.user_name ? ` by ${entry.user_name}` : ''}, {formatDateTime(entry.created_at)})? The revert is recorded in
        the history too.
      </p>
    </ConfirmDialog>
  );
}
