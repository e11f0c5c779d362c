import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { RecentCycle } from '@/api/generated';
import { CHANGE_LABEL, REASON_MAX, archiveCycles, cycleDetailsQuery, setVerdict } from '@/api/cycles';
import { cyclesKey } from '@/api/device-stream';
import { Dialog } from '@/components/ui/dialog';
import { Field, FormError } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { DATA_UPDATED } from '@/config/messages';
import { formErrors } from '@/lib/api-errors';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

type Action = 'verdict' | 'archive';

/**
 * A cycle's changes by people: its history (who marked it, archived or restored it, when
 * and why), and, with a reason, mark it the other way (good ↔ bad) or archive it (out of
 * every list and figure until the admin's Archived Cycles restores it). The figures and
 * lists are asked for again once a change is taken.
 */
export function CycleDialog({ cycle, onClose }: { cycle: RecentCycle; onClose: () => void }) {
  const qc = useQueryClient();
  const details = useQuery(cycleDetailsQuery(cycle.id));
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const m = useMutation({
    mutationFn: async (a: Action) => {
      if (a === 'verdict') await setVerdict(cycle.id, !cycle.good, reason.trim());
      else await archiveCycles([cycle.id], reason.trim());
    },
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      onClose();
      await qc.invalidateQueries({ queryKey: cyclesKey });
    },
    onError: (err) => setErrors(formErrors(err)),
  });

  function run(a: Action) {
    if (m.isPending) return;
    const r = reason.trim();
    if (r.length === 0 || r.length > REASON_MAX) {
      setErrors({ reason: `Say why, in 1 to ${REASON_MAX} characters.` });
      return;
    }
    setErrors({});
    m.mutate(a);
  }

  const history = details.data?.history ?? [];
  return (
    <Dialog title={`Cycle ended ${formatDateTime(cycle.end_ms)}`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run('verdict');
        }}
        noValidate
      >
        <p>
          {((cycle.end_ms - cycle.start_ms) / 1000).toFixed(1)} s, {cycle.good ? 'good' : 'bad'}.
        </p>
        <QueryStatus pending={details.isPending} error={details.error} what="History" />
        {history.length > 0 ? (
          <ol className="cycle-history" aria-label="History">
            {history.map((h) => (
              <li key={h.id}>
                {CHANGE_LABEL[h.change] ?? h.change} {formatDateTime(h.at_ms)} by {h.by ?? 'a removed user'}
                {h.reason ? `: ${h.reason}` : ''}
              </li>
            ))}
          </ol>
        ) : details.data ? (
          <p className="muted">No one has changed this cycle.</p>
        ) : null}
        <Field
          label="Reason"
          value={reason}
          maxLength={REASON_MAX}
          error={errors.reason}
          onChange={(e) => {
            setReason(e.target.value);
            setErrors({});
          }}
        />
        <FormError message={errors.non_field_errors ?? errors.good ?? errors.ids} />
        <div className="dialog-actions">
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="secondary" disabled={m.isPending} onClick={() => run('archive')}>
            Archive
          </button>
          <button type="submit" disabled={m.isPending}>
            {cycle.good ? 'Mark bad' : 'Mark good'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
