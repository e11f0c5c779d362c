/**
 * A task's stored files on Define Operation against the real server: after a video is
 * uploaded, an engineer lists the operation's files in the object store (the video and
 * its thumbnail, with sizes); an analytics user of the same organisation is sent away
 * from the screen.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test } from '@playwright/test';

import { createOrganization, createTask, createUser, makeClip, origin, subscribe, uiLogin, uniqueName, uploadVideo } from './env';

const PASSWORD = 'stored-pass-1';

test('an operation lists its files in the object store', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Stored Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  await subscribe(org.id, 'Record Training Set');
  await createTask(org.id, 'Press fit\nPress:\nPush down;\n');
  const task = await createTask(org.id, 'Stored press\nPress:\nPush down;\n');
  const dir = mkdtempSync(join(tmpdir(), 'stored-'));
  let size = 0;
  try {
    const clip = join(dir, `press-${run}.mp4`);
    makeClip(clip);
    size = statSync(clip).size;
    await uploadVideo(org.id, task.id, clip);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const email = `stored-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/process`);
  await page.getByRole('complementary', { name: 'Operations' }).getByRole('button', { name: 'Stored press', exact: true }).click();
  const section = page.getByRole('article', { name: 'Stored press' }).getByRole('region', { name: 'Stored files' });
  await section.getByRole('button', { name: 'List stored files' }).click();
  const table = section.getByRole('table', { name: 'Stored files' });
  await expect(table.getByRole('row')).toHaveCount(3);
  const video = table.getByRole('row', { name: /^Video / });
  await expect(video).toContainText(`press-${run}.mp4`);
  await expect(video).toContainText(`${(size / 1e3).toFixed(1)} kB`);
  await expect(table.getByRole('row', { name: /^Thumbnail / })).toContainText(`press-${run}.mp4`);
});

test('an analytics user is sent away from the stored files', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Stored Views ${run}`);
  await subscribe(org.id, 'Define Operation');
  const email = `stored-analyst-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await page.goto(`${site}/user/process`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
});
