/**
 * The OPC screen behind its subscription, in the real portal against the real server: an
 * org user of an organisation without 'OPCUA Explorer' who opens `/user/opc` directly is
 * sent to their landing screen and told why (a toast in the API's own words); once the
 * organisation subscribes, the same address opens the screen, with nothing said.
 */
import { expect, test } from '@playwright/test';

import { createOrganization, createUser, origin, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'opc-gate-1';
const REFUSED = 'OPCUA Explorer is not enabled for this organization.';

test('without the subscription OPC sends the user home and says why; with it, it opens', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Opc Gate ${run}`);
  const who = `opc-gate-${run}@acme.example`;
  await createUser(who, PASSWORD, 'org_user', org.id);
  await uiLogin(page, who, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OPC' })).toHaveCount(0);

  await page.goto(`${site}/user/opc`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByText(REFUSED)).toBeVisible();
  await expect(page.getByText('Its screens open once the organisation subscribes to it.')).toBeVisible();

  await subscribe(org.id, 'OPCUA Explorer');
  await page.goto(`${site}/user/opc`);
  await expect(page).toHaveURL(`${site}/user/opc`);
  await expect(page.getByRole('heading', { name: 'OPC' })).toBeVisible();
  await expect(page.getByText(REFUSED)).toHaveCount(0);
});
