/**
 * The schedule editor against the real server: a device enrolled with its code reports
 * its camera cam0 (a signed status over MQTT, as its agent would); an org user of the
 * organisation (subscribed to 'Devices') opens the device's page, adds a weekly
 * schedule of a task on cam0, is refused a missing time range before anything is sent
 * and an overlapping schedule by the server with its message, and deletes the schedule.
 * A picture of the week goes to the test's output folder.
 */
import { expect, test } from '@playwright/test';

import type { DeviceSchedule } from '../src/api/generated';
import { addDevice, adminGet, createOrganization, createTask, createUser, enrolDevice, origin, sayStatus, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'schedules-1';

test('a schedule is added to a camera, an overlap is refused with its message, and it is deleted', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Shifts ${run}`);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  const code = await addDevice(org.id, 'Bench');
  const credentials = await enrolDevice(code.code);
  await sayStatus(credentials, true, ['cam0']);
  const email = `schedules-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/devices/${credentials.device}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Bench' })).toBeVisible();

  const part = page.getByRole('region', { name: 'Schedules' });
  await expect(part).toContainText("Times are in the organisation's time zone: UTC.");
  await expect(part.getByText("No schedules: the device's cameras run only what is started on them.")).toBeVisible();

  // Monday and Tuesday, 06:00 to 14:00.
  await part.getByRole('button', { name: 'Add a schedule' }).click();
  let form = page.getByRole('dialog', { name: 'Add a schedule' });
  await expect(form.getByLabel('Camera')).toHaveValue('cam0');
  await form.getByLabel('Task').selectOption({ label: 'Assemble pump' });
  await form.getByLabel('Monday').check();
  await form.getByLabel('Tuesday').check();
  // No time range yet: the spec's message, nothing sent.
  await form.getByRole('button', { name: 'Add' }).click();
  await expect(form.getByText('Schedule time is not properly selected!')).toBeVisible();
  await form.getByLabel('Start').selectOption('06:00');
  await form.getByLabel('End').selectOption('14:00');
  await form.getByRole('button', { name: 'Add' }).click();
  await expect(page.getByText('Data created successfully!')).toBeVisible();
  const list = part.getByRole('table', { name: 'Schedules' });
  await expect(list.getByRole('row').nth(1)).toHaveText(/^cam0\s*Assemble pump\s*Mon, Tue\s*06:00–14:00/);
  await expect(part.getByRole('group', { name: 'Tuesday' }).getByRole('button', { name: 'cam0: Assemble pump, 06:00–14:00' })).toBeVisible();
  await part.screenshot({ path: test.info().outputPath('schedules-week.png') });
  const kept = await adminGet<DeviceSchedule[]>(org.id, `device/get_schedules?device=${credentials.device}`);
  expect(kept.map((s) => [s.camera, s.task, s.days, s.start, s.end, s.time_zone])).toEqual([['cam0', task.id, [0, 1], '06:00', '14:00', 'UTC']]);

  // Tuesday 13:00 to 15:00 on the same camera overlaps: the server says so, nothing is saved.
  await part.getByRole('button', { name: 'Add a schedule' }).click();
  form = page.getByRole('dialog', { name: 'Add a schedule' });
  await form.getByLabel('Task').selectOption({ label: 'Assemble pump' });
  await form.getByLabel('Tuesday').check();
  await form.getByLabel('Start').selectOption('13:00');
  await form.getByLabel('End').selectOption('15:00');
  await form.getByRole('button', { name: 'Add' }).click();
  const overlap = 'This schedule overlaps another of camera cam0 (Mon, Tue 06:00–14:00).';
  await expect(form.getByRole('group', { name: 'Weekdays' }).getByText(overlap)).toBeVisible();
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(list.getByRole('row')).toHaveCount(2);
  expect(await adminGet<DeviceSchedule[]>(org.id, `device/get_schedules?device=${credentials.device}`)).toHaveLength(1);

  // Deleted, after a confirmation.
  await list.getByRole('button', { name: 'Delete cam0 Mon, Tue 06:00–14:00' }).click();
  await page.getByRole('dialog', { name: 'Delete the schedule?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Data deleted successfully!')).toBeVisible();
  await expect(part.getByText("No schedules: the device's cameras run only what is started on them.")).toBeVisible();
  expect(await adminGet<DeviceSchedule[]>(org.id, `device/get_schedules?device=${credentials.device}`)).toEqual([]);
});
