import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { RemoteCam, RemoteCamCreate, RemoteCamPatch } from '@/api/generated';
import {
  DATA_CREATED,
  DATA_DELETED,
  DATA_UPDATED,
  REMOTE_CAMS_FETCH_FAILED,
  REMOTE_CAM_CREATE_FAILED,
  REMOTE_CAM_DELETE_FAILED,
  REMOTE_CAM_UPDATE_FAILED,
} from '@/config/messages';
import { fillIn } from '@/testing/form';
import { callsTo, fail, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { fakeWebRtc, liveServer } from '@/testing/live';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, camera, device, devicesApi, devicesFeature, remoteCam, status } from './fixtures';
import { URL_SCHEME_MESSAGE } from './remote-cam-form';

const BENCH = device(7, 'Bench', true, [camera('cam0', { state: 'running', task: 3 }), camera('gate', { state: 'running' })]);
const STORE = device(8, 'Store', false, null);
const DEVICES = [BENCH, STORE];

/** The remote cameras as the server keeps them, with its refusals. */
class FakeRemoteCams {
  cams: RemoteCam[] = [
    remoteCam(1, BENCH, 'gate', 'rtsp://admin@10.0.0.5:554/stream1', { username: 'admin', has_password: true }),
    remoteCam(2, BENCH, 'yard', 'http://10.0.0.6/mjpeg'),
    remoteCam(3, STORE, 'dock', 'rtsp://10.0.1.2/live'),
  ];
  private next = 4;

  private check(device: number, name: string, url: string, me?: number): Response | null {
    if (this.cams.some((c) => c.device.id === device && c.name === name && c.id !== me)) {
      return fail(400, { name: [`Bench already has a remote camera ${name}.`] });
    }
    if (url.includes(':99999')) return fail(400, { url: ["The camera's URL has a port that is not 1 to 65535."] });
    return null;
  }

  handlers() {
    return [
      http.get(apiUrl('device/remote_cam/:id/'), ({ params }) => HttpResponse.json(this.cams.filter((c) => c.device.id === Number(params.id)))),
      http.post(apiUrl('device/remote_cam/:id/'), async ({ params, request }) => {
        const body = (await request.json()) as RemoteCamCreate;
        const d = DEVICES.find((x) => x.id === Number(params.id))!;
        const refused = this.check(d.id, body.name, body.url);
        if (refused) return refused;
        const url = body.username ? body.url.replace('://', `://${body.username}@`) : body.url;
        const c = remoteCam(this.next++, d, body.name, url, { username: body.username ?? '', has_password: !!body.password });
        this.cams.push(c);
        return HttpResponse.json(c, { status: 201 });
      }),
      http.patch(apiUrl('device/remote_cam/:id/'), async ({ params, request }) => {
        const body = (await request.json()) as RemoteCamPatch;
        const c = this.cams.find((x) => x.id === Number(params.id))!;
        const refused = this.check(c.device.id, body.name ?? c.name, body.url ?? c.url, c.id);
        if (refused) return refused;
        const username = body.username ?? c.username;
        const bare = (body.url ?? c.url).replace(/\/\/[^@/]*@/, '//');
        const changed: RemoteCam = {
          ...c,
          name: body.name ?? c.name,
          username,
          url: username ? bare.replace('://', `://${username}@`) : bare,
          has_password: body.password === undefined || body.password === null ? c.has_password : body.password !== '',
        };
        this.cams = this.cams.map((x) => (x.id === c.id ? changed : x));
        return HttpResponse.json(changed);
      }),
      http.delete(apiUrl('device/remote_cam/:id/'), ({ params }) => {
        this.cams = this.cams.filter((x) => x.id !== Number(params.id));
        return HttpResponse.json({ msg: DATA_DELETED });
      }),
    ];
  }
}

let fake: FakeRemoteCams;
beforeEach(() => {
  fakeWebRtc();
  fake = new FakeRemoteCams();
  server.use(...fake.handlers(), ...devicesApi(DEVICES));
});
afterEach(() => vi.unstubAllGlobals());

const camsOf = (name: string) => screen.findByRole('table', { name: `Remote cameras of ${name}` });
const rows = async (name: string) => tableRows(await camsOf(name));

test("each device lists its remote cameras with what they do, live; without 'Devices' nothing can be changed", async () => {
  signInAs('org_user', 1);
  const live = liveServer(() => DEVICES);
  renderApp('/user/remote-devices');
  expect(await rows('Bench')).toEqual([
    ['gate', 'rtsp://admin@10.0.0.5:554/stream1', 'admin, password kept', 'Running'],
    ['yard', 'http://10.0.0.6/mjpeg', '—', 'Not reported by the device yet'],
  ]);
  expect(await rows('Store')).toEqual([['dock', 'rtsp://10.0.1.2/live', '—', 'Device offline']]);
  expect(screen.queryByRole('button', { name: /^Add a remote camera/ })).toBeNull();
  expect(screen.queryByRole('button', { name: /^(Edit|Delete) / })).toBeNull();

  // The device applies its configuration: yard is reported, and fails.
  await waitFor(() => expect(live.frames).toHaveLength(1));
  const cams = [...BENCH.status!.cameras, camera('yard', { state: 'failed', error: 'yard: HTTP 401 Unauthorized', since_ms: SEEN })];
  live.push({ event: 'device_status', data: { id: 7, online: true, last_seen: SEEN, status: status(true, cams) } });
  await waitFor(async () => expect((await rows('Bench'))[1]![3]).toBe('Failed since 02/03/26, 04:05:06: yard: HTTP 401 Unauthorized'));
});

test('a remote camera is added: wrong fields are refused before sending, a 400 shows next to its field', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/cameras');
  await user.click(await screen.findByRole('button', { name: 'Add remote camera to Bench' }));
  const dialog = screen.getByRole('dialog', { name: 'Add a remote camera to Bench' });

  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(within(dialog).getByText('Name is required!')).toBeInTheDocument();
  expect(within(dialog).getByText('URL is required!')).toBeInTheDocument();
  await fillIn(user, { Name: 'door', URL: 'ftp://10.0.0.7/s' });
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(within(dialog).getByText(URL_SCHEME_MESSAGE)).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'device/remote_cam/7/')).toHaveLength(0);

  // The server refuses the port: its message next to URL, the spec's failure as the toast.
  await fillIn(user, { URL: 'rtsp://10.0.0.7:99999/s' });
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(await within(dialog).findByText("The camera's URL has a port that is not 1 to 65535.")).toBeInTheDocument();
  expect(within(dialog).getByLabelText('URL')).toHaveAttribute('aria-invalid', 'true');
  expect(await screen.findByText(REMOTE_CAM_CREATE_FAILED)).toBeInTheDocument();
  expect(await rows('Bench')).toHaveLength(2);

  await fillIn(user, { URL: 'rtsp://10.0.0.7/s', Username: ' viewer ', Password: 'pw 1' });
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(await screen.findByText(DATA_CREATED)).toBeInTheDocument();
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(callsTo(rec, 'POST', 'device/remote_cam/7/').map((c) => c.body)).toEqual([
    { name: 'door', url: 'rtsp://10.0.0.7:99999/s' },
    { name: 'door', url: 'rtsp://10.0.0.7/s', username: 'viewer', password: 'pw 1' },
  ]);
  await waitFor(async () => expect((await rows('Bench'))[2]).toEqual(['door', 'rtsp://viewer@10.0.0.7/s', 'viewer, password kept', 'Not reported by the device yet', 'EditDelete']));
});

test('a remote camera is renamed with only its name sent; a taken name is refused; its password removed', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/cameras');
  await user.click(await screen.findByRole('button', { name: 'Edit gate' }));
  const dialog = screen.getByRole('dialog', { name: 'Edit gate on Bench' });
  expect(within(dialog).getByLabelText('URL')).toHaveValue('rtsp://10.0.0.5:554/stream1');
  expect(within(dialog).getByLabelText('Username')).toHaveValue('admin');
  expect(within(dialog).getByLabelText('Password')).toHaveValue('');
  expect(within(dialog).getByLabelText('Password')).toHaveAttribute('placeholder', 'Kept: leave empty to keep it');
  expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();

  await fillIn(user, { Name: 'yard' });
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(await within(dialog).findByText('Bench already has a remote camera yard.')).toBeInTheDocument();
  expect(await screen.findByText(REMOTE_CAM_UPDATE_FAILED)).toBeInTheDocument();

  await fillIn(user, { Name: 'gate2' });
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(await screen.findByText(DATA_UPDATED)).toBeInTheDocument();
  await waitFor(async () => expect((await rows('Bench'))[0]).toEqual(['gate2', 'rtsp://admin@10.0.0.5:554/stream1', 'admin, password kept', 'Not reported by the device yet', 'EditDelete']));

  await user.click(screen.getByRole('button', { name: 'Edit gate2' }));
  const again = screen.getByRole('dialog', { name: 'Edit gate2 on Bench' });
  await user.click(within(again).getByLabelText('Remove the kept password'));
  expect(within(again).getByLabelText('Password')).toBeDisabled();
  await user.click(within(again).getByRole('button', { name: 'Save' }));
  await waitFor(async () => expect((await rows('Bench'))[0]![2]).toBe('admin'));
  expect(callsTo(rec, 'PATCH', 'device/remote_cam/1/').map((c) => c.body)).toEqual([{ name: 'yard' }, { name: 'gate2' }, { password: '' }]);
});

test('a remote camera is deleted after a confirmation; a refused delete says so and keeps it', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature());
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/cameras');

  await user.click(await screen.findByRole('button', { name: 'Delete yard' }));
  const confirm = screen.getByRole('dialog', { name: 'Delete yard?' });
  expect(confirm).toHaveTextContent('Bench stops reading http://10.0.0.6/mjpeg as its camera yard.');
  await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
  expect(callsTo(rec, 'DELETE', 'device/remote_cam/2/')).toHaveLength(0);

  await user.click(screen.getByRole('button', { name: 'Delete yard' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete yard?' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText(DATA_DELETED)).toBeInTheDocument();
  await waitFor(async () => expect((await rows('Bench')).map((r) => r[0])).toEqual(['gate']));

  server.use(http.delete(apiUrl('device/remote_cam/1/'), () => fail(404, { detail: 'Not found.', msg: 'Not found.' })));
  await user.click(screen.getByRole('button', { name: 'Delete gate' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete gate?' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText(REMOTE_CAM_DELETE_FAILED)).toBeInTheDocument();
  expect(screen.getByText('Not found.')).toBeInTheDocument();
  expect((await rows('Bench')).map((r) => r[0])).toEqual(['gate']);
});

test('remote cameras that cannot be fetched say so', async () => {
  signInAs('org_user', 1);
  server.use(http.get(apiUrl('device/remote_cam/8/'), () => fail(403, { detail: 'You do not have permission to perform this action.', msg: 'You do not have permission to perform this action.' })));
  renderApp('/user/cameras');
  await camsOf('Bench');
  const store = screen.getByRole('region', { name: 'Store Offline' });
  expect(await within(store).findByRole('alert')).toHaveTextContent(`${REMOTE_CAMS_FETCH_FAILED} You do not have permission to perform this action.`);
});
