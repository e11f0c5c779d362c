/**
 * The admin area's screens whose calls the cloud serves (issue 31, item 1), against
 * the real server, as a super admin of its own (the seeded one's codes are spent by the
 * other specs): Feature Control subscribes a new organisation to Devices, and that
 * organisation's admin then finds the gated Devices entry; Event Notification changes
 * a notification's recipients in place (a bad address refused first); All Devices lists
 * the organisation's device under the organisation's name; All Operations finds its operation and opens its Task
 * Videos, where the uploaded video plays; Trained Operations shows the operation by its
 * training status and its training. The organisation's admin sent to an admin route is
 * sent back to its landing screen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test } from '@playwright/test';

import type { Task } from '../src/api/generated';
import { addDevice, adminGet, adminSend, adminUiLogin, createOrganization, createTask, createUser, makeClip, openFromMenu, origin, sidebarEntries, uiLogin, uniqueName, uploadVideo } from './env';

const PASSWORD = 'area-pass-2026';

test('the super admin works the admin area; an organisation admin is kept out of it', async ({ browser }) => {
  test.setTimeout(180_000);
  const run = uniqueName();
  const orgDisplay = `Admin Area ${run}`;
  const org = await createOrganization(orgDisplay);
  const taskName = `Weld ${run}`;
  const task = await createTask(org.id, `${taskName}\nFit:\nPlace;\nCheck:\nLook;\n`);
  const dir = mkdtempSync(join(tmpdir(), 'gemba-e2e-admin-area-'));
  const clip = join(dir, `seam-${run}.mp4`);
  makeClip(clip, 'ball');
  await uploadVideo(org.id, task.id, clip);
  rmSync(dir, { recursive: true, force: true });
  await addDevice(org.id, `Lathe ${run}`);
  await adminSend(org.id, 'POST', 'feature_control/event_notifications', {
    event_type: 'Task Update',
    recipients: [`lead-${run}@area.example`],
    Organization: org.id,
  });
  const superAdmin = `area-admin-${run}@gemba.test`;
  const orgAdmin = `area-boss-${run}@area.example`;
  await createUser(superAdmin, PASSWORD, 'admin', null);
  await createUser(orgAdmin, PASSWORD, 'org_admin', org.id);

  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await adminUiLogin(page, superAdmin, PASSWORD);

    // Feature Control: the organisation subscribed to Devices.
    await openFromMenu(page, 'Feature Control');
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: orgDisplay });
    const features = page.getByRole('table', { name: `Features of ${orgDisplay}` });
    const devicesRow = features.getByRole('row', { name: /^Devices / });
    await expect(devicesRow).toContainText('Not subscribed');
    await page.getByRole('button', { name: `Subscribe ${orgDisplay} to Devices` }).click();
    await expect(page.getByText('Data created successfully!')).toBeVisible();
    await expect(devicesRow).toContainText('Subscribed');
    await expect(page.getByRole('button', { name: `Suppress Devices for ${orgDisplay}` })).toBeVisible();
    // Listed with every organisation's subscriptions.
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'All organizations' });
    await expect(page.getByRole('table', { name: 'Subscriptions' }).getByRole('row', { name: new RegExp(`${orgDisplay} Devices Subscribed`) })).toBeVisible();

    // Event Notification: the recipients changed in place.
    await openFromMenu(page, 'Event Notification');
    const named = `Task Update of ${orgDisplay}`;
    await page.getByRole('button', { name: `Edit recipients of ${named}` }).click();
    const box = page.getByRole('textbox', { name: `Recipients of ${named}` });
    await expect(box).toHaveValue(`lead-${run}@area.example`);
    await box.fill(`lead-${run}@area.example\nnot-an-address`);
    await page.getByRole('button', { name: `Save recipients of ${named}` }).click();
    const notifications = page.getByRole('table', { name: 'Event notifications' });
    await expect(notifications.getByRole('alert')).toHaveText('not-an-address is not a valid e-mail address.');
    await box.fill(`lead-${run}@area.example\nnight-${run}@area.example`);
    await page.getByRole('button', { name: `Save recipients of ${named}` }).click();
    await expect(page.getByText('Data updated successfully!')).toBeVisible();
    const notification = notifications.getByRole('row', { name: new RegExp(orgDisplay) });
    await expect(notification).toContainText(`lead-${run}@area.example, night-${run}@area.example`);
    await page.reload();
    await expect(notification).toContainText(`lead-${run}@area.example, night-${run}@area.example`);

    // All Devices: the organisation's device.
    await openFromMenu(page, 'All Devices');
    await page.getByRole('searchbox', { name: 'Search devices' }).fill(run);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.getByRole('table', { name: 'All devices' }).getByRole('row', { name: new RegExp(`Lathe ${run}`) })).toContainText(orgDisplay);

    // All Operations, then the operation's Task Videos, where the video plays.
    await openFromMenu(page, 'All Operations');
    await page.getByRole('searchbox', { name: 'Search operations' }).fill(run);
    await page.getByRole('button', { name: 'Search' }).click();
    const opRow = page.getByRole('table', { name: 'All operations' }).getByRole('row', { name: new RegExp(taskName) });
    await expect(opRow).toContainText(orgDisplay);
    await expect(page.getByRole('table', { name: 'All operations' }).getByRole('row')).toHaveCount(2);
    await opRow.getByRole('link', { name: `Videos of ${taskName}` }).click();
    await expect(page).toHaveURL(`${origin('admin.localhost')}/admin/task-videos/${task.id}/${encodeURIComponent(taskName)}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Task Videos' })).toBeVisible();
    await page.getByRole('button', { name: `Play seam-${run}.mp4` }).click();
    const player = page.getByLabel(`Playing seam-${run}.mp4`);
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => Math.round(v.duration)), { timeout: 20_000 }).toBe(2);
    // Trace videos only: none.
    await page.getByRole('combobox', { name: 'Video type' }).selectOption({ label: 'Trace' });
    await expect(page.getByText('No videos match.')).toBeVisible();

    // Trained Operations: the operation under its training status, and its training.
    const status = (await adminGet<Task>(org.id, `organization/task/${task.id}/`)).train_status;
    await openFromMenu(page, 'Trained Operations');
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: orgDisplay });
    await expect(page.getByText(/^No operation is trained\.$/)).toBeVisible();
    await page.getByRole('combobox', { name: 'Training status' }).selectOption(status);
    await page.getByRole('button', { name: `Training of ${taskName}` }).click();
    const facts = page.getByLabel(`Training state of ${taskName}`);
    await expect(facts).toContainText('0 labelled, 1 ready');
    await expect(facts).toContainText('Never trained');
  } finally {
    await context.close();
  }

  // The organisation's admin: the gated Devices entry is there; the admin area is not.
  const bossContext = await browser.newContext();
  const boss = await bossContext.newPage();
  try {
    await uiLogin(boss, orgAdmin, PASSWORD);
    const site = origin(`${org.name}.localhost`);
    await expect(boss).toHaveURL(`${site}/user/home`);
    await expect(boss.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' })).toBeVisible();
    expect(await sidebarEntries(boss)).not.toContain('Feature Control');
    for (const path of ['/admin/feature-control', '/admin/tasks', `/admin/task-videos/${task.id}/x`]) {
      await boss.goto(`${site}${path}`);
      await expect(boss).toHaveURL(`${site}/user/home`);
    }
  } finally {
    await bossContext.close();
  }
});
