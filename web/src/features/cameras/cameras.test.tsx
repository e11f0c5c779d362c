import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import type { Device } from '@/api/generated';
import { signInAs } from '@/testing/helpers';
import { FakePeerConnection, TEST_ICE, fakeWebRtc, liveServer, paint } from '@/testing/live';
import { renderApp } from '@/testing/render-app';
import { server } from '@/testing/server';

import { SEEN, camera, device, devicesApi as devicesHandlers, status } from './fixtures';

const DEVICES = [
  device(7, 'Bench', true, [
    camera('cam0', { state: 'running', task: 3, fps: 14.8 }),
    camera('cam1', { state: 'failed', error: 'cam1: rtsp://10.0.0.9/line1 refused the connection', since_ms: SEEN }),
  ]),
  device(8, 'Store', false, [camera('cam0')]),
  device(9, 'Spare', true, null),
];

function devicesApi(rows: Device[] = DEVICES) {
  server.use(...devicesHandlers(rows));
}

const tile = (name: string) => screen.getByRole('button', { name });
const video = (name: string) => screen.getByLabelText<HTMLVideoElement>(`Live video of ${name}`);

beforeEach(() => fakeWebRtc());
afterEach(() => vi.unstubAllGlobals());

test("the organisation's cameras play in tiles; an offline device's say so and ask for nothing", async () => {
  signInAs('org_user', 1);
  devicesApi();
  const live = liveServer(() => DEVICES);
  renderApp('/user/cameras');

  expect(await screen.findByRole('heading', { level: 1, name: 'Cameras' })).toBeInTheDocument();
  await screen.findByRole('button', { name: 'cam0 on Bench' });
  for (const d of ['Bench Online', 'Store Offline', 'Spare Online']) expect(screen.getByRole('region', { name: d })).toBeInTheDocument();
  expect(within(screen.getByRole('list', { name: 'Cameras of Bench' })).getAllByRole('button')).toHaveLength(2);
  expect(screen.getByText('The device has reported no cameras.')).toBeInTheDocument();

  // One stream for the screen: it watches the devices and asks for each online camera, in order.
  await waitFor(() => expect(live.steps()).toHaveLength(4));
  expect(live.frames).toHaveLength(1);
  expect(live.frames[0]![0]).toEqual({ event: 'subscribe', data: {} });
  expect(live.sessions.map((s) => `${s.device}/${s.camera}`)).toEqual(['7/cam0', '7/cam1']);
  // Each session's offer, made with its ICE servers, receive-only.
  expect(live.steps().slice(2)).toEqual([
    { type: 'offer', session: 's-1', sdp: 'v=0 offer 0' },
    { type: 'offer', session: 's-2', sdp: 'v=0 offer 1' },
  ]);
  const [pc0, pc1] = FakePeerConnection.all;
  expect(pc0!.config).toEqual({ iceServers: TEST_ICE });
  expect(pc0!.transceivers).toEqual([['video', { direction: 'recvonly' }]]);

  // States in words, beside the picture.
  expect(tile('cam0 on Bench')).toHaveAccessibleDescription('Connecting… Camera: Running');
  expect(tile('cam1 on Bench')).toHaveAccessibleDescription(/^Connecting… Camera: Failed since .*: cam1: rtsp:\/\/10\.0\.0\.9\/line1 refused the connection$/);
  expect(tile('cam0 on Store')).toHaveAccessibleDescription('Offline: no live video while the device is offline. Camera: Idle');

  // cam0 answers and plays; cam1 is refused.
  live.say({ type: 'answer', session: 's-1', sdp: 'v=0 answer' });
  live.say({ type: 'refused', session: 's-2', message: 'The camera is not working.' });
  await waitFor(() => expect(pc0!.remoteDescription).toEqual({ type: 'answer', sdp: 'v=0 answer' }));
  pc0!.play();
  expect(video('cam0 on Bench').srcObject).toEqual({ id: 'stream' });
  paint(video('cam0 on Bench'));
  await waitFor(() => expect(tile('cam0 on Bench')).toHaveAccessibleDescription('Live Camera: Running'));
  await waitFor(() => expect(tile('cam1 on Bench')).toHaveAccessibleDescription(/^Failed: The camera is not working\. Trying again in 1 s\. Camera: Failed/));
  expect(pc1!.closed).toBe(true);
  // It asks again.
  await waitFor(() => expect(live.sessions.map((s) => `${s.device}/${s.camera}`)).toEqual(['7/cam0', '7/cam1', '7/cam1']), { timeout: 3_000 });
});

test('a tile opens the full-screen player on a second session; closing it leaves that session', async () => {
  signInAs('org_user', 1);
  devicesApi();
  const live = liveServer(() => DEVICES);
  const user = userEvent.setup();
  const { router } = renderApp('/user/remote-devices');

  await screen.findByRole('button', { name: 'cam0 on Bench' });
  await waitFor(() => expect(live.sessions).toHaveLength(2));
  live.say({ type: 'answer', session: 's-1', sdp: 'v=0 answer' });
  await waitFor(() => expect(FakePeerConnection.all[0]!.remoteDescription).not.toBeNull());
  FakePeerConnection.all[0]!.play();
  paint(video('cam0 on Bench'));

  await user.click(tile('cam0 on Bench'));
  const player = await screen.findByRole('dialog', { name: 'cam0 on Bench' });
  expect(router.state.location.search).toBe('?watch=7%2Fcam0');
  expect(within(player).getByText('Camera: Running')).toBeInTheDocument();
  expect(within(player).getByText(/14\.8 frames per second/)).toBeInTheDocument();
  // Its own session for the same camera.
  await waitFor(() => expect(live.sessions.map((s) => `${s.device}/${s.camera}`)).toEqual(['7/cam0', '7/cam1', '7/cam0']));
  expect(within(player).getByRole('status', { name: 'Live video state' })).toHaveTextContent('Connecting…');
  live.say({ type: 'answer', session: 's-3', sdp: 'v=0 answer' });
  const pc = FakePeerConnection.all[2]!;
  await waitFor(() => expect(pc.remoteDescription).not.toBeNull());
  pc.play();
  paint(within(player).getByLabelText<HTMLVideoElement>('Live video of cam0 on Bench, full screen'), 1280, 720);
  await waitFor(() => expect(within(player).getByRole('status', { name: 'Live video state' })).toHaveTextContent('Live'));

  await user.click(within(player).getByRole('button', { name: 'Close' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(router.state.location.search).toBe('');
  await waitFor(() => expect(live.steps().at(-1)).toEqual({ type: 'close', session: 's-3' }));
  expect(pc.closed).toBe(true);
  // The tile plays on.
  expect(tile('cam0 on Bench')).toHaveAccessibleDescription('Live Camera: Running');
  expect(FakePeerConnection.all[0]!.closed).toBe(false);
});

test('the device stream says a device went offline: its tiles stop asking', async () => {
  signInAs('org_user', 1);
  devicesApi();
  const live = liveServer(() => DEVICES);
  renderApp('/user/cameras');
  await screen.findByRole('button', { name: 'cam0 on Bench' });
  await waitFor(() => expect(live.sessions).toHaveLength(2));
  const s = status(false, DEVICES[0]!.status!.cameras);
  // The device's new status comes on the same stream.
  live.push({ event: 'device_status', data: { id: 7, online: false, last_seen: SEEN + 1000, status: s } });
  await waitFor(() => expect(tile('cam0 on Bench')).toHaveAccessibleDescription(/^Offline: no live video/));
  await waitFor(() => expect(live.steps().filter((x) => x.type === 'close').map((x) => (x.type === 'close' ? x.session : ''))).toEqual(['s-1', 's-2']));
  expect(FakePeerConnection.all.every((p) => p.closed)).toBe(true);
});

test('leaving the screen closes its stream', async () => {
  signInAs('org_user', 1);
  devicesApi();
  const live = liveServer(() => DEVICES);
  const { unmount } = renderApp('/user/cameras');
  await screen.findByRole('button', { name: 'cam0 on Bench' });
  await waitFor(() => expect(live.sessions).toHaveLength(2));
  unmount();
  await waitFor(() => expect(live.closed).toBe(1));
  expect(FakePeerConnection.all.every((p) => p.closed)).toBe(true);
});

test('in StrictMode (effects twice) each camera is asked for once, on the one stream left open', async () => {
  signInAs('org_user', 1);
  devicesApi();
  const live = liveServer(() => DEVICES);
  renderApp('/user/cameras', undefined, { strict: true });
  await screen.findByRole('button', { name: 'cam0 on Bench' });
  await waitFor(() => expect(live.sessions.map((s) => `${s.device}/${s.camera}`)).toEqual(['7/cam0', '7/cam1']));
  await waitFor(() => expect(live.steps().filter((x) => x.type === 'offer')).toHaveLength(2));
  // Only one stream was used (the first, closed by the second run of the effects, may have been dialled).
  expect(live.frames.filter((f) => f.length > 0)).toHaveLength(1);
});
