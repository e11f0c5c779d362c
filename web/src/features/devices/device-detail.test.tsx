import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Command, Device, DeviceCommand, DeviceDetails, StartTask, StopTask } from '@/api/generated';
import { callsTo, fail, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { advance, fakeClock } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, details, device, deviceConfigApi, devicesFeature, engine, task } from './fixtures';

const SENT = new Date(2026, 1, 3, 4, 6, 0).getTime();
const ACKED = new Date(2026, 1, 3, 4, 6, 1).getTime();

const TASKS = [task(4, 'Assemble pump'), task(5, 'Check valve')];

/** Device 7 as the server keeps it: start and stop change its camera tasks and add commands. */
class FakeDevice {
  d: DeviceDetails = details(
    device(7, 'Bench 7', {
      online: true,
      last_seen: SEEN,
      status: {
        v: 1,
        online: true,
        ts_ms: SEEN,
        agent_version: '0.3.1',
        cameras: [
          { camera: 'cam0', task: 4, fps: 14.96, model_version: 'm-12', state: 'running', generation: 3 },
          { camera: 'cam1', task: null, fps: 0, model_version: null, state: 'idle', generation: 0 },
        ],
        outbox: 0,
        disk_free_mb: null,
        temperature_c: null,
      },
      tasks: [{ camera: 'cam0', task: 4, task_name: 'Assemble pump', running: true, refused: null, refused_at: null }],
    }),
    [
      { id: 'c2', command: { type: 'stop_task', camera: 'cam1', task: null, generation: 0 }, created_at: SENT, acked_at: ACKED, ok: false, message: 'no such camera' },
      { id: 'c1', command: { type: 'start_task', camera: 'cam0', task: 4, engine, generation: 3 }, created_at: SEEN, acked_at: ACKED, ok: true, message: null },
    ],
  );
  private n = 2;

  private command(command: Command) {
    const c: DeviceCommand = { id: `c${++this.n}`, command, created_at: SENT, acked_at: null, ok: null, message: null };
    this.d = { ...this.d, commands: [c, ...this.d.commands] };
  }

  /** The device without its commands (what a change answers). */
  private device(): Device {
    const { commands, recent_cycles, task_steps, ...rest } = this.d;
    void commands;
    void recent_cycles;
    void task_steps;
    return rest;
  }

  handlers() {
    return [
      http.get(apiUrl('device/7/device_details/'), () => HttpResponse.json(this.d)),
      http.get(apiUrl('device/8/device_details/'), () => fail(404, { detail: 'Not found.', msg: 'Not found.' })),
      http.get(apiUrl('organization/task/'), () => HttpResponse.json(TASKS)),
      http.post(apiUrl('device/7/start_task/'), async ({ request }) => {
        const body = (await request.json()) as StartTask;
        if (!/^[A-Za-z0-9._-]+$/.test(body.camera)) {
          return fail(400, { camera: ["A camera name is 1 to 100 letters, digits, '-', '_' or '.'."] });
        }
        const t = TASKS.find((x) => x.id === body.task);
        if (!t) return fail(400, { task: ['No such task.'] });
        const others = this.d.tasks.filter((x) => x.camera !== body.camera);
        this.d = { ...this.d, tasks: [...others, { camera: body.camera, task: t.id, task_name: t.taskName, running: true, refused: null, refused_at: null }] };
        this.command({ type: 'start_task', camera: body.camera, task: t.id, engine, generation: 4 });
        return HttpResponse.json(this.device());
      }),
      http.post(apiUrl('device/7/stop_task/'), async ({ request }) => {
        const body = (await request.json()) as StopTask;
        if (!this.d.tasks.some((x) => x.camera === body.camera)) return fail(400, { camera: ['This camera runs no task.'] });
        this.d = { ...this.d, tasks: this.d.tasks.map((x) => (x.camera === body.camera ? { ...x, running: false } : x)) };
        this.command({ type: 'stop_task', camera: body.camera, task: null, generation: 5 });
        return HttpResponse.json(this.device());
      }),
    ];
  }
}

let fake: FakeDevice;
beforeEach(() => {
  fake = new FakeDevice();
  server.use(devicesFeature(), ...fake.handlers(), ...deviceConfigApi());
});

const region = (name: string) => screen.getByRole('region', { name });
/** The value of a fact (`<dt>name</dt><dd>value</dd>`) as shown. */
const fact = (name: string) => screen.getByText(name, { selector: 'dt' }).nextElementSibling?.textContent;
const startForm = () => screen.getByRole('form', { name: 'Start a task' });

test("a device's page shows its status, cameras, camera tasks and recent commands", async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  renderApp('/user/devices/7');
  expect(await screen.findByRole('heading', { level: 1, name: 'Bench 7' })).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Help: Bench 7' })).toHaveAttribute('href', '/user/user-manual?topic=devices#a-devices-page');
  expect(fact('Serial number')).toBe('SN-7');
  expect(fact('Status')).toBe('Online last seen 02/03/26, 04:05:06');
  expect(fact('Enrolled')).toBe('Enrolled');
  expect(fact('Agent version')).toBe('0.3.1');
  expect(tableRows(within(region('Cameras')).getByRole('table'))).toEqual([
    ['cam0', 'Assemble pump', 'Running', '15.0', 'm-12', '—'],
    ['cam1', '—', 'Idle', '0.0', '—', '—'],
  ]);
  expect(tableRows(within(region('Camera tasks')).getByRole('table', { name: 'Camera tasks' }))).toEqual([
    ['cam0', 'Assemble pump', 'Running', 'Stop'],
  ]);
  expect(tableRows(within(region('Recent commands')).getByRole('table'))).toEqual([
    ['stop_task', 'cam1', '—', '02/03/26, 04:06:00', 'Failed (02/03/26, 04:06:01): no such camera'],
    ['start_task', 'cam0', 'Assemble pump', '02/03/26, 04:05:06', 'OK (02/03/26, 04:06:01)'],
  ]);
  expect(callsTo(rec, 'GET', 'device/7/device_details/')[0]!.headers.get('organization')).toBe('1');
  // An org user operates devices but does not manage their credentials.
  expect(screen.queryByRole('button', { name: 'New enrolment code' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Revoke credentials' })).toBeNull();
});

test("the cloud's notice on a device (the demo agent that could not start) shows on its page with the fix", async () => {
  const NOTICE =
    'The demo agent is not running: ONNX Runtime was not found (ORT_DYLIB_PATH is not set): start the demo with ./scripts/run, or set ORT_DYLIB_PATH to libonnxruntime.so from the onnxruntime wheel';
  fake.d = { ...fake.d, online: false, notice: NOTICE };
  signInAs('org_user', 1);
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  expect(screen.getAllByRole('status').filter((e) => e.textContent === NOTICE)).toHaveLength(1);
});

test('a camera whose source failed shows why, since when and its next try; a warning and a refused start show why', async () => {
  // The device's clock is 10 s behind the cloud's: its times are shown on the cloud's.
  const skew = 10_000;
  const error = 'camera cam1 (rtsp://10.0.0.5/line1): the camera cannot be reached (connection refused)';
  const s = fake.d.status!;
  fake.d = {
    ...fake.d,
    status: {
      ...s,
      ts_ms: SEEN - skew,
      cameras: [
        { ...s.cameras[0]!, warning: 'camera cam0 (file /v/a.mp4): the file ends early, at 4.0 s of the 8.0 s it should last' },
        {
          camera: 'cam1',
          task: 5,
          fps: 0,
          model_version: null,
          state: 'failed',
          generation: 4,
          error,
          since_ms: SEEN - skew - 60_000,
          retry_at_ms: SEEN - skew + 30_000,
        },
      ],
    },
    tasks: [
      ...fake.d.tasks,
      { camera: 'cam1', task: 5, task_name: 'Check valve', running: true, refused: null, refused_at: null },
      { camera: 'cam9', task: 4, task_name: 'Assemble pump', running: true, refused: 'this device has no camera cam9', refused_at: ACKED },
    ],
  };
  signInAs('org_user', 1);
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  expect(tableRows(within(region('Cameras')).getByRole('table'))).toEqual([
    ['cam0', 'Assemble pump', 'Running — camera cam0 (file /v/a.mp4): the file ends early, at 4.0 s of the 8.0 s it should last', '15.0', 'm-12', '—'],
    ['cam1', 'Check valve', `Failed since 02/03/26, 04:04:06: ${error} (next try 02/03/26, 04:05:36)`, '0.0', '—', '—'],
  ]);
  expect(tableRows(within(region('Camera tasks')).getByRole('table', { name: 'Camera tasks' }))).toEqual([
    ['cam0', 'Assemble pump', 'Running', 'Stop'],
    ['cam1', 'Check valve', 'Running', 'Stop'],
    ['cam9', 'Assemble pump', 'Refused (02/03/26, 04:06:01): this device has no camera cam9', 'Stop'],
  ]);
});

test('cycles arriving from the device show in Latest cycles within 5 s: time, steps as a bar, verdict and why', async () => {
  signInAs('org_user', 1);
  fakeClock();
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  expect(within(region('Latest cycles')).getByText('No cycle received yet.')).toBeInTheDocument();

  const at = (s: number) => SEEN + s * 1000;
  fake.d = {
    ...fake.d,
    recent_cycles: [
      {
        id: 'y2', task: 4, device: 7, camera: 'cam0', start_ms: at(20), end_ms: at(28), idle_ms: 1000, good: false,
        reasons: [{ reason: 'missed_step', step: 1 }, { reason: 'too_long' }],
        segments: [{ step: 0, start_ms: at(20), end_ms: at(23) }, { step: 2, start_ms: at(24), end_ms: at(28) }],
      },
      {
        id: 'y1', task: 4, device: 7, camera: 'cam0', start_ms: at(0), end_ms: at(12.4), idle_ms: 0, good: true, reasons: [],
        segments: [
          { step: 0, start_ms: at(0), end_ms: at(4) },
          { step: 1, start_ms: at(4), end_ms: at(8) },
          { step: 2, start_ms: at(8), end_ms: at(12.4) },
        ],
      },
    ],
    task_steps: { 4: ['Fit housing', 'Tighten screws', 'Check seal'] },
  };
  advance(5000);
  const table = await within(region('Latest cycles')).findByRole('table', { name: 'Latest cycles' });
  expect(tableRows(table)).toEqual([
    ['02/03/26, 04:05:34', 'cam0', 'Assemble pump', '8.0 s', '', 'Bad Missed Tighten screws; Too long'],
    ['02/03/26, 04:05:18', 'cam0', 'Assemble pump', '12.4 s', '', 'Good'],
  ]);
  const bars = within(table).getAllByRole('img');
  expect(bars.map((b) => b.getAttribute('aria-label'))).toEqual([
    'Fit housing 3.0 s, Check seal 4.0 s',
    'Fit housing 4.0 s, Tighten screws 4.0 s, Check seal 4.4 s',
  ]);
  // The second step of the bad cycle starts at 4 s of 8: half way along its bar.
  const second = bars[0]!.children[1] as HTMLElement;
  expect([second.style.left, second.style.width]).toEqual(['50%', '50%']);
  expect(within(region('Latest cycles')).getByRole('list', { name: 'Steps of Assemble pump' })).toHaveTextContent(
    'Fit housing Tighten screws Check seal',
  );
});

test('the page asks again every 5 s: a device coming online shows without a reload', async () => {
  signInAs('org_user', 1);
  fakeClock();
  fake.d = { ...fake.d, online: false, last_seen: null, status: null };
  const rec = recordCalls();
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  expect(fact('Status')).toBe('Offline never seen');
  expect(screen.getByText('The device has reported no cameras.')).toBeInTheDocument();
  const asked = () => callsTo(rec, 'GET', 'device/7/device_details/').length;
  expect(asked()).toBe(1);

  fake.d = { ...fake.d, online: true, last_seen: SEEN };
  advance(4000);
  expect(asked()).toBe(1);
  advance(1000);
  await waitFor(() => expect(fact('Status')).toBe('Online last seen 02/03/26, 04:05:06'));
  expect(asked()).toBe(2);
});

test('starting a task: checked, the 400 camera message next to its field, then started with the body sent', async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  const camera = within(startForm()).getByLabelText('Camera');
  expect(camera).toHaveValue('cam0');

  // No task chosen: nothing is sent.
  await user.click(within(startForm()).getByRole('button', { name: 'Start' }));
  expect(within(startForm()).getByText('Task is required!')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'device/7/start_task/')).toEqual([]);

  await waitFor(() => expect(within(startForm()).getByRole('option', { name: 'Check valve' })).toBeInTheDocument());
  await user.selectOptions(within(startForm()).getByLabelText('Task'), 'Check valve');
  await user.clear(camera);
  await user.type(camera, 'cam 1');
  await user.click(within(startForm()).getByRole('button', { name: 'Start' }));
  const message = await within(startForm()).findByText("A camera name is 1 to 100 letters, digits, '-', '_' or '.'.");
  expect(camera).toHaveAccessibleDescription(message.textContent);

  await user.clear(camera);
  await user.type(camera, 'cam1');
  await user.click(within(startForm()).getByRole('button', { name: 'Start' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() =>
    expect(tableRows(within(region('Camera tasks')).getByRole('table', { name: 'Camera tasks' }))).toEqual([
      ['cam0', 'Assemble pump', 'Running', 'Stop'],
      ['cam1', 'Check valve', 'Running', 'Stop'],
    ]),
  );
  await waitFor(() =>
    expect(tableRows(within(region('Recent commands')).getByRole('table'))[0]).toEqual([
      'start_task', 'cam1', 'Check valve', '02/03/26, 04:06:00', 'Waiting',
    ]),
  );
  expect(callsTo(rec, 'POST', 'device/7/start_task/').map((c) => c.body)).toEqual([
    { camera: 'cam 1', task: 5 },
    { camera: 'cam1', task: 5 },
  ]);
});

test('stopping a task; a refusal shows the server message', async () => {
  signInAs('doc_user', 1);
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/devices/7');
  const tasks = await screen.findByRole('table', { name: 'Camera tasks' });

  // The server's 400 (another user stopped it meanwhile) shows as a toast.
  server.use(http.post(apiUrl('device/7/stop_task/'), () => fail(400, { camera: ['This camera runs no task.'] }), { once: true }));
  await user.click(within(tasks).getByRole('button', { name: 'Stop cam0' }));
  expect(await screen.findByText('This camera runs no task.')).toBeInTheDocument();

  await user.click(within(tasks).getByRole('button', { name: 'Stop cam0' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(tasks)).toEqual([['cam0', 'Assemble pump', 'Stopped', '']]));
  expect(callsTo(rec, 'POST', 'device/7/stop_task/').map((c) => c.body)).toEqual([{ camera: 'cam0' }, { camera: 'cam0' }]);
  await waitFor(() =>
    expect(tableRows(within(region('Recent commands')).getByRole('table'))[0]).toEqual([
      'stop_task', 'cam0', '—', '02/03/26, 04:06:00', 'Waiting',
    ]),
  );
});

test('managers get a new enrolment code and revoke the credentials after confirming', async () => {
  signInAs('org_admin', 1);
  const COMMAND = 'gemba-agent enroll --cloud http://localhost --code QRST-UVWX-YZ23';
  server.use(
    http.post(apiUrl('device/7/enrolment_code/'), () =>
      HttpResponse.json({ device: fake.d, code: 'QRST-UVWX-YZ23', expires_at: SEEN, command: COMMAND }),
    ),
    http.post(apiUrl('device/7/revoke/'), () => {
      fake.d = { ...fake.d, enrolled: false };
      return HttpResponse.json(fake.d);
    }),
  );
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });

  await user.click(screen.getByRole('button', { name: 'New enrolment code' }));
  const shown = await screen.findByRole('region', { name: 'Enrolment code for Bench 7' });
  expect(within(shown).getByText('QRST-UVWX-YZ23')).toBeInTheDocument();
  expect(within(shown).getByText(COMMAND)).toBeInTheDocument();

  await user.click(screen.getByRole('button', { name: 'Revoke credentials' }));
  const dialog = screen.getByRole('dialog', { name: 'Revoke credentials' });
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(callsTo(rec, 'POST', 'device/7/revoke/')).toEqual([]);
  await user.click(screen.getByRole('button', { name: 'Revoke credentials' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Revoke credentials' })).getByRole('button', { name: 'Revoke' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(fact('Enrolled')).toBe('Not enrolled'));
  expect(screen.getByRole('button', { name: 'Revoke credentials' })).toBeDisabled();
  expect(callsTo(rec, 'POST', 'device/7/revoke/')).toHaveLength(1);
});

test('an unknown device shows the not-found state', async () => {
  signInAs('org_user', 1);
  renderApp('/user/devices/8');
  expect(await screen.findByText('Device not found.')).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'See the devices' })).toHaveAttribute('href', '/user/devices');
});

test("the update channel shows on a device's page; an org admin changes it, an org user only reads it", async () => {
  const sent: unknown[] = [];
  server.use(
    http.patch(apiUrl('device/7/update_channel/'), async ({ request }) => {
      const body = (await request.json()) as { update_channel: string };
      sent.push(body);
      fake.d = { ...fake.d, update_channel: body.update_channel };
      const { commands, recent_cycles, task_steps, notice, camera_events, ...d } = fake.d;
      void [commands, recent_cycles, task_steps, notice, camera_events];
      return HttpResponse.json(d);
    }),
  );
  signInAs('org_user', 1);
  const first = renderApp('/user/devices/7');
  expect(await screen.findByRole('heading', { level: 1, name: 'Bench 7' })).toBeInTheDocument();
  expect(fact('Update channel')).toBe('prod');
  expect(screen.queryByRole('combobox', { name: 'Update channel' })).toBeNull();
  first.unmount();

  signInAs('org_admin', 1);
  const user = userEvent.setup();
  renderApp('/user/devices/7');
  const select = await screen.findByRole('combobox', { name: 'Update channel' });
  expect(select).toHaveValue('prod');
  await user.selectOptions(select, 'dev');
  await waitFor(() => expect(sent).toEqual([{ update_channel: 'dev' }]));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(screen.getByRole('combobox', { name: 'Update channel' })).toHaveValue('dev'));
});
