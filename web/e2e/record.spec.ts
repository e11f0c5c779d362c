/**
 * Record Training Set against the real server: an org user of an organisation
 * subscribed to 'Record Training Set' chooses an operation and uploads the demo footage
 * (`target/models/demo.mp4`, 7.5 MB, about 20 parts) with its progress bar; the cloud
 * reads it with GStreamer, the list shows it with its thumbnail, length and frame size,
 * it plays in the browser, a comment on it is shown and counted, the type filter hides it as a training video under Trace,
 * a text file named .mp4 is refused with the server's message, and the video is deleted.
 * A video is recorded in the browser with Chromium's test camera, and on a device: the
 * real agent binary records its camera and uploads the file, which arrives in the list.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type Page, expect, test } from '@playwright/test';

import { addDevice, createOrganization, createTask, createUser, origin, runAgent, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'record-pass-1';
const FOOTAGE = join(process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url)), 'demo.mp4');

/**
 * An organisation (`Works` after `name`) subscribed to `features` with the operation
 * 'Assemble sensor', and an org user of it signed in on its dashboard: the organisation
 * and its site.
 */
async function signedIn(page: Page, name: string, features: string[]) {
  const run = uniqueName();
  const org = await createOrganization(`${name} Works ${run}`);
  for (const f of features) await subscribe(org.id, f);
  await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n');
  const email = `${name.toLowerCase()}-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  return { org, site };
}

test('a video is uploaded with its progress bar, read, listed, played, filtered and deleted', async ({ page }) => {
  test.setTimeout(120_000);
  const size = statSync(FOOTAGE).size;
  const { site } = await signedIn(page, 'Footage', ['Record Training Set', 'Define Operation']);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Record Training Set' }).click();
  await expect(page).toHaveURL(`${site}/user/record`);
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await expect(page.getByText('No videos yet.')).toBeVisible();

  // A file that is not a video: refused, with the server's message, nothing listed.
  const form = page.getByRole('form', { name: 'Upload video' });
  await form.getByLabel('Video file').setInputFiles({ name: 'notes.mp4', mimeType: 'video/mp4', buffer: Buffer.from('not frames at all') });
  await form.getByRole('button', { name: 'Upload' }).click();
  await expect(form.getByRole('alert')).toHaveText('The file is not a video that can be read (corrupt, or of an unknown format).');
  await expect(form.getByRole('button', { name: 'Resume upload' })).toHaveCount(0);

  // The demo footage: the progress bar moves part by part to 100%.
  await form.getByLabel('Video file').setInputFiles(FOOTAGE);
  await form.getByRole('button', { name: 'Upload' }).click();
  const bar = form.getByRole('progressbar', { name: 'Upload progress' });
  await expect(bar).toBeVisible();
  await expect(form.getByText(/of 7\.\d MB \(\d+%\)/)).toBeVisible();
  await expect(page.getByText('Data uploaded successfully!')).toBeVisible({ timeout: 60_000 });

  const table = page.getByRole('table', { name: 'Videos' });
  const row = table.getByRole('row').nth(1);
  await expect(row).toContainText('demo.mp4');
  await expect(row).toContainText('Training');
  await expect(row).toContainText('640×480 @ 15 fps');
  await expect(row).toContainText('2 min');
  await expect(row).toContainText(`${(size / 1024 / 1024).toFixed(1)} MB`);
  // Its thumbnail loaded (a JPEG the cloud made of the first frame).
  const thumb = row.locator('img');
  await expect.poll(() => thumb.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(320);

  // Played: the browser reads its length from the signed URL (HTTP ranges).
  await row.getByRole('button', { name: 'demo.mp4' }).click();
  const video = page.getByLabel('Playing demo.mp4');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => Math.round(v.duration)), { timeout: 20_000 }).toBe(120);

  // A comment on it: shown under the player and counted in the list.
  const comments = page.getByRole('region', { name: 'Comments' });
  await expect(comments.getByText('No comments yet.')).toBeVisible();
  const add = page.getByRole('form', { name: 'Add a comment' });
  await add.getByRole('button', { name: 'Add comment' }).click();
  await expect(add.getByRole('alert')).toHaveText('Write a comment first.');
  await add.getByLabel('Comment').fill('Step 2 is cut short at 0:41');
  await add.getByRole('button', { name: 'Add comment' }).click();
  await expect(comments.getByText('Step 2 is cut short at 0:41')).toBeVisible();
  await expect(row.getByRole('cell').nth(5)).toHaveText('1');

  // The type filter: a training video is not a trace.
  await page.getByLabel('Video type').selectOption({ label: 'Trace' });
  await expect(page.getByText('No videos yet.')).toBeVisible();
  await page.getByLabel('Video type').selectOption({ label: 'Training' });
  await expect(row).toContainText('demo.mp4');

  // Deleted after asking.
  await row.getByLabel('Select demo.mp4').check();
  await page.getByRole('button', { name: 'Delete selected (1)' }).click();
  await page.getByRole('dialog', { name: 'Delete videos' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('1 video deleted.')).toBeVisible();
  await expect(page.getByText('No videos yet.')).toBeVisible();
});

test('a recording from the camera is uploaded and read like a file', async ({ page }) => {
  test.setTimeout(120_000);
  const { site } = await signedIn(page, 'Camera', ['Record Training Set', 'Define Operation']);
  await page.goto(`${site}/user/record`);
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });

  // Chromium's test camera: a live preview, then about three seconds recorded.
  const camera = page.getByRole('group', { name: 'Record from camera' });
  await camera.getByRole('button', { name: 'Open camera' }).click();
  const preview = camera.getByLabel('Camera preview');
  await expect.poll(() => preview.evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0);
  await camera.getByRole('button', { name: 'Start recording' }).click();
  await expect(camera.getByRole('status')).toHaveText('Recording 0:03', { timeout: 10_000 });
  await camera.getByRole('button', { name: 'Stop recording' }).click();
  await expect(page.getByText('Data uploaded successfully!')).toBeVisible({ timeout: 60_000 });

  const row = page.getByRole('table', { name: 'Videos' }).getByRole('row').nth(1);
  await expect(row).toContainText(/recording-\d{8}-\d{6}\.webm/);
  await expect(row).toContainText('Training');
  // A browser's recording has no fixed frame rate.
  await expect(row).toContainText(/\d+×\d+ @ variable frame rate/);
  // About three seconds long (the rewritten file has its duration).
  await expect(row.getByRole('cell', { name: /^[2-4] s$/ })).toBeVisible();
  await camera.getByRole('button', { name: 'Close camera' }).click();
  await expect(preview).toHaveCount(0);
});

test('a device records training video from its camera and it arrives in the list', async ({ page }) => {
  test.setTimeout(120_000);
  const { org, site } = await signedIn(page, 'Station', ['Record Training Set', 'Define Operation', 'Devices']);
  const bench = await addDevice(org.id, 'Bench 1');
  await addDevice(org.id, 'Bench 2');
  const stopAgent = runAgent(bench.code);
  try {
    await page.goto(`${site}/user/record`);
    await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });

    const form = page.getByRole('form', { name: 'Record on a device' });
    // Nothing chosen, too few seconds: said, nothing asked of a device.
    await form.getByLabel('Seconds').fill('2');
    await form.getByRole('button', { name: 'Record on device' }).click();
    await expect(form.getByText('Choose a device.')).toBeVisible();
    await expect(form.getByText('Record between 5 and 600 seconds.')).toBeVisible();
    // An offline device cannot be chosen; the online one offers its camera.
    const device = form.getByLabel('Device');
    await expect(device.locator('option', { hasText: 'Bench 2 (offline)' })).toBeDisabled();
    await expect(device.locator('option', { hasText: /^Bench 1$/ })).toBeEnabled({ timeout: 60_000 });
    await device.selectOption({ label: 'Bench 1' });
    await expect(form.getByLabel('Camera')).toHaveValue('cam0');
    await form.getByLabel('Seconds').fill('5');
    await form.getByRole('button', { name: 'Record on device' }).click();

    const row = page.getByRole('table', { name: 'Videos' }).getByRole('row').nth(1);
    await expect(row).toContainText(/Bench 1 cam0 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.mp4/);
    await expect(row).toContainText('(recording on the device…)');
    // It arrives by itself: five seconds of the camera's 640×480 frames, playable.
    await expect(row.getByRole('cell', { name: '5 s' })).toBeVisible({ timeout: 60_000 });
    await expect(row).toContainText('640×480');
    await row.getByRole('button', { name: /^Bench 1 cam0 / }).click();
    const player = page.getByLabel(/^Playing Bench 1 cam0 /);
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
  } finally {
    stopAgent();
  }
});
