import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { ArchivedCycle } from '@/api/generated';
import { archivedCyclesQuery, deleteCycle, restoreCycle } from '@/api/cycles';
import { cyclesKey } from '@/api/device-stream';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { Pager } from '@/components/ui/pager';
import { DATA_DELETED, DATA_UPDATED } from '@/config/messages';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

const when = (iso: string) => formatDateTime(Date.parse(iso));

/**
 * `/admin/archived-cycles` (Archived Cycles, super admin): the cycles people archived
 * (out of every list and figure), every organisation's or one's (`?organization=` in the
 * address), the most recently archived first, with who archived each and why. Restore
 * brings one back into the figures; Delete removes it for good, after a confirmation.
 */
export default function ArchivedCyclesScreen() {
  const qc = useQueryClient();
  const [params, setParams] = useSearchParams();
  const org = Number(params.get('organization')) || null;
  const [page, setPage] = useState(1);
  const q = useQuery(archivedCyclesQuery(org, page));
  const [deleting, setDeleting] = useState<ArchivedCycle | null>(null);
  const done = (message: string) => async () => {
    notify.successShort(message);
    setDeleting(null);
    await qc.invalidateQueries({ queryKey: cyclesKey });
  };
  const restore = useMutation({
    mutationFn: restoreCycle,
    onSuccess: done(DATA_UPDATED),
    onError: (err) => notify.failure(err, 'post'),
  });
  const remove = useMutation({
    mutationFn: deleteCycle,
    onSuccess: done(DATA_DELETED),
    onError: (err) => notify.failure(err, 'delete'),
  });
  const named = (c: ArchivedCycle) => `${c.task_name ?? `Operation ${c.task}`} ended ${when(c.end_datetime)}`;
  return (
    <section>
      <h1>Archived Cycles</h1>
      <OrganizationSelect
        value={org}
        none="All organizations"
        onChange={(o) => {
          setPage(1);
          setParams(o !== null ? { organization: String(o) } : {});
        }}
      />
      <DataTable
        label="Archived cycles"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title="No archived cycles." />}
        columns={['Organization', 'Operation', 'Device', 'Cycle', 'Verdict', 'Archived', 'Reason', 'Actions']}
        row={(c) => (
          <tr key={c.id}>
            <td>{c.organization_name ?? `#${c.organization}`}</td>
            <td>{c.task_name ?? `Operation ${c.task}`}</td>
            <td>{c.device_name ?? '—'}</td>
            <td>
              {when(c.start_datetime)}, {((Date.parse(c.end_datetime) - Date.parse(c.start_datetime)) / 1000).toFixed(1)} s
            </td>
            <td>{c.good ? 'Good' : 'Bad'}</td>
            <td>
              {formatDateTime(c.archived_at_ms)}
              {c.archived_by ? <span className="muted"> by {c.archived_by}</span> : null}
            </td>
            <td>{c.reason}</td>
            <td className="actions">
              <button
                type="button"
                className="secondary"
                disabled={restore.isPending}
                onClick={() => restore.mutate(c.id)}
                aria-label={`Restore ${named(c)}`}
              >
                Restore
              </button>{' '}
              <button type="button" className="danger" onClick={() => setDeleting(c)} aria-label={`Delete ${named(c)}`}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager page={page} count={q.data.count} onPage={setPage} label="Archived cycles" /> : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete the cycle?"
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting.id)}
          onCancel={() => setDeleting(null)}
        >
          {named(deleting)} of {deleting.organization_name ?? 'its organization'} is deleted for good, with its history.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
