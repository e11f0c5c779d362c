import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';

import type { Device } from '@/api/generated';
import { useDeviceStream } from '@/api/use-device-stream';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { ScreenHeader } from '@/components/ui/screen-header';
import { StreamBadge } from '@/components/ui/stream-badge';
import { paths } from '@/config/paths';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { deviceListQuery, patchDevice, putDevice } from '../api/devices';
import { devicePath } from './device-path';
import { CameraTasks, OnlineBadge } from './device-bits';

/**
 * `/user/devices` (Devices, gated by the 'Devices' subscription): the organisation's
 * devices, starred first with a star mark (spec section 9; the server orders them and
 * hides departmental devices). Each row: the caller's star (a toggle), the name (to the
 * device's page), serial number, online or not, enrolled or not, and what its cameras
 * run. Roles holding `ManageDevices` find Add Device here too.
 */
export default function DevicesScreen() {
  const s = useSession();
  const org = s.organization;
  const manage = s.role !== null && can(s.role, 'ManageDevices');
  const operate = s.role !== null && can(s.role, 'OperateDevices');
  const q = useQuery({ ...deviceListQuery(org ?? 0), enabled: org !== null });
  const stream = useDeviceStream(org);

  return (
    <section>
      <ScreenHeader title="Devices">
        {org !== null ? <StreamBadge state={stream} /> : null}
        {manage ? (
          <Link to={paths.user.addDevice}>
            Add device
          </Link>
        ) : null}
      </ScreenHeader>
      {org === null ? (
        <EmptyState title="User is not assigned to any organization" />
      ) : (
        <DataTable
          label="Devices"
          query={{ isPending: q.isPending, error: q.error, data: q.data }}
          empty={
            <EmptyState title="No devices yet.">
              {manage ? (
                <p>
                  <Link to={paths.user.addDevice}>Add a device</Link> to enrol a workstation.
                </p>
              ) : (
                <p>An organisation admin or support user adds them.</p>
              )}
            </EmptyState>
          }
          columns={['Star', 'Name', 'Serial number', 'Status', 'Enrolled', 'Runs']}
          row={(d) => (
            <tr key={d.id}>
              <td>
                <StarButton device={d} enabled={operate} />
              </td>
              <td>
                <Link to={devicePath(d.id)}>{d.display_name}</Link>
              </td>
              <td>{d.Serial_number || '—'}</td>
              <td>
                <OnlineBadge online={d.online} />
              </td>
              <td>{d.enrolled ? 'Enrolled' : 'Not enrolled'}</td>
              <td>
                <CameraTasks tasks={d.tasks} />
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}

/** The caller's own star on a device: starred ones are listed first. */
function StarButton({ device, enabled }: { device: Device; enabled: boolean }) {
  const qc = useQueryClient();
  const star = useMutation({
    mutationFn: () => patchDevice(device.id, { starred: !device.starred }),
    onSuccess: (d) => putDevice(qc, d),
    onError: (err) => notify.failure(err, 'post'),
  });
  return (
    <button
      type="button"
      className="star link-button"
      aria-label={`${device.starred ? 'Unstar' : 'Star'} ${device.display_name}`}
      aria-pressed={device.starred}
      title={device.starred ? 'Starred: listed first' : 'Star to list it first'}
      disabled={!enabled || star.isPending}
      onClick={() => star.mutate()}
    >
      {device.starred ? '★' : '☆'}
    </button>
  );
}
