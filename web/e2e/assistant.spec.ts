/**
 * The Kaizen assistant against the real server: a device sent cycles today, one bad;
 * an engineer asks in Station Performance, reads the beta notice and the facts, and a
 * figure's link opens the analytics screen on those cycles; a manual is added and the
 * Retrieval-Augmented Generation mode quotes its passage.
 */
import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createTask, createUser, enrolDevice, midnightOf, openFromMenu, sendCycle, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'assistant-pass-1';

test('the assistant answers from the cycles and from the manuals', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Kaizen Works ${run}`);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  const device = await enrolDevice((await addDevice(org.id, 'Bench 9')).code);
  const now = Date.now();
  const midnight = midnightOf(now);
  const base = Math.max(midnight + 60 * 60_000, now - 20 * 60_000);
  for (const [i, good] of [true, false, true].entries()) {
    await sendCycle(device, task.id, { start_ms: base + i * 120_000, end_ms: base + i * 120_000 + 40_000, good });
  }
  const email = `kaizen-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await openFromMenu(page, 'Kaizen Assistant');
  await expect(page.getByRole('note')).toContainText('Beta: the assistant');

  await page.getByLabel('Question', { exact: true }).fill('How did we do today?');
  await page.getByRole('button', { name: 'Ask' }).click();
  const chat = page.getByRole('list', { name: 'Chat' });
  await expect(chat).toContainText('3 cycles [F1] were recorded; 1 cycle [F2] of them bad');
  await chat.getByRole('link', { name: /\[F1\] Cycles: 3 cycles/ }).click();
  await expect(page).toHaveURL(/\/user\/analytics\?from=/);
  await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();

  await page.goBack();
  await page.getByLabel('Document', { exact: true }).setInputFiles({
    name: 'fastening.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('Fastening standard\n\nTighten the M6 housing screws to 12 Nm with the blue wrench.\n'),
  });
  await page.getByRole('button', { name: 'Add document' }).click();
  await expect(page.getByRole('region', { name: 'Documents' })).toContainText('fastening.txt (text, 1 passages)');
  await page.getByRole('combobox', { name: 'Mode' }).selectOption({ label: 'Retrieval-Augmented Generation' });
  await page.getByLabel('Question', { exact: true }).fill('What torque for the M6 screws?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(chat).toContainText('From "fastening.txt" (passage 1): Tighten the M6 housing screws to 12 Nm');
});
