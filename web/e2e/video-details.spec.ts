/**
 * A video's file details on Record Training Set against the real server: an engineer
 * plays an uploaded video and reads its file's details (length, picture, frame rate,
 * codec, container) from the stored file; an analytics user of the same organisation is
 * sent away from the screen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test } from '@playwright/test';

import { createOrganization, createTask, createUser, makeClip, origin, subscribe, uiLogin, uniqueName, uploadVideo } from './env';

const PASSWORD = 'details-pass-1';

test('a played video shows the details read from its file', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Details Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  await subscribe(org.id, 'Record Training Set');
  const task = await createTask(org.id, 'Press fit\nPress:\nPush down;\n');
  const dir = mkdtempSync(join(tmpdir(), 'details-'));
  try {
    const clip = join(dir, `press-${run}.mp4`);
    makeClip(clip);
    await uploadVideo(org.id, task.id, clip);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const email = `details-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/record`);
  await page.getByLabel('Operation').selectOption({ label: 'Press fit' });
  await page.getByRole('button', { name: `press-${run}.mp4` }).click();
  await page.getByRole('button', { name: 'Read file details' }).click();
  const details = page.getByRole('definition');
  const list = page.getByLabel('File details', { exact: true }).last();
  await expect(list).toContainText('320×240');
  await expect(list).toContainText('15 fps');
  await expect(list).toContainText('H.264');
  await expect(list).toContainText('Quicktime');
  await expect(details.first()).toHaveText('2.0 s');
});

test('an analytics user is sent away from the videos', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Details Views ${run}`);
  await subscribe(org.id, 'Record Training Set');
  const email = `details-analyst-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await page.goto(`${site}/user/record`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
});
