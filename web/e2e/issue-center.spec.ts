/**
 * The issue center against the real server: a device sent bad cycles (a missed step)
 * today; an engineer sees them grouped as one issue with a chart, opens its cycles,
 * and marks them reviewed with a note; the issue then has none open.
 */
import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createTask, createUser, enrolDevice, midnightOf, openFromMenu, sendCycle, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'issue-center-pass-1';

test('bad cycles are grouped by reason, listed, and reviewed', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Issue Works ${run}`);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  const device = await enrolDevice((await addDevice(org.id, 'Bench 9')).code);
  const now = Date.now();
  const midnight = midnightOf(now);
  const base = Math.max(midnight + 60 * 60_000, now - 20 * 60_000);
  for (const [i, good] of [false, true, false, false].entries()) {
    await sendCycle(device, task.id, { start_ms: base + i * 120_000, end_ms: base + i * 120_000 + 40_000, good });
  }
  const email = `engineer-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await openFromMenu(page, 'Issue Center');

  const issues = page.getByRole('table', { name: 'Issues' });
  const row = issues.getByRole('row', { name: /Missed Check seal/ });
  await expect(row).toContainText('Assemble pump');
  await expect(row.getByRole('cell').nth(2)).toHaveText('3');
  await expect(row.getByRole('cell').nth(3)).toHaveText('3');
  await expect(page.getByRole('figure', { name: 'Bad cycles by issue over time' }).locator('.recharts-bar-rectangle path').first()).toBeVisible();

  // Its cycles: the three bad ones.
  await row.getByRole('button', { name: /^Cycles of / }).click();
  const cycles = page.getByRole('region', { name: 'Cycles of Missed Check seal' });
  await expect(cycles.getByRole('table').getByRole('row')).toHaveCount(4);
  await expect(cycles.getByRole('table')).not.toContainText('Good');

  // Reviewed, with a note: none open.
  await row.getByRole('button', { name: /^Mark reviewed: / }).click();
  const dialog = page.getByRole('dialog', { name: 'Mark Missed Check seal reviewed' });
  await dialog.getByLabel('Note (optional)').fill('Seal tool replaced');
  await dialog.getByRole('button', { name: 'Mark reviewed' }).click();
  await expect(page.getByText('3 cycles marked reviewed.')).toBeVisible();
  await expect(row.getByRole('cell').nth(3)).toHaveText('0');
  await expect(row.getByRole('button', { name: /^Mark reviewed: / })).toHaveCount(0);

  // A cycle's history names the review.
  await cycles.getByRole('button', { name: /^Change the cycle ended/ }).first().click();
  await expect(page.getByRole('dialog').getByRole('list', { name: 'History' })).toContainText(`by ${email}: Seal tool replaced`);
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

  // The second newest's trace: the station, the missed step, its steps in time, the
  // review; the station's cycle before it was the good one.
  await cycles.getByRole('link', { name: /^Trace of the cycle ended/ }).nth(1).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Cycle Trace' })).toBeVisible();
  await expect(page.getByText('Assemble pump', { exact: true })).toBeVisible();
  await expect(page.locator('.cycle-title')).toContainText('on Bench 9');
  await expect(page.locator('.cycle-title')).toContainText('Missed Check seal');
  await expect(page.getByRole('table', { name: 'Step times' }).getByRole('row')).toHaveCount(2);
  await expect(page.getByRole('list', { name: 'History' })).toContainText('Seal tool replaced');
  await page.getByRole('link', { name: '← Previous cycle' }).click();
  await expect(page.locator('.cycle-title')).toContainText('Good');
});
