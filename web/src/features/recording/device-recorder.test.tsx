import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Device, Video } from '@/api/generated';
import { fail, ok, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { video } from '@/testing/videos';
import { readSeconds } from './components/device-recorder';

const device = (id: number, name: string, online: boolean, cameras: string[]) =>
  ({
    id,
    display_name: name,
    enrolled: true,
    online,
    tasks: [],
    status: online
      ? { v: 1, online: true, ts_ms: 0, agent_version: 't', cameras: cameras.map((camera) => ({ camera, task: null, fps: 0, model_version: null })), outbox: 0, disk_free_mb: null, temperature_c: null }
      : null,
  }) as unknown as Device;

const recording: Video = video(9, {
  file_name: 'Bench 1 cam1 2026-11-24 10:00:00.mp4',
  status: 'recording',
  size_bytes: 0,
  received_bytes: 0,
  duration_ms: null,
  fps: null,
  width: null,
  height: null,
  url: null,
  device: 1,
  camera: 'cam1',
});

let listed: Video[];
let asked: unknown[];

beforeEach(() => {
  signInAs('org_user');
  listed = [];
  asked = [];
  server.use(
    http.get(apiUrl('feature_control/subscribed_feature/'), () =>
      HttpResponse.json([{ id: 1, Feature: 1, Organization: 1, feature_name: 'Record Training Set', is_suppressed: false }]),
    ),
    http.get(apiUrl('organization/task/'), () => ok([{ id: 1, taskName: 'Assemble sensor' }])),
    http.get(apiUrl('organization/task/videos/1'), () => ok({ results: listed, count: listed.length })),
    http.get(apiUrl('device/device_org/1/'), () => ok([device(1, 'Bench 1', true, ['cam0', 'cam1']), device(2, 'Bench 2', false, [])])),
    http.post(apiUrl('organization/task/videos/1/record/'), async ({ request }) => {
      asked.push(await request.json());
      listed = [recording];
      return ok(recording, 201);
    }),
  );
});

test('seconds must be a whole number between 5 and 600', () => {
  for (const bad of ['', '4', '601', '5.5', 'ten', '-5']) expect(readSeconds(bad)).toEqual({ ok: false, message: 'Record between 5 and 600 seconds.' });
  expect(readSeconds(' 30 ')).toEqual({ ok: true, value: 30 });
  expect(readSeconds('600')).toEqual({ ok: true, value: 600 });
});

test('bad values are said and nothing is asked of a device', async () => {
  const user = userEvent.setup();
  renderApp('/user/record?task=1');
  const form = await screen.findByRole('form', { name: 'Record on a device' });
  await user.clear(within(form).getByLabelText('Seconds'));
  await user.type(within(form).getByLabelText('Seconds'), '3');
  await user.click(within(form).getByRole('button', { name: 'Record on device' }));
  expect(within(form).getByText('Choose a device.')).toBeInTheDocument();
  expect(within(form).getByText('Record between 5 and 600 seconds.')).toBeInTheDocument();
  expect(await within(form).findByRole('option', { name: 'Bench 2 (offline)' })).toBeDisabled();
  expect(asked).toEqual([]);
});

test('a device is asked to record its chosen camera and the video shows as recording', async () => {
  const user = userEvent.setup();
  renderApp('/user/record?task=1');
  const form = await screen.findByRole('form', { name: 'Record on a device' });
  await within(form).findByRole('option', { name: 'Bench 1' });
  await user.selectOptions(within(form).getByLabelText('Device'), 'Bench 1');
  expect(within(form).getByLabelText('Camera')).toHaveValue('cam0');
  await user.selectOptions(within(form).getByLabelText('Camera'), 'cam1');
  await user.clear(within(form).getByLabelText('Seconds'));
  await user.type(within(form).getByLabelText('Seconds'), '45');
  await user.click(within(form).getByRole('button', { name: 'Record on device' }));
  await waitFor(() => expect(asked).toEqual([{ device: 1, camera: 'cam1', seconds: 45 }]));
  expect(await screen.findByText('(recording on the device…)')).toBeInTheDocument();
  // The list asks again by itself until the recording arrives.
  listed = [{ ...recording, status: 'ready', url: '/api/media/t', duration_ms: 45_000, size_bytes: 1000, received_bytes: 1000 }];
  expect(await screen.findByRole('button', { name: recording.file_name }, { timeout: 8000 })).toBeInTheDocument();
  expect(screen.queryByText('(recording on the device…)')).toBeNull();
});

test("the server's words are shown under their field", async () => {
  server.use(http.post(apiUrl('organization/task/videos/1/record/'), () => fail(400, { device: ['Bench 1 is offline: try again once it is online.'] })));
  const user = userEvent.setup();
  renderApp('/user/record?task=1');
  const form = await screen.findByRole('form', { name: 'Record on a device' });
  await within(form).findByRole('option', { name: 'Bench 1' });
  await user.selectOptions(within(form).getByLabelText('Device'), 'Bench 1');
  await user.click(within(form).getByRole('button', { name: 'Record on device' }));
  expect(await within(form).findByText('Bench 1 is offline: try again once it is online.')).toBeInTheDocument();
});

test('a failed recording shows why', async () => {
  listed = [{ ...recording, status: 'failed', message: 'no video file at /x.mp4' }];
  renderApp('/user/record?task=1');
  expect(await screen.findByText('(failed: no video file at /x.mp4)')).toBeInTheDocument();
});
