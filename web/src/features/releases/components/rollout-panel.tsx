import { useQuery } from '@tanstack/react-query';

import { DataTable } from '@/components/ui/data-table';
import { QueryStatus } from '@/components/ui/query-status';
import { formatDateTime } from '@/lib/format';

import { deploymentQuery } from '../api/releases';
import { UPDATE_STATE, progress, releaseName, releaseState } from '../releases';

/**
 * A release's roll-out: its state and progress, and each device (first wave, then the
 * rest) with where it is, its last words and the version it says it runs; asked again
 * every few seconds while the roll-out goes on (`deploymentQuery`).
 */
export function RolloutPanel({ id, onClose }: { id: number; onClose: () => void }) {
  const q = useQuery(deploymentQuery(id));
  const d = q.data;
  return (
    <section aria-label="Roll-out">
      <div className="screen-header">
        <h2>{d ? `Roll-out of ${releaseName(d.release)} in ${d.release.running_environment}` : 'Roll-out'}</h2>
        <button type="button" className="small secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {d ? (
        <>
          <p>
            <span>{releaseState(d.release)}</span> · <span>{progress(d.release)}</span>
            {d.release.start_time !== null ? <span className="muted"> · began {formatDateTime(d.release.start_time)}</span> : null}
            {d.release.end_time !== null ? <span className="muted"> · ended {formatDateTime(d.release.end_time)}</span> : null}
          </p>
          <DataTable
            label="Roll-out devices"
            query={{ isPending: false, error: null, data: d.devices }}
            empty={<p className="muted">No device follows {d.release.running_environment} for {d.release.target}.</p>}
            columns={['Device', 'Wave', 'State', 'Detail', 'Version', 'Updated']}
            row={(x) => (
              <tr key={x.device}>
                <td>{x.display_name}</td>
                <td>{x.wave === 1 ? 'First' : 'Rest'}</td>
                <td>{UPDATE_STATE[x.state]}</td>
                <td>{x.detail ?? '—'}</td>
                <td>{x.agent_version || '—'}</td>
                <td>{formatDateTime(x.updated_at)}</td>
              </tr>
            )}
          />
        </>
      ) : (
        <QueryStatus pending={q.isPending} error={q.error} what="Roll-out" />
      )}
    </section>
  );
}
