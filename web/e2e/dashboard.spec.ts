/**
 * The dashboard (`/user/home`) against the real server: an org user of an organisation
 * with an enrolled device opens Home before any cycle (zeros, "No cycles this week
 * yet."); the device sends cycles over MQTT as its agent does, and the dashboard shows
 * them without a reload (the device stream's `cycles` event): today's and this week's
 * count, the good share, the average against the operation's target cycle time, and the
 * station's row.
 */
import { expect, test } from '@playwright/test';

import {
  addDevice,
  clearOfMidnight,
  createOrganization,
  createTask,
  createUser,
  enrolDevice,
  patchTask,
  sayStatus,
  sendCycle,
  subscribe,
  uiLogin,
  uniqueName,
} from './env';

const PASSWORD = 'dashboard-pass-1';

test('the dashboard shows cycles as they arrive', async ({ page }) => {
  // Today's cycles, on the day the screen shows as today.
  await clearOfMidnight();
  const run = uniqueName();
  const org = await createOrganization(`Dash Works ${run}`);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  // A target of 40 s.
  await patchTask(org.id, task.id, { stepsAvgTime: { cycle_time: 40 } });
  const device = await enrolDevice((await addDevice(org.id, 'Bench 7')).code);
  await sayStatus(device, true);
  const email = `dashboard-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live');
  const todayCard = page.getByRole('article', { name: 'Today' });
  await expect(todayCard.getByTestId('Today-cycles')).toHaveText('0');
  await expect(page.getByText('No cycles this week yet.')).toBeVisible();

  // A good cycle of 44 s: 10% over the target.
  const now = Date.now();
  await sendCycle(device, task.id, { start_ms: now - 90_000, end_ms: now - 46_000, good: true });
  await expect(todayCard.getByTestId('Today-cycles')).toHaveText('1');
  await expect(todayCard).toContainText('100% (1 good, 0 bad)');
  await expect(todayCard).toContainText('44.0 s 10% over target (40.0 s)');
  const row = page.getByRole('table', { name: 'Stations' }).getByRole('row', { name: /Bench 7/ });
  await expect(row).toContainText('Assemble pump');
  await expect(row.getByRole('cell').nth(2)).toHaveText('1');

  // A bad one of 30 s: two cycles, half good, 37 s on average, under the target.
  await sendCycle(device, task.id, { start_ms: now - 40_000, end_ms: now - 10_000, good: false });
  await expect(todayCard.getByTestId('Today-cycles')).toHaveText('2');
  await expect(todayCard).toContainText('50% (1 good, 1 bad)');
  await expect(todayCard).toContainText('37.0 s at or under target');
  const week = page.getByRole('article', { name: 'This week' });
  await expect(week.getByTestId('This week-cycles')).toHaveText('2');
  await expect(row.getByRole('cell').nth(3)).toHaveText('2');
  await expect(page.getByRole('figure', { name: 'Cycles today by hour' })).toBeVisible();
});
