/** Devices and cameras for the Cameras tests, as the API answers them. */
import { HttpResponse, http } from 'msw';

import type { CameraStatus, Device, RemoteCam, StatusMessage } from '@/api/generated';
import { apiUrl } from '@/testing/server';

/** 2026-02-03 04:05:06 local time. */
export const SEEN = new Date(2026, 1, 3, 4, 5, 6).getTime();

export const camera = (name: string, extra: Partial<CameraStatus> = {}): CameraStatus => ({
  camera: name,
  task: null,
  fps: 0,
  model_version: null,
  state: 'idle',
  generation: 0,
  ...extra,
});

export const status = (online: boolean, cameras: CameraStatus[]): StatusMessage => ({
  v: 1,
  online,
  ts_ms: SEEN,
  agent_version: '0.4.0',
  cameras,
  outbox: 0,
  disk_free_mb: null,
  temperature_c: null,
});

export const device = (id: number, name: string, online: boolean, cameras: CameraStatus[] | null): Device => ({
  id,
  display_name: name,
  Serial_number: `SN-${id}`,
  Type: 'workstation',
  starred: false,
  active: true,
  is_archived: false,
  organization: 1,
  department: null,
  enrolled: true,
  online,
  last_seen: SEEN,
  status: cameras === null ? null : status(online, cameras),
  settings: {},
  tasks: [],
  created_at: SEEN,
  update_channel: 'prod',
  fetch_analytics: true,
});

/** A remote camera of `d` as the server answers it. */
export const remoteCam = (id: number, d: Device, name: string, url: string, extra: Partial<RemoteCam> = {}): RemoteCam => ({
  id,
  device: { id: d.id, display_name: d.display_name, Serial_number: d.Serial_number, Type: d.Type, online: d.online },
  name,
  url,
  username: '',
  has_password: false,
  created_at: SEEN,
  updated_at: SEEN,
  ...extra,
});

/** The organisation's devices (`device/device_org/1/`), with no remote cameras unless a test says. */
export function devicesApi(rows: Device[]) {
  return [
    http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json(rows)),
    http.get(apiUrl('device/remote_cam/:id/'), () => HttpResponse.json([])),
  ];
}

/** The organisation holds 'Devices' (changing cameras needs it). */
export const devicesFeature = () =>
  http.get(apiUrl('feature_control/subscribed_feature/'), () =>
    HttpResponse.json([{ id: 1, Feature: 3, Organization: 1, feature_name: 'Devices', is_suppressed: false }]),
  );
