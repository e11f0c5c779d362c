/**
 * The labeler area against the real server: an org user asks a labeler (a user of no
 * organisation) for labels from Label Training Set; the labeler signs in, lands on
 * Operations Requested, opens the operation's videos, marks a segment with the keyboard
 * and saves; the org user finds the labels on the same video.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect, test } from '@playwright/test';

import { createOrganization, createTask, createUser, origin, subscribe, uiLogin, uniqueName, uploadVideo } from './env';

const PASSWORD = 'labeler-pass-1';
const FOOTAGE = join(process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url)), 'demo.mp4');

test('a labeler labels the operation requested of them in the labeler area', async ({ page }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const org = await createOrganization(`Labeled Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  const task = await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n');
  const video = await uploadVideo(org.id, task.id, FOOTAGE);
  const engineer = `eng-${run}@acme.example`;
  const labeler = `lab-${run}@labels.example`;
  await createUser(engineer, PASSWORD, 'org_user', org.id);
  await createUser(labeler, PASSWORD, 'labeler', null);

  // The engineer asks the labeler; a wrong address is said so.
  await uiLogin(page, engineer, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/label-data?task=${task.id}`);
  await page.getByText(/^Labelers \(0\)$/).click();
  const form = page.getByRole('form', { name: 'Request labeling' });
  await form.getByLabel("Labeler's e-mail").fill(`nobody-${run}@labels.example`);
  await form.getByRole('button', { name: 'Request labeling' }).click();
  await expect(form.getByText('No labeler has this e-mail address.')).toBeVisible();
  await form.getByLabel("Labeler's e-mail").fill(labeler);
  await form.getByRole('button', { name: 'Request labeling' }).click();
  await expect(page.getByRole('list', { name: 'Labelers asked' })).toContainText(labeler);
  await page.getByRole('button', { name: 'Log out' }).click();
  // Signed out, the portal goes back to the base domain's login (from the sub-domain).
  await expect(page).toHaveURL(`${origin()}/login`);
  await expect(page.getByRole('heading', { name: 'Login' })).toBeVisible();

  // The labeler: Operations Requested, the operation's videos, the editor.
  await uiLogin(page, labeler, PASSWORD);
  await expect(page).toHaveURL(/\/labeler\/tasks$/);
  const row = page.getByRole('table', { name: 'Operations requested' }).getByRole('row', { name: /Assemble sensor/ });
  await expect(row).toContainText('0 of 1');
  await row.getByRole('link', { name: 'Videos of Assemble sensor' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Assemble sensor' })).toBeVisible();
  await page.getByRole('button', { name: 'Label demo.mp4' }).click();
  const player = page.getByLabel('Labeling demo.mp4');
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState >= 1 && Math.round(v.duration))).toBe(120);
  await page.keyboard.press('2');
  await page.keyboard.press('s');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('e');
  await page.getByRole('button', { name: 'Save labels' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
  await page.reload();
  const rows = page.getByRole('table', { name: 'Segments' }).getByRole('row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toHaveText(/2\. Pick cover\s*0\.000 s\s*2\.000 s/);
  expect(video.status).toBe('ready');
});
