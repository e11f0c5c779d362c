import { useQuery } from '@tanstack/react-query';

import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { eventPlace, kindTitle } from '@/lib/device-health';
import { formatDateTime } from '@/lib/format';

import { deviceEventsQuery } from '../api/issues';

/**
 * The Issue Center's "Device health" (issue 30): the organisation's device events of the
 * chosen range (open ones first, then newest first), each with its device, camera ('the
 * device' for the device's own), kind, start, end ('still going' while it lasts) and what
 * the device said of it.
 */
export function DeviceHealth({ org, start, end }: { org: number; start: Date; end: Date }) {
  const q = useQuery(deviceEventsQuery(org, start, end));
  return (
    <section aria-labelledby="device-health">
      <h2 id="device-health">Device health</h2>
      <QueryStatus pending={q.isPending} error={q.error} what="Device health" />
      {q.data ? (
        q.data.length === 0 ? (
          <EmptyState title="No device events in this range." />
        ) : (
          <table className="data-table" aria-label="Device health">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Camera</th>
                <th scope="col">Event</th>
                <th scope="col">Start</th>
                <th scope="col">End</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {q.data.map((e) => (
                <tr key={e.id} className={e.ended_at === null ? 'warning' : undefined}>
                  <td>{e.device_name}</td>
                  <td>{eventPlace(e.camera)}</td>
                  <td>{kindTitle(e.kind)}</td>
                  <td>{formatDateTime(e.started_at)}</td>
                  <td>{e.ended_at === null ? 'still going' : formatDateTime(e.ended_at)}</td>
                  <td>{e.detail ? e.detail : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}
