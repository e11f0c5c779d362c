import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { DataTable } from '@/components/ui/data-table';
import { DATA_DELETED } from '@/config/messages';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

import { deleteLockout, lockoutsKey, lockoutsQuery } from '../api/accounts';

/** Addresses locked out after failed sign-ins, each with a button lifting its lockout. */
export function LockoutList() {
  const qc = useQueryClient();
  const q = useQuery(lockoutsQuery());
  const m = useMutation({
    mutationFn: deleteLockout,
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      await qc.invalidateQueries({ queryKey: lockoutsKey });
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  return (
    <section className="section" aria-labelledby="lockouts-title">
      <h2 id="lockouts-title">Locked-out addresses</h2>
      <DataTable
        label="Locked-out addresses"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<p className="muted">No address is locked out.</p>}
        columns={['E-mail', 'Failed attempts', 'Locked until', 'Actions']}
        row={(l) => (
          <tr key={l.email}>
            <td>{l.email}</td>
            <td>{l.failures}</td>
            <td>{formatDateTime(l.locked_until)}</td>
            <td className="actions">
              <button
                type="button"
                className="small secondary"
                aria-label={`Unlock ${l.email}`}
                disabled={m.isPending && m.variables === l.email}
                onClick={() => m.mutate(l.email)}
              >
                Unlock
              </button>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
