import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import type { ModelVersion } from '@/api/generated';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { modelVersionsQuery, setModelDeleted } from '../api/training';

/** The spec's message when the soft delete fails (section 8). */
export const DELETE_FAILED = 'Unable to delete Model Version';

/**
 * `/user/models` (model versions): the organisation's trained models, newest first,
 * with their held-out numbers. The soft delete toggles `is_deleted` at once and is put
 * back, with 'Unable to delete Model Version', when the server refuses (spec section 9).
 */
export default function ModelsScreen() {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageTasks');
  const qc = useQueryClient();
  const q = modelVersionsQuery(null);
  const models = useQuery(q);
  const toggle = useMutation({
    mutationFn: (m: ModelVersion) => setModelDeleted(m.id, !m.is_deleted),
    onMutate: async (m) => {
      await qc.cancelQueries({ queryKey: q.queryKey });
      const before = qc.getQueryData(q.queryKey);
      qc.setQueryData(q.queryKey, (list) => list?.map((x) => (x.id === m.id ? { ...x, is_deleted: !m.is_deleted } : x)));
      return { before };
    },
    onError: (_err, _m, ctx) => {
      qc.setQueryData(q.queryKey, ctx?.before);
      notify.errorShort(DELETE_FAILED);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: q.queryKey }),
  });
  return (
    <section>
      <div className="screen-header">
        <h1>Model versions</h1>
        {s.organizationName ? <span className="muted">{s.organizationName}</span> : null}
      </div>
      <DataTable
        label="Model versions"
        query={{ isPending: models.isPending, error: models.error, data: models.data }}
        empty={<EmptyState title="No model versions yet.">Train one in Train Model.</EmptyState>}
        columns={['Version', 'Operation', 'Made', 'Frame accuracy', 'Cycle-time error', 'Size', manage && 'Deleted']}
        row={(m) => (
          <tr key={m.id} className={m.is_deleted ? 'muted' : undefined}>
            <td>{m.version}</td>
            <td>{m.task ?? '—'}</td>
            <td>{new Date(m.created_at).toLocaleString()}</td>
            <td>{m.metrics ? `${(m.metrics.frame_accuracy * 100).toFixed(1)}%` : '—'}</td>
            <td>{m.metrics ? `${(m.metrics.cycle_time_error_share * 100).toFixed(2)}%` : '—'}</td>
            <td>{(m.size_bytes / 1024).toFixed(0)} KiB</td>
            {manage ? (
              <td>
                <input
                  type="checkbox"
                  aria-label={`${m.version} deleted`}
                  checked={m.is_deleted}
                  onChange={() => toggle.mutate(m)}
                />
              </td>
            ) : null}
          </tr>
        )}
      />
    </section>
  );
}
