/**
 * People's changes to cycles against the real server: an engineer opens a cycle behind
 * a bar of Analytics, marks a good one bad with a reason and archives another; the
 * figures follow at once. A super admin (one of this spec's own: the seeded one's e-mail
 * codes, five in ten minutes, are `admin.spec.ts`'s and the run's set-up) finds the
 * archived cycle on Archived Cycles (with who archived it and why) and restores it; the
 * engineer's figures count it again.
 */
import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createTask, createUser, enrolDevice, midnightOf, openFromMenu, sendCycle, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'cycle-changes-pass-1';

test('a cycle marked bad and one archived change the figures; the super admin restores it', async ({ browser }) => {
  const run = uniqueName();
  const orgName = `Quality Works ${run}`;
  const org = await createOrganization(orgName);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble valve\nFit body:\nPlace body;\nCheck seal:\nInspect seal;\n');
  const device = await enrolDevice((await addDevice(org.id, 'Bench 5')).code);
  // Today: four good cycles, at least an hour after midnight (or yesterday's end).
  const now = Date.now();
  const midnight = midnightOf(now);
  const base = Math.max(midnight + 60 * 60_000, now - 20 * 60_000);
  for (const [i, s] of [40, 42, 44, 46].entries()) {
    await sendCycle(device, task.id, { start_ms: base + i * 120_000, end_ms: base + i * 120_000 + s * 1000, good: true });
  }
  const email = `engineer-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  const superAdmin = `cycles-admin-${run}@gemba.test`;
  await createUser(superAdmin, PASSWORD, 'admin', null);

  const engContext = await browser.newContext();
  const page = await engContext.newPage();
  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await openFromMenu(page, 'Analytics');
  await expect(page.getByText('100% (4 good, 0 bad)')).toBeVisible();

  // Today's bar opens its cycles; the first is marked bad, with a reason.
  const bars = page.getByRole('figure', { name: 'Good and bad cycles over time' }).locator('.recharts-bar-rectangle path');
  await bars.last().click();
  const drill = page.getByRole('region', { name: /^Cycles of / });
  await expect(drill.getByRole('table').getByRole('row')).toHaveCount(5);
  await drill.getByRole('button', { name: /^Change the cycle ended/ }).first().click();
  let dialog = page.getByRole('dialog');
  await expect(dialog.getByText('No one has changed this cycle.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Mark bad' }).click();
  await expect(dialog.getByText('Say why, in 1 to 500 characters.')).toBeVisible();
  await dialog.getByLabel('Reason').fill('The seal was not checked');
  await dialog.getByRole('button', { name: 'Mark bad' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('75% (3 good, 1 bad)')).toBeVisible();
  await expect(drill.getByRole('table')).toContainText('Bad');

  // Its history names who marked it and why.
  await drill.getByRole('button', { name: /^Change the cycle ended/ }).first().click();
  dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('list', { name: 'History' })).toContainText(`Marked bad`);
  await expect(dialog.getByRole('list', { name: 'History' })).toContainText(`by ${email}: The seal was not checked`);
  // Archived: out of the figures.
  await dialog.getByLabel('Reason').fill('A trial run');
  await dialog.getByRole('button', { name: 'Archive' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('100% (3 good, 0 bad)')).toBeVisible();
  await expect(drill.getByRole('table').getByRole('row')).toHaveCount(4);

  // The super admin restores it from Archived Cycles.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await uiLogin(admin, superAdmin, PASSWORD, 'admin.localhost');
  await openFromMenu(admin, 'Archived Cycles');
  await admin.getByLabel('Organization').selectOption({ label: orgName });
  const row = admin.getByRole('table', { name: 'Archived cycles' }).getByRole('row', { name: /Assemble valve/ });
  await expect(row).toContainText('Bench 5');
  await expect(row).toContainText('A trial run');
  await expect(row).toContainText(`by ${email}`);
  await row.getByRole('button', { name: /^Restore / }).click();
  await expect(admin.getByText('Data updated successfully!')).toBeVisible();
  await expect(admin.getByText('No archived cycles.')).toBeVisible();

  // Counted again, as marked.
  await page.reload();
  await expect(page.getByText('75% (3 good, 1 bad)')).toBeVisible();
  await adminContext.close();
  await engContext.close();
});
