import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';

import type { ModelVersion } from '@/api/generated';
import { tasksQuery } from '@/api/tasks';
import { DataTable } from '@/components/ui/data-table';
import { notify } from '@/lib/toast';

import { modelVersionsQuery, setModelDeleted } from '../api/model-versions';

/** The spec's message when the soft delete fails (section 8). */
export const DELETE_FAILED = 'Unable to delete Model Version';

/**
 * The model versions of the session's organisation, or of `organization` (the super
 * admin's choice), newest first, with their held-out numbers. With `manage`, the soft
 * delete toggles `is_deleted` at once and is put back, with 'Unable to delete Model
 * Version', when the server refuses (spec section 4).
 */
export function ModelVersionsTable({ organization, manage, empty }: { organization?: number; manage: boolean; empty: ReactNode }) {
  const qc = useQueryClient();
  const q = modelVersionsQuery(null, organization);
  const models = useQuery(q);
  const tasks = useQuery(tasksQuery(organization));
  const taskName = (id: number | null) => tasks.data?.find((t) => t.id === id)?.taskName ?? (id === null ? '—' : `#${id}`);
  // The new state shows at once (kept here until the list is fetched again), and is put
  // back when the server refuses.
  const [shown, setShown] = useState<Record<number, boolean>>({});
  const forget = (id: number) =>
    setShown((o) => {
      const n = { ...o };
      delete n[id];
      return n;
    });
  const toggle = useMutation({
    mutationFn: ({ id, to }: { id: number; to: boolean }) => setModelDeleted(id, to, organization),
    onError: () => notify.errorShort(DELETE_FAILED),
    onSettled: async (_m, _err, { id }) => {
      await qc.invalidateQueries({ queryKey: q.queryKey });
      forget(id);
    },
  });
  const deleted = (m: ModelVersion) => shown[m.id] ?? m.is_deleted;
  const flip = (m: ModelVersion) => {
    const to = !deleted(m);
    setShown((o) => ({ ...o, [m.id]: to }));
    toggle.mutate({ id: m.id, to });
  };
  return (
    <DataTable
      label="Model versions"
      query={{ isPending: models.isPending, error: models.error, data: models.data }}
      empty={empty}
      columns={['Version', 'Operation', 'Made', 'Frame accuracy', 'Cycle-time error', 'Size', manage && 'Deleted']}
      row={(m) => (
        <tr key={m.id} className={deleted(m) ? 'muted' : undefined}>
          <td>{m.version}</td>
          <td>{taskName(m.task)}</td>
          <td>{new Date(m.created_at).toLocaleString()}</td>
          <td>{m.metrics ? `${(m.metrics.frame_accuracy * 100).toFixed(1)}%` : '—'}</td>
          <td>{m.metrics ? `${(m.metrics.cycle_time_error_share * 100).toFixed(2)}%` : '—'}</td>
          <td>{(m.size_bytes / 1024).toFixed(0)} KiB</td>
          {manage ? (
            <td>
              <input type="checkbox" aria-label={`${m.version} deleted`} checked={deleted(m)} onChange={() => flip(m)} />
            </td>
          ) : null}
        </tr>
      )}
    />
  );
}
