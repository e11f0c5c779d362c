import { screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';

import type { CameraEvent, DeviceDetails } from '@/api/generated';
import { fakeClock } from '@/testing/clock';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { eventSentence, formatClock, lightChange, unsureSentence } from './components/camera-drift';
import { SEEN, details, device, deviceConfigApi, devicesFeature } from './fixtures';

/** 02/03/26 04:05:06 local time plus `s` seconds. */
const at = (s: number) => SEEN + s * 1000;

const event = (id: number, camera: string, from: number, to: number | null): CameraEvent => ({
  id,
  camera,
  kind: 'unsure',
  started_at: from,
  ended_at: to,
  unsure_share: 0.82,
  brightness: 9.4,
  sure_share: 0.03,
  sure_brightness: 118.2,
});

/** Bench 7: its agent's clock 10 s behind the cloud's; cam0's model unsure for a minute
 * (the light fell), cam1 sure; an earlier event of cam1 that ended. */
function bench(): DeviceDetails {
  const skew = 10_000;
  return {
    ...details(
      device(7, 'Bench 7', {
        online: true,
        last_seen: SEEN,
        status: {
          v: 1,
          online: true,
          ts_ms: SEEN - skew,
          agent_version: '0.3.1',
          cameras: [
            {
              camera: 'cam0',
              task: 4,
              fps: 15,
              model_version: 'm-12',
              state: 'running',
              generation: 3,
              unsure_share: 0.82,
              brightness: 9.4,
              unsure_since_ms: SEEN - skew - 60_000,
              sure_share: 0.03,
              sure_brightness: 118.2,
            },
            { camera: 'cam1', task: 4, fps: 15, model_version: 'm-12', state: 'running', generation: 3, unsure_share: 0.05, brightness: 131 },
          ],
          outbox: 0,
          disk_free_mb: null,
          temperature_c: null,
        },
      }),
    ),
    camera_events: [event(2, 'cam0', SEEN - 60_000, null), event(1, 'cam1', at(-3 * 3600), at(-3 * 3600 + 35 * 60))],
  };
}

beforeEach(() => {
  fakeClock();
  vi.setSystemTime(at(120));
});

test('a camera whose model is unsure shows since when on the viewer’s clock, its figures against when it was sure, and the record', async () => {
  server.use(
    devicesFeature(),
    http.get(apiUrl('device/7/device_details/'), () => HttpResponse.json(bench())),
    http.get(apiUrl('organization/task/'), () => HttpResponse.json([])),
    ...deviceConfigApi(),
  );
  signInAs('org_user', 1);
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  const warnings = screen.getAllByRole('status').filter((e) => e.classList.contains('warning'));
  expect(warnings.map((w) => w.textContent)).toEqual([
    'The model is unsure on cam0 since 04:04: 82% of its frames unsure (3% when it was sure), brightness 9 (118 when it was sure); ' +
      'the light fell. Bring the light back, or add video of what it sees now and train it again before cycles go wrong.',
  ]);
  expect(tableRows(within(screen.getByRole('region', { name: 'Cameras' })).getByRole('table'))).toEqual([
    ['cam0', 'Task 4', 'Running', '15.0', 'm-12', '82% unsure, brightness 9'],
    ['cam1', 'Task 4', 'Running', '15.0', 'm-12', '5% unsure, brightness 131'],
  ]);
  const events = within(screen.getByRole('region', { name: 'Camera events' })).getByRole('list', { name: 'Camera events' });
  expect(within(events).getAllByRole('listitem').map((e) => e.textContent)).toEqual([
    'Model unsure on cam0 from 04:04, still unsure (brightness 118 → 9)',
    'Model unsure on cam1 from 01:05 to 01:40 (brightness 118 → 9)',
  ]);
});

test('a device whose models are sure shows no warning and says it has no camera event', async () => {
  const d = bench();
  const cameras = d.status!.cameras.map((c) => ({ ...c, unsure_since_ms: null }));
  server.use(
    devicesFeature(),
    http.get(apiUrl('device/7/device_details/'), () =>
      HttpResponse.json({ ...d, status: { ...d.status!, cameras }, camera_events: [] }),
    ),
    http.get(apiUrl('organization/task/'), () => HttpResponse.json([])),
    ...deviceConfigApi(),
  );
  signInAs('org_user', 1);
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  expect(screen.queryByText(/The model is unsure/)).toBeNull();
  expect(within(screen.getByRole('region', { name: 'Camera events' })).getByText('No camera event yet.')).toBeInTheDocument();
});

test('a model unsure in the same light says so without blaming the light', () => {
  const c = bench().status!.cameras[0]!;
  expect(unsureSentence({ ...c, brightness: 110 }, 0, at(120))).toBe(
    'The model is unsure on cam0 since 04:03: 82% of its frames unsure (3% when it was sure), brightness 110 (118 when it was sure). ' +
      'Add video of what it sees now and train it again before cycles go wrong.',
  );
  expect(unsureSentence({ ...c, unsure_since_ms: null }, 0, at(120))).toBeNull();
  expect(lightChange(200, 60)).toBe('rose');
});

test('a time of another day carries its date', () => {
  expect(formatClock(at(0), at(60))).toBe('04:05');
  expect(formatClock(at(0), at(24 * 3600))).toBe('02/03/26, 04:05');
});

test('each kind of event is worded for what it is, the device itself as "the device"', () => {
  const health = (kind: CameraEvent['kind'], camera: string, to: number | null, detail?: string): CameraEvent => ({
    ...event(9, camera, at(0), to),
    kind,
    unsure_share: null,
    brightness: null,
    sure_share: null,
    sure_brightness: null,
    ...(detail !== undefined ? { detail } : {}),
  });
  const now = at(3600);
  expect(eventSentence(health('offline', 'cam0', at(35 * 60), 'camera cam0 (rtsp://…): Could not open resource'), now)).toBe(
    'Camera offline on cam0 from 04:05 to 04:40 — camera cam0 (rtsp://…): Could not open resource',
  );
  expect(eventSentence(health('frozen', 'cam0', null, 'the picture has not changed for 45 s'), now)).toBe(
    'Frozen frames on cam0 from 04:05, still going — the picture has not changed for 45 s',
  );
  expect(eventSentence(health('slow', 'cam1', null), now)).toBe('Frame rate under its floor on cam1 from 04:05, still going');
  expect(eventSentence(health('model', 'cam1', at(60), 'no model file'), now)).toBe(
    'Model error on cam1 from 04:05 to 04:06 — no model file',
  );
  expect(eventSentence(health('outbox_filling', '', null, ''), now)).toBe('Outbox filling on the device from 04:05, still going');
  expect(eventSentence(health('disk_low', '', at(120), '2% free'), now)).toBe(
    'Disk low on the device from 04:05 to 04:07 — 2% free',
  );
  expect(eventSentence(event(3, 'cam0', at(0), null), now)).toBe(
    'Model unsure on cam0 from 04:05, still unsure (brightness 118 → 9)',
  );
});
