/**
 * Remote cameras against the real server: an org admin of an organisation subscribed
 * to 'Devices' opens Cameras from the menu (the sidebar's /user/remote-devices), adds an
 * RTSP camera to a device (a URL the server refuses first, its message next to the
 * field), renames it, and deletes it. The password given is kept for the device and
 * never comes back to the browser. A picture of the list goes to the test's output folder.
 */
import { expect, test } from '@playwright/test';

import type { RemoteCam } from '../src/api/generated';
import { addDevice, adminGet, createOrganization, createUser, openFromMenu, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'remote-cams-1';

test('a remote camera is added (a bad URL refused first), renamed and deleted', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Remote ${run}`);
  await subscribe(org.id, 'Devices');
  const bench = await addDevice(org.id, 'Bench');
  const email = `remote-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_admin', org.id);
  await uiLogin(page, email, PASSWORD);
  await openFromMenu(page, 'Cameras');
  await expect(page).toHaveURL(/\/user\/remote-devices$/);

  const device = page.getByRole('region', { name: /^Bench/ });
  await expect(device.getByText('No remote cameras.')).toBeVisible();
  await device.getByRole('button', { name: 'Add remote camera to Bench' }).click();
  const form = page.getByRole('dialog', { name: 'Add a remote camera to Bench' });
  await form.getByLabel('Name', { exact: true }).fill('gate');
  await form.getByLabel('URL').fill('rtsp://10.0.0.5:99999/stream1');
  await form.getByRole('button', { name: 'Add' }).click();
  // The server's message next to the field, the spec's remote-camera failure as the toast.
  await expect(form.getByText("The camera's URL has a port that is not 1 to 65535.")).toBeVisible();
  await expect(form.getByLabel('URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText("there's some error while assigning new device to remote cam")).toBeVisible();

  await form.getByLabel('URL').fill('rtsp://10.0.0.5:554/stream1');
  await form.getByLabel('Username').fill('viewer');
  await form.getByLabel('Password', { exact: true }).fill('s3cret-pw');
  await form.getByRole('button', { name: 'Add' }).click();
  await expect(page.getByText('Data created successfully!')).toBeVisible();
  await expect(form).toBeHidden();
  const table = device.getByRole('table', { name: 'Remote cameras of Bench' });
  // The device was never enrolled: offline.
  await expect(table.getByRole('row').nth(1)).toHaveText(/^gate\s*rtsp:\/\/viewer@10\.0\.0\.5:554\/stream1\s*viewer, password kept\s*Device offline/);
  await device.screenshot({ path: test.info().outputPath('remote-cams.png') });
  const kept = await adminGet<RemoteCam[]>(org.id, `device/remote_cam/${bench.device.id}/`);
  expect(kept.map((c) => [c.name, c.url, c.has_password])).toEqual([['gate', 'rtsp://viewer@10.0.0.5:554/stream1', true]]);
  expect(JSON.stringify(kept)).not.toContain('s3cret-pw');

  // Renamed: only the name changes, the login stays.
  await table.getByRole('button', { name: 'Edit gate' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit gate on Bench' });
  await expect(edit.getByLabel('URL')).toHaveValue('rtsp://10.0.0.5:554/stream1');
  await expect(edit.getByLabel('Password', { exact: true })).toHaveValue('');
  await edit.getByLabel('Name', { exact: true }).fill('gate-north');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
  await expect(table.getByRole('row').nth(1)).toHaveText(/^gate-north\s*rtsp:\/\/viewer@10\.0\.0\.5:554\/stream1\s*viewer, password kept/);
  expect(await page.content()).not.toContain('s3cret-pw');

  // Deleted, after a confirmation.
  await table.getByRole('button', { name: 'Delete gate-north' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete gate-north?' });
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Data deleted successfully!')).toBeVisible();
  await expect(device.getByText('No remote cameras.')).toBeVisible();
  expect(await adminGet<RemoteCam[]>(org.id, `device/remote_cam/${bench.device.id}/`)).toEqual([]);
});
