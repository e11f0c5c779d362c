import { QueryClient } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';

import type { Device, DeviceDetails, StatusMessage } from '@/api/generated';
import { applyStreamEvent } from '@/api/device-stream';
import { signInAs, tableRows } from '@/testing/helpers';
import { advance, fakeClock } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';
import { fakeStream } from '@/testing/stream';

import { deviceKey, deviceListKey } from './api/devices';
import { SEEN, details, device, deviceConfigApi, devicesFeature } from './fixtures';

const LATER = SEEN + 60_000;

const status = (online: boolean, fps: number): StatusMessage => ({
  v: 1,
  online,
  ts_ms: LATER,
  agent_version: '0.4.0',
  cameras: [{ camera: 'cam0', task: null, fps, model_version: 'm-13', state: 'idle', generation: 0 }],
  outbox: 0,
  disk_free_mb: null,
  temperature_c: null,
});

const fact = (name: string) => screen.getByText(name, { selector: 'dt' }).nextElementSibling?.textContent;

test("a device's page hears the device go online and its cameras' frame rates as they happen", async () => {
  signInAs('org_user', 1);
  let asked = 0;
  server.use(
    devicesFeature(),
    http.get(apiUrl('device/7/device_details/'), () => {
      asked += 1;
      return HttpResponse.json(details(device(7, 'Bench 7')));
    }),
    http.get(apiUrl('organization/task/'), () => HttpResponse.json([])),
    ...deviceConfigApi(),
  );
  const conns = fakeStream(() => ({ event: 'devices', data: [device(7, 'Bench 7')] }));
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  expect(await screen.findByRole('status', { name: 'Live updates' })).toHaveTextContent('Live');
  await waitFor(() => expect(conns[0]?.received).toEqual([{ event: 'subscribe', data: { devices: [7] } }]));
  // Opened as a browser can: token as a sub-protocol, organisation in the query.
  expect(conns[0]!.protocols).toEqual(['gemba.v1', 'bearer.tok']);
  expect(conns[0]!.url.searchParams.get('organization')).toBe('1');
  expect(fact('Status')).toBe('Offline never seen');

  conns[0]!.send({ event: 'device_status', data: { id: 7, online: true, last_seen: LATER, status: status(true, 14.5) } });
  await waitFor(() => expect(fact('Status')).toBe('Online last seen 02/03/26, 04:06:06'));
  expect(tableRows(within(screen.getByRole('region', { name: 'Cameras' })).getByRole('table'))).toEqual([
    ['cam0', '—', 'Idle', '14.5', 'm-13', '—'],
  ]);
  expect(fact('Agent version')).toBe('0.4.0');
  // Another device's event changes nothing here.
  conns[0]!.send({ event: 'device_status', data: { id: 8, online: false, last_seen: LATER, status: status(false, 0) } });
  conns[0]!.send({ event: 'device_status', data: { id: 7, online: false, last_seen: LATER + 1000, status: status(false, 0) } });
  await waitFor(() => expect(fact('Status')).toBe('Offline last seen 02/03/26, 04:06:07'));
  // Heard, not asked: the page asked for the device once.
  expect(asked).toBe(1);
});

test('the devices list is live; a dropped stream is opened again, one whose sign-in ended is not', async () => {
  signInAs('org_user', 1);
  server.use(
    devicesFeature(),
    http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json([device(7, 'Bench 7'), device(9, 'Bench 9')])),
  );
  fakeClock();
  const conns = fakeStream(() => ({ event: 'devices', data: [device(7, 'Bench 7'), device(9, 'Bench 9')] }));
  renderApp('/user/devices');
  const table = await screen.findByRole('table', { name: 'Devices' });
  await waitFor(() => expect(conns[0]?.received).toEqual([{ event: 'subscribe', data: {} }]));
  const online = () => tableRows(table).map((r) => r[3]);
  expect(online()).toEqual(['Offline', 'Offline']);
  conns[0]!.send({ event: 'device_status', data: { id: 9, online: true, last_seen: LATER, status: status(true, 15) } });
  await waitFor(() => expect(online()).toEqual(['Offline', 'Online']));

  // Dropped: Reconnecting… until a second later it is open again and subscribes again.
  conns[0]!.close(1011);
  expect(await screen.findByRole('status', { name: 'Live updates' })).toHaveTextContent('Reconnecting…');
  advance(999);
  expect(conns).toHaveLength(1);
  advance(1);
  await waitFor(() => expect(conns[1]?.received).toEqual([{ event: 'subscribe', data: {} }]));
  expect(screen.getByRole('status', { name: 'Live updates' })).toHaveTextContent('Live');

  // The sign-in ended (4401): not opened again, however long the page stays.
  conns[1]!.close(4401);
  await waitFor(() => expect(screen.getByRole('status', { name: 'Live updates' })).toHaveTextContent('Reconnecting…'));
  advance(120_000);
  expect(conns).toHaveLength(2);
});

test('a stream whose subscribe goes unanswered for 15 s is given up and opened again', async () => {
  signInAs('org_user', 1);
  server.use(devicesFeature(), http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json([device(7, 'Bench 7')])));
  fakeClock();
  // The first connection is dead without a close: it hears the subscribe, answers nothing.
  let answering = false;
  const conns = fakeStream(() => (answering ? { event: 'devices', data: [device(7, 'Bench 7')] } : null));
  renderApp('/user/devices');
  await screen.findByRole('table', { name: 'Devices' });
  await waitFor(() => expect(conns[0]?.received).toEqual([{ event: 'subscribe', data: {} }]));
  const badge = () => screen.getByRole('status', { name: 'Live updates' });
  expect(badge()).toHaveTextContent('Live');
  advance(14_000);
  expect(badge()).toHaveTextContent('Live');
  expect(conns).toHaveLength(1);

  answering = true;
  advance(1_000);
  await waitFor(() => expect(badge()).toHaveTextContent('Reconnecting…'));
  advance(1_000);
  await waitFor(() => expect(conns[1]?.received).toEqual([{ event: 'subscribe', data: {} }]));
  await waitFor(() => expect(badge()).toHaveTextContent('Live'));
  // Answered: the new one is kept, however long it stays quiet.
  advance(120_000);
  expect(conns).toHaveLength(2);
  expect(badge()).toHaveTextContent('Live');
});

test('events go into the cached lists and details; settings too', () => {
  const qc = new QueryClient();
  const d7: DeviceDetails = details(device(7, 'Bench 7'));
  qc.setQueryData(deviceKey(7), d7);
  qc.setQueryData<Device[]>(deviceListKey(1), [device(7, 'Bench 7'), device(9, 'Bench 9')]);
  applyStreamEvent(qc, { event: 'device_settings', data: { id: 7, display_name: 'Bench 7', settings: { fps: 5 } } });
  applyStreamEvent(qc, { event: 'devices', data: [device(9, 'Bench 9 renamed', { starred: true })] });
  expect(qc.getQueryData<DeviceDetails>(deviceKey(7))?.settings).toEqual({ fps: 5 });
  // The details keep what the stream does not carry.
  expect(qc.getQueryData<DeviceDetails>(deviceKey(7))?.commands).toEqual([]);
  const list = qc.getQueryData<Device[]>(deviceListKey(1))!;
  expect(list.map((d) => [d.display_name, d.settings])).toEqual([
    ['Bench 7', { fps: 5 }],
    ['Bench 9 renamed', {}],
  ]);
  // A device not cached is not added to the details.
  expect(qc.getQueryData(deviceKey(9))).toBeUndefined();
});
