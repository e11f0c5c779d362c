import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { DeviceSchedule, ScheduleCreate, SchedulePatch } from '@/api/generated';
import { DATA_CREATED, DATA_DELETED, DATA_UPDATED, SCHEDULE_TIME_MESSAGE } from '@/config/messages';
import { callsTo, fail, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, details, device, deviceConfigApi, devicesFeature, task } from './fixtures';
import { NO_DAY_MESSAGE, SHORT_DAYS, timeRange } from './schedules';

const TASKS = [task(4, 'Assemble pump'), task(5, 'Check valve')];
const BENCH = details(
  device(7, 'Bench 7', {
    online: true,
    last_seen: SEEN,
    status: {
      v: 1,
      online: true,
      ts_ms: SEEN,
      agent_version: '0.4.0',
      cameras: [
        { camera: 'cam0', task: null, fps: 0, model_version: null, state: 'idle', generation: 0 },
        { camera: 'cam1', task: null, fps: 0, model_version: null, state: 'idle', generation: 0 },
      ],
      outbox: 0,
      disk_free_mb: null,
      temperature_c: null,
    },
  }),
);

/** The device's schedules as the server keeps them, refusing overlaps on a camera as it does. */
class FakeSchedules {
  rows: DeviceSchedule[] = [this.make(1, 'cam0', 4, [0, 1, 2], '06:00', '14:00'), this.make(2, 'gate', 5, [0], '08:00', '10:00')];
  private next = 3;

  make(id: number, camera: string, taskId: number, days: number[], start: string, end: string): DeviceSchedule {
    const task_name = TASKS.find((t) => t.id === taskId)?.taskName ?? '';
    return { id, device: 7, camera, task: taskId, task_name, days, start, end, time_zone: 'Europe/Berlin', created_at: SEEN, updated_at: SEEN };
  }

  private clash(s: DeviceSchedule): Response | null {
    const [a, b] = timeRange(s.start, s.end)!;
    const other = this.rows.find((o) => {
      const [c, d] = timeRange(o.start, o.end)!;
      return o.id !== s.id && o.camera === s.camera && o.days.some((x) => s.days.includes(x)) && a < d && c < b;
    });
    if (!other) return null;
    const said = `${other.days.map((d) => SHORT_DAYS[d]).join(', ')} ${other.start}–${other.end}`;
    return fail(400, { days: [`This schedule overlaps another of camera ${s.camera} (${said}).`] });
  }

  handlers() {
    return [
      http.get(apiUrl('device/get_schedules'), () => HttpResponse.json(this.rows)),
      http.get(apiUrl('device/7/device_details/'), () => HttpResponse.json(BENCH)),
      http.get(apiUrl('organization/task/'), () => HttpResponse.json(TASKS)),
      http.get(apiUrl('device/remote_cam/7/'), () =>
        HttpResponse.json([
          {
            id: 1,
            device: { id: 7, display_name: 'Bench 7', Serial_number: 'SN-7', Type: 'workstation', online: true },
            name: 'gate',
            url: 'rtsp://10.0.0.5/s',
            username: '',
            has_password: false,
            created_at: SEEN,
            updated_at: SEEN,
          },
        ]),
      ),
      http.post(apiUrl('device/add_schedules'), async ({ request }) => {
        const b = (await request.json()) as ScheduleCreate;
        const s = this.make(this.next, b.camera, b.task, b.days, b.start ?? '', b.end ?? '');
        const refused = this.clash(s);
        if (refused) return refused;
        this.next += 1;
        this.rows = [...this.rows, s];
        return HttpResponse.json(s, { status: 201 });
      }),
      http.patch(apiUrl('device/schedules/:id'), async ({ params, request }) => {
        const b = (await request.json()) as SchedulePatch;
        const old = this.rows.find((r) => r.id === Number(params.id))!;
        const s = this.make(old.id, b.camera ?? old.camera, b.task ?? old.task, b.days ?? old.days, b.start ?? old.start, b.end ?? old.end);
        const refused = this.clash(s);
        if (refused) return refused;
        this.rows = this.rows.map((r) => (r.id === s.id ? s : r));
        return HttpResponse.json(s);
      }),
      http.delete(apiUrl('device/schedules/:id'), ({ params }) => {
        this.rows = this.rows.filter((r) => r.id !== Number(params.id));
        return HttpResponse.json({ msg: DATA_DELETED });
      }),
    ];
  }
}

let fake: FakeSchedules;
beforeEach(() => {
  fake = new FakeSchedules();
  server.use(devicesFeature(), ...fake.handlers(), ...deviceConfigApi());
});

const part = () => screen.getByRole('region', { name: 'Schedules' });
const day = (name: string) => within(part()).getByRole('group', { name });
const list = () => within(part()).getByRole('table', { name: 'Schedules' });

async function open() {
  const user = userEvent.setup();
  renderApp('/user/devices/7');
  await screen.findByRole('heading', { level: 1, name: 'Bench 7' });
  await within(part()).findByRole('table', { name: 'Schedules' });
  return user;
}

test("a device's week shows its schedules on their days and hours, in the organisation's time zone", async () => {
  signInAs('org_user', 1);
  await open();
  expect(part()).toHaveTextContent("Times are in the organisation's time zone: Europe/Berlin.");
  expect(tableRows(list())).toEqual([
    ['cam0', 'Assemble pump', 'Mon, Tue, Wed', '06:00–14:00', 'EditDelete'],
    ['gate', 'Check valve', 'Mon', '08:00–10:00', 'EditDelete'],
  ]);
  const monday = within(day('Monday')).getAllByRole('button');
  expect(monday.map((b) => b.getAttribute('aria-label'))).toEqual(['cam0: Assemble pump, 06:00–14:00', 'gate: Check valve, 08:00–10:00']);
  // Hours down: 06:00 is a quarter of the day; the two share the width.
  expect(monday[0]).toHaveStyle({ top: '25%', left: '0%', width: '50%' });
  expect(monday[1]).toHaveStyle({ left: '50%', width: '50%' });
  expect(within(day('Wednesday')).getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual(['cam0: Assemble pump, 06:00–14:00']);
  expect(within(day('Wednesday')).getByRole('button')).toHaveStyle({ top: '25%', width: '100%' });
  expect(within(day('Sunday')).queryAllByRole('button')).toEqual([]);
});

test('a schedule is added: missing fields and a missing time range are refused before sending', async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const user = await open();
  await user.click(within(part()).getByRole('button', { name: 'Add a schedule' }));
  const dialog = screen.getByRole('dialog', { name: 'Add a schedule' });
  expect(dialog).toHaveTextContent("Times are in the organisation's time zone, Europe/Berlin.");
  const camera = within(dialog).getByLabelText<HTMLSelectElement>('Camera');
  expect(camera).toHaveValue('cam0');
  expect([...camera.options].map((o) => o.value)).toEqual(['', 'cam0', 'cam1', 'gate']);

  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(within(dialog).getByText('Task is required!')).toBeInTheDocument();
  expect(within(dialog).getByText(NO_DAY_MESSAGE)).toBeInTheDocument();
  expect(within(dialog).getByText(SCHEDULE_TIME_MESSAGE)).toBeInTheDocument();

  await user.selectOptions(within(dialog).getByLabelText('Task'), 'Check valve');
  await user.click(within(dialog).getByLabelText('Thursday'));
  await user.click(within(dialog).getByLabelText('Friday'));
  await user.selectOptions(within(dialog).getByLabelText('Start'), '14:00');
  await user.selectOptions(within(dialog).getByLabelText('End'), '06:00');
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(within(dialog).getByText(SCHEDULE_TIME_MESSAGE)).toBeInTheDocument();
  expect(within(dialog).queryByText(NO_DAY_MESSAGE)).toBeNull();
  expect(callsTo(rec, 'POST', 'device/add_schedules')).toHaveLength(0);

  await user.selectOptions(within(dialog).getByLabelText('End'), '24:00');
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(await screen.findByText(DATA_CREATED)).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'device/add_schedules').map((c) => c.body)).toEqual([
    { device: 7, camera: 'cam0', task: 5, days: [3, 4], start: '14:00', end: '24:00' },
  ]);
  await waitFor(() => expect(tableRows(list())[2]).toEqual(['cam0', 'Check valve', 'Thu, Fri', '14:00–24:00', 'EditDelete']));
  expect(within(day('Friday')).getByRole('button', { name: 'cam0: Check valve, 14:00–24:00' })).toHaveStyle({ top: '58.333333333333336%' });
});

test("an overlap is refused by the server with its message next to the weekdays; nothing is saved", async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const user = await open();
  await user.click(within(part()).getByRole('button', { name: 'Add a schedule' }));
  const dialog = screen.getByRole('dialog', { name: 'Add a schedule' });
  await user.selectOptions(within(dialog).getByLabelText('Task'), 'Assemble pump');
  await user.click(within(dialog).getByLabelText('Wednesday'));
  await user.selectOptions(within(dialog).getByLabelText('Start'), '13:00');
  await user.selectOptions(within(dialog).getByLabelText('End'), '15:00');
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));

  const message = 'This schedule overlaps another of camera cam0 (Mon, Tue, Wed 06:00–14:00).';
  const group = within(dialog).getByRole('group', { name: 'Weekdays' });
  expect(await within(group).findByText(message)).toBeInTheDocument();
  expect(group).toHaveAccessibleDescription(message);
  expect(await screen.findAllByText(message)).toHaveLength(2); // and the toast
  expect(callsTo(rec, 'POST', 'device/add_schedules')).toHaveLength(1);
  expect(fake.rows.map((r) => r.id)).toEqual([1, 2]);
  expect(tableRows(list())).toHaveLength(2);

  // Touching ends do not overlap.
  await user.selectOptions(within(dialog).getByLabelText('Start'), '14:00');
  expect(within(group).queryByText(message)).toBeNull();
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(await screen.findByText(DATA_CREATED)).toBeInTheDocument();
  await waitFor(() => expect(tableRows(list())).toHaveLength(3));
});

test('a schedule opened from its block is changed with only what changed', async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const user = await open();
  await user.click(within(day('Wednesday')).getByRole('button', { name: 'cam0: Assemble pump, 06:00–14:00' }));
  const dialog = screen.getByRole('dialog', { name: 'Edit schedule' });
  expect(within(dialog).getByLabelText('Camera')).toHaveValue('cam0');
  expect(within(dialog).getByLabelText('Task')).toHaveValue('4');
  expect(within(dialog).getByLabelText('Wednesday')).toBeChecked();
  expect(within(dialog).getByLabelText('Start')).toHaveValue('06:00');
  expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();

  await user.click(within(dialog).getByLabelText('Wednesday'));
  await user.selectOptions(within(dialog).getByLabelText('End'), '12:00');
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(await screen.findByText(DATA_UPDATED)).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'device/schedules/1').map((c) => c.body)).toEqual([{ days: [0, 1], end: '12:00' }]);
  await waitFor(() => expect(tableRows(list())[0]).toEqual(['cam0', 'Assemble pump', 'Mon, Tue', '06:00–12:00', 'EditDelete']));
  expect(within(day('Wednesday')).queryAllByRole('button')).toEqual([]);
});

test('a schedule is deleted after a confirmation', async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const user = await open();
  await user.click(within(list()).getByRole('button', { name: 'Delete gate Mon 08:00–10:00' }));
  const confirm = screen.getByRole('dialog', { name: 'Delete the schedule?' });
  expect(confirm).toHaveTextContent('gate stops running Check valve on Mon from 08:00 to 10:00.');
  await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
  expect(callsTo(rec, 'DELETE', 'device/schedules/2')).toHaveLength(0);

  await user.click(within(list()).getByRole('button', { name: 'Delete gate Mon 08:00–10:00' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete the schedule?' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText(DATA_DELETED)).toBeInTheDocument();
  await waitFor(() => expect(tableRows(list()).map((r) => r[0])).toEqual(['cam0']));
  expect(within(day('Monday')).getAllByRole('button')).toHaveLength(1);
});

test('without schedules the week is empty and says so', async () => {
  signInAs('org_user', 1);
  fake.rows = [];
  renderApp('/user/devices/7');
  expect(await within(await screen.findByRole('region', { name: 'Schedules' })).findByText("No schedules: the device's cameras run only what is started on them.")).toBeInTheDocument();
  expect(within(part()).getByRole('group', { name: 'Week' })).toBeInTheDocument();
});
