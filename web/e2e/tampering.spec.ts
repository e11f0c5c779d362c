/**
 * Tampering Requests against the real server (issue 31): a device says, as its agent
 * does, that a camera has been covered since a minute ago; the super admin (one of its
 * own: the seeded one's codes are spent by the other specs) finds the request on
 * `/admin/tampering-requests` under the organisation's name, dismisses it with a note,
 * and finds it among the resolved ones with who decided and why. The organisation's
 * admin sent to the route is sent back to its landing screen.
 */
import { expect, test } from '@playwright/test';

import { addDevice, adminUiLogin, createOrganization, createUser, enrolDevice, openFromMenu, origin, sayStatus, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'tamper-pass-2026';

test('a covered camera is a tampering request the super admin dismisses; an organisation admin is kept out', async ({ browser }) => {
  const run = uniqueName();
  const orgDisplay = `Tamper Works ${run}`;
  const org = await createOrganization(orgDisplay);
  await subscribe(org.id, 'Devices');
  const deviceName = `Press ${run}`;
  const device = await enrolDevice((await addDevice(org.id, deviceName)).code);
  const since = Date.now() - 60_000;
  await sayStatus(device, true, [], {
    cameras: [
      {
        camera: 'cam0',
        task: null,
        fps: 0,
        model_version: null,
        state: 'idle',
        generation: 0,
        faults: [{ kind: 'covered', since_ms: since, detail: 'gray spread 1.2 levels' }],
      },
    ],
  });
  const superAdmin = `tamper-admin-${run}@gemba.test`;
  const orgAdmin = `tamper-boss-${run}@tamper.example`;
  await createUser(superAdmin, PASSWORD, 'admin', null);
  await createUser(orgAdmin, PASSWORD, 'org_admin', org.id);

  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await adminUiLogin(page, superAdmin, PASSWORD);
    await openFromMenu(page, 'Tampering Requests');
    await expect(page.getByRole('heading', { level: 1, name: 'Tampering Requests' })).toBeVisible();
    const requests = page.getByRole('table', { name: 'Tampering requests' });
    const row = requests.getByRole('row', { name: new RegExp(deviceName) });
    await expect(row).toContainText('cam0');
    await expect(row).toContainText(orgDisplay);
    await expect(row).toContainText('Camera covered');
    // Covered, not moved: there is no new view to accept.
    await expect(row.getByRole('button', { name: 'Accept new view' })).toHaveCount(0);

    await row.getByRole('button', { name: 'Dismiss' }).click();
    const dialog = page.getByRole('dialog', { name: `Dismiss: cam0 on ${deviceName}` });
    await dialog.getByRole('button', { name: 'Dismiss' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Say why the request is dismissed.');
    await dialog.getByLabel('Note').fill('Cleaning cloth left on the lens');
    await dialog.getByRole('button', { name: 'Dismiss' }).click();
    await expect(page.getByText('Data updated successfully!')).toBeVisible();
    await expect(requests.getByRole('row', { name: new RegExp(deviceName) })).toHaveCount(0);

    await page.getByRole('combobox', { name: 'Requests' }).selectOption({ label: 'Resolved' });
    const resolved = requests.getByRole('row', { name: new RegExp(deviceName) });
    await expect(resolved).toContainText(`Dismissed by`);
    await expect(resolved).toContainText('Cleaning cloth left on the lens');
  } finally {
    await context.close();
  }

  const boss = await browser.newContext();
  try {
    const p = await boss.newPage();
    await uiLogin(p, orgAdmin, PASSWORD);
    const site = origin(`${org.name}.localhost`);
    await expect(p).toHaveURL(`${site}/user/home`);
    await p.goto(`${site}/admin/tampering-requests`);
    await expect(p).toHaveURL(`${site}/user/home`);
    await expect(p.getByRole('heading', { name: 'Tampering Requests' })).toHaveCount(0);
  } finally {
    await boss.close();
  }
});
