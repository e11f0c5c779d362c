/**
 * Lines against the real server: an engineer defines a line of two stations on Line;
 * Line Analytics shows the slower station as the bottleneck against the takt time; a
 * cycle of the first station opened "In line" from Analytics shows the part's cycle at
 * the second station.
 */
import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createTask, createUser, enrolDevice, midnightOf, openFromMenu, sendCycle, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'lines-pass-1';

test('a line is defined, its bottleneck found, and a part followed along it', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Line Works ${run}`);
  await subscribe(org.id, 'Devices');
  const press = await createTask(org.id, 'Press body\nLoad:\nPlace blank;\nPress:\nCycle press;\n');
  const paint = await createTask(org.id, 'Paint body\nMask:\nTape edges;\nSpray:\nSpray coat;\n');
  const d1 = await enrolDevice((await addDevice(org.id, 'Press 1')).code);
  const d2 = await enrolDevice((await addDevice(org.id, 'Booth 2')).code);
  const now = Date.now();
  const midnight = midnightOf(now);
  const base = Math.max(midnight + 60 * 60_000, now - 30 * 60_000);
  // Three parts: 30 s at the press, then 50 s in the booth once the press is done.
  for (let i = 0; i < 3; i++) {
    const t = base + i * 60_000;
    await sendCycle(d1, press.id, { start_ms: t, end_ms: t + 30_000, good: true });
    await sendCycle(d2, paint.id, { start_ms: t + 31_000, end_ms: t + 81_000, good: true });
  }
  const email = `lines-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();

  // Define the line.
  await openFromMenu(page, 'Line');
  await page.getByRole('button', { name: 'Create Line' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create Line' });
  await dialog.getByLabel('Line name').fill('Body line');
  await dialog.getByLabel('Takt time (s)').fill('45');
  await dialog.getByRole('button', { name: 'Add station' }).click();
  await dialog.getByRole('button', { name: 'Add station' }).click();
  await dialog.getByLabel('Station 1 operation').selectOption({ label: 'Press body' });
  await dialog.getByLabel('Station 1 device').selectOption({ label: 'Press 1' });
  await dialog.getByLabel('Station 2 operation').selectOption({ label: 'Paint body' });
  await dialog.getByLabel('Station 2 device').selectOption({ label: 'Booth 2' });
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Data created successfully!')).toBeVisible();
  const row = page.getByRole('table', { name: 'Lines' }).getByRole('row', { name: /Body line/ });
  await expect(row).toContainText('Press body on Press 1');

  // Its analytics: the booth is the bottleneck, over the takt time.
  await row.getByRole('link', { name: 'Body line' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Line Analytics' })).toBeVisible();
  await expect(page.getByRole('definition').filter({ hasText: 'Paint body on Booth 2 (50.0 s)' })).toBeVisible();
  // 3600 s / 50 s.
  await expect(page.getByRole('definition').filter({ hasText: /^72\.0$/ })).toBeVisible();
  const stations = page.getByRole('table', { name: 'Stations' });
  await expect(stations.getByRole('row', { name: /Booth 2/ })).toContainText('bottleneck');
  await expect(stations.getByRole('row', { name: /Booth 2/ })).toContainText('11% over target');
  await expect(page.getByRole('figure', { name: 'Station cycle times against takt time' }).locator('.recharts-bar-rectangle path')).toHaveCount(2);

  // A press cycle, in line: the same part in the booth.
  await openFromMenu(page, 'Analytics');
  await page.getByRole('combobox', { name: 'Operation' }).selectOption({ label: 'Press body' });
  await page.getByRole('figure', { name: 'Good and bad cycles over time' }).locator('.recharts-bar-rectangle path').last().click();
  const drill = page.getByRole('region', { name: /^Cycles of / });
  await drill.getByRole('link', { name: /^In line: the cycle ended/ }).last().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Line Visibility' })).toBeVisible();
  const boxes = page.getByRole('list', { name: 'Stations of Body line' }).getByRole('listitem');
  await expect(boxes.nth(0)).toContainText('(this cycle)');
  await expect(boxes.nth(1)).toContainText('Paint body on Booth 2');
  await expect(boxes.nth(1)).toContainText('50.0 s');
});
