/**
 * Label Training Set against the real server: an org user opens the demo footage of an
 * operation (uploaded through the API), steps through it by frames with the keyboard,
 * marks two segments of two steps with the keys, saves, and finds them again after a
 * reload, on the timeline and in the list; the operation is then in annotation.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect, test } from '@playwright/test';

import { createOrganization, createTask, createUser, openFromMenu, origin, subscribe, uiLogin, uniqueName, uploadVideo } from './env';

const PASSWORD = 'label-pass-1';
const FOOTAGE = join(process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url)), 'demo.mp4');

test('two segments are labelled with the keyboard, saved, and found again', async ({ page }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const org = await createOrganization(`Label Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  const task = await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n');
  const video = await uploadVideo(org.id, task.id, FOOTAGE);
  expect(video.status).toBe('ready');
  const email = `label-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);

  await openFromMenu(page, 'Label Training Set');
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await page.getByRole('button', { name: 'Label demo.mp4' }).click();
  const player = page.getByLabel('Labeling demo.mp4');
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState >= 1 && Math.round(v.duration))).toBe(120);
  const at = page.getByText(/^At \d+\.\d{3} s/);
  await expect(at).toContainText('At 0.000 s (frame 0): background');

  // Step 1 from the start to 30 frames on (3 × the frame step of 10 at 15 fps: 2 s).
  await page.keyboard.press('1');
  await page.keyboard.press('s');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expect(at).toContainText('At 2.000 s (frame 30)');
  await page.keyboard.press('e');
  // Step 2 from there, 20 frames on.
  await page.keyboard.press('2');
  await page.keyboard.press('s');
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('e');
  await expect(page.getByRole('slider', { name: 'Timeline: 2 segments' })).toBeVisible();
  await expect(at).toContainText('unsaved changes');
  // The chosen step's button shows it; the timeline zooms in around the playhead.
  await expect(page.getByRole('button', { name: '2. Pick cover' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await expect(page.getByText('Timeline 4×')).toBeVisible();
  await expect(page.getByRole('slider', { name: 'Timeline: 2 segments, 0.000 s to 30.000 s' })).toBeVisible();
  await page.keyboard.press('-');
  await expect(page.getByText('Timeline 2×')).toBeVisible();
  // Back 10 frames: inside step 2.
  await page.keyboard.press('ArrowLeft');
  await expect(at).toContainText('Pick cover');

  await page.getByRole('button', { name: 'Save labels' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();

  await page.reload();
  const rows = page.getByRole('table', { name: 'Segments' }).getByRole('row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1)).toHaveText(/1\. Pick base\s*0\.000 s\s*2\.000 s\s*2\.000 s/);
  await expect(rows.nth(2)).toHaveText(/2\. Pick cover\s*2\.000 s\s*3\.333 s\s*1\.333 s/);
  await expect(page.getByRole('slider', { name: 'Timeline: 2 segments' })).toBeVisible();

  // The operation is now being annotated.
  await page.goto(`${site}/user/tasks`);
  await expect(page.getByText('IN ANNOTATION').first()).toBeVisible();
});
