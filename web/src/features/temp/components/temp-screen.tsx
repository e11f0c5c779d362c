import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link, generatePath } from 'react-router';

import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import { useSession } from '@/lib/session';

import { deviceMonitoringQuery, deviceStatusQuery, healthSummary, onlineLine } from '../api/monitoring';

/**
 * Temporary (`/user/temp`, the user and the org user only; spec sections 2 and 6 name
 * the screen, not what it shows): the organisation's devices at a glance from the
 * monitoring calls, how many are online and each one's health (offline, or its open
 * events: a camera offline, frozen frames, the disk low…), the troubled first, read
 * again every 30 s. docs/decisions.md "The temp screen".
 */
export default function TempScreen() {
  const { organization } = useSession();
  if (organization === null) return <p role="alert">User is not assigned to any organization</p>;
  return <Monitoring org={organization} />;
}

function Monitoring({ org }: { org: number }) {
  const id = useId();
  const status = useQuery(deviceStatusQuery(org));
  const health = useQuery(deviceMonitoringQuery(org));
  return (
    <section className="temp">
      <h1>Temporary</h1>
      <p className="hint">The organization&apos;s devices at a glance, read again every 30 seconds.</p>
      <QueryStatus pending={status.isPending} error={status.error} what="Device status" />
      {status.data && (
        <dl className="facts" aria-label="Device status">
          <dt>Devices</dt>
          <dd>{onlineLine(status.data)}</dd>
          <dt>Needing attention</dt>
          <dd>{health.data ? health.data.unhealthy : '…'}</dd>
        </dl>
      )}
      <h2 id={id}>Device health</h2>
      <DataTable
        label="Device health"
        query={{ isPending: health.isPending, error: health.error, data: health.data?.devices }}
        empty={<EmptyState title="No devices yet." />}
        columns={['Device', 'Health', 'Last seen']}
        row={(d) => (
          <tr key={d.id} className={d.healthy ? undefined : 'attention'}>
            <td>
              <Link to={generatePath(paths.user.device, { id: String(d.id) })}>{d.display_name}</Link>
            </td>
            <td>{healthSummary(d)}</td>
            <td>{d.last_seen === null ? 'Never' : formatDateTime(d.last_seen)}</td>
          </tr>
        )}
      />
    </section>
  );
}
