/**
 * Temporary (`/user/temp`, the user and the org user only) against the real server:
 * the organisation's devices at a glance from the monitoring calls. One device says it
 * is online over MQTT, another never enrolled: the screen counts them, puts the
 * offline one first and links each to its page. An org admin opening the screen lands
 * on the Dashboard instead.
 */
import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createUser, enrolDevice, origin, sayStatus, subscribe, uiLogin, uniqueName } from './env';

test('an org user sees the devices online and offline on Temporary; an org admin is sent away', async ({ page }) => {
  test.setTimeout(60_000);
  const run = uniqueName();
  const org = await createOrganization(`Temp Works ${run}`);
  // A device's page is the Devices screen's, which the subscription gates.
  await subscribe(org.id, 'Devices');
  const up = await addDevice(org.id, `Bench ${run}`);
  await addDevice(org.id, `Press ${run}`);
  await sayStatus(await enrolDevice(up.code), true);
  const email = `temp-${run}@acme.example`;
  await createUser(email, 'temp-pass-1', 'org_user', org.id);
  await uiLogin(page, email, 'temp-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);

  await page.goto(`${site}/user/temp`);
  await expect(page.getByRole('heading', { level: 1, name: 'Temporary' })).toBeVisible();
  await expect(page.getByLabel('Device status')).toContainText('1 of 2 online');
  const table = page.getByRole('table', { name: 'Device health' });
  const rows = table.getByRole('row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1)).toContainText(`Press ${run}`);
  await expect(rows.nth(1)).toContainText('Offline');
  await expect(rows.nth(1)).toContainText('Never');
  await expect(rows.nth(2)).toContainText(`Bench ${run}`);
  await expect(rows.nth(2)).toContainText('Healthy');
  await table.getByRole('link', { name: `Bench ${run}` }).click();
  await expect(page).toHaveURL(new RegExp(`${site}/user/devices/\\d+$`));

  const boss = `temp-boss-${run}@acme.example`;
  await createUser(boss, 'temp-pass-1', 'org_admin', org.id);
  await page.getByRole('button', { name: 'Log out' }).click();
  // Signed out, the portal goes back to the base domain's login; a new sign-in starts
  // there once it has (a navigation of our own meanwhile would be aborted).
  await expect(page).toHaveURL(`${origin()}/login`);
  await uiLogin(page, boss, 'temp-pass-1');
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/temp`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
});
