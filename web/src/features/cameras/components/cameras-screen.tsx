import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useSearchParams } from 'react-router';

import type { Device } from '@/api/generated';
import { deviceListQuery } from '@/api/devices';
import type { LiveSignalling } from '@/api/live-view';
import { useActiveFeatures } from '@/api/subscriptions';
import { useLiveSignalling } from '@/api/use-live-view';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { StreamBadge } from '@/components/ui/stream-badge';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';

import { CameraPlayer } from './camera-player';
import { CameraTile } from './camera-tile';
import { RemoteCams } from './remote-cams';

/** The address's `watch` value: the camera open in the player, `{device}/{camera}`. */
const WATCH = 'watch';

/**
 * Cameras (`/user/cameras`, and the sidebar's `/user/remote-devices`; docs/decisions.md
 * "Cameras at both paths"): each device of the organisation with a live tile per camera
 * it last reported. Tiles of online devices play (one device stream for the whole
 * screen, a session per tile); an offline device's tiles say so and ask for nothing.
 * A tile opens the full-screen player (`?watch=7/cam0`, so Back closes it). The device
 * stream also keeps the devices' status live. Under each device's tiles, its remote
 * (RTSP, HTTP) cameras, added, changed and deleted here by the roles that operate
 * devices in an organisation holding 'Devices' (what the server asks of a change).
 */
export default function CamerasScreen() {
  const s = useSession();
  const org = s.organization;
  const q = useQuery({ ...deviceListQuery(org ?? 0), enabled: org !== null });
  const { signal, state } = useLiveSignalling(org);
  const [params, setParams] = useSearchParams();
  const features = useActiveFeatures(org);
  const editable = s.role !== null && can(s.role, 'OperateDevices') && features.has('Devices');

  const watched = parseWatch(params.get(WATCH));
  const player = watched && q.data ? findCamera(q.data, watched) : null;
  const open = (device: Device, camera: string) =>
    setParams((p) => {
      p.set(WATCH, `${device.id}/${camera}`);
      return p;
    });
  const close = () =>
    setParams((p) => {
      p.delete(WATCH);
      return p;
    });

  return (
    <section>
      <ScreenHeader title="Cameras">{org !== null ? <StreamBadge state={state} /> : null}</ScreenHeader>
      {org === null ? (
        <EmptyState title="User is not assigned to any organization" />
      ) : !q.data ? (
        <QueryStatus pending={q.isPending} error={q.error} what="Devices" />
      ) : q.data.length === 0 ? (
        <EmptyState title="No devices yet.">
          <p>A device's cameras show here once it is enrolled and reports them.</p>
        </EmptyState>
      ) : (
        q.data.map((d) => <DeviceCameras key={d.id} device={d} signal={signal} editable={editable} onOpen={(c) => open(d, c)} />)
      )}
      {player ? <CameraPlayer signal={signal} device={player.device} camera={player.camera} editable={editable} onClose={close} /> : null}
    </section>
  );
}

/** One device's tiles under its name and whether it is online, then its remote cameras. */
function DeviceCameras({
  device,
  signal,
  editable,
  onOpen,
}: {
  device: Device;
  signal: LiveSignalling | null;
  editable: boolean;
  onOpen: (camera: string) => void;
}) {
  const id = useId();
  const cameras = device.status?.cameras ?? [];
  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>
        {device.display_name}{' '}
        <span className={`badge ${device.online ? 'status-online' : 'status-offline'}`}>{device.online ? 'Online' : 'Offline'}</span>
      </h2>
      {cameras.length === 0 ? (
        <p className="muted">The device has reported no cameras.</p>
      ) : (
        <ul className="camera-grid" aria-label={`Cameras of ${device.display_name}`}>
          {cameras.map((c) => (
            <CameraTile key={c.camera} signal={signal} device={device} camera={c} onOpen={() => onOpen(c.camera)} />
          ))}
        </ul>
      )}
      <RemoteCams device={device} editable={editable} />
    </section>
  );
}

function parseWatch(v: string | null): { device: number; camera: string } | null {
  const m = v ? /^(\d+)\/(.+)$/.exec(v) : null;
  return m ? { device: Number(m[1]), camera: m[2]! } : null;
}

function findCamera(devices: readonly Device[], w: { device: number; camera: string }) {
  const device = devices.find((d) => d.id === w.device);
  const camera = device?.status?.cameras.find((c) => c.camera === w.camera);
  return device && camera ? { device, camera } : null;
}
