/**
 * Service tokens (the spec's Cloud Function Token, `generic/userpool/`) against the real
 * server: a super admin of its own, on `admin.localhost`, creates a token for an
 * organisation as an Organization User; the secret, shown once, is then used by the
 * spec itself as an integration would (`Authorization: Bearer …`, no sign-in) to list
 * the organisation's operations; its use shows in the list; revoked after a
 * confirmation, the same call is refused with 401. An organisation admin sent to the
 * screen lands on their Dashboard.
 */
import { expect, test } from '@playwright/test';

import { adminUiLogin, createOrganization, createTask, createUser, openFromMenu, origin, uiLogin, uniqueName } from './env';

test('a service token made in the browser calls the real API until revoked; an org admin is refused the screen', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const orgName = `Tokens ${run}`;
  const org = await createOrganization(orgName);
  const task = await createTask(org.id, `Pump ${run}\nFit:\nPlace;\n`);
  const superAdmin = `tokens-admin-${run}@gemba.test`;
  const orgAdmin = `tokens-boss-${run}@gemba.test`;
  await createUser(superAdmin, 'tokens-pass-1', 'admin', null);
  await createUser(orgAdmin, 'tokens-pass-2', 'org_admin', org.id);
  const tasks = (secret: string) => request.get(`${origin()}/api/organization/task/`, { headers: { Authorization: `Bearer ${secret}` } });

  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  try {
    await adminUiLogin(page, superAdmin, 'tokens-pass-1');
    await openFromMenu(page, 'Cloud Function Token');

    // Created in the browser: the secret shows once.
    const form = page.getByRole('form', { name: 'Create a service token' });
    const name = `MES ${run}`;
    await form.getByLabel('Name').fill(name);
    await form.getByLabel(/^Organization/).selectOption({ label: orgName });
    await form.getByLabel(/^Role/).selectOption({ label: 'Organization User' });
    await form.getByLabel('Expires in (days)').fill('30');
    await form.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('region', { name: `Token ${name} created` });
    await expect(shown).toContainText(`${orgName} as Organization User`);
    const secret = (await shown.getByLabel('Token secret').innerText()).trim();
    expect(secret).toMatch(/^gst_[A-Za-z0-9_-]{40,}$/);
    await shown.getByRole('button', { name: 'Copy token' }).click();
    await expect(page.getByText('Token copied.')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const row = page.getByRole('table', { name: 'Service tokens' }).getByRole('row', { name: new RegExp(name) });
    await expect(row).toContainText(orgName);
    await expect(row).toContainText('Never');
    await expect(row).toContainText('Active');

    // Used by an integration: the organisation's operations, no sign-in.
    const used = await tasks(secret);
    expect(used.status()).toBe(200);
    expect(((await used.json()) as { id: number }[]).map((t) => t.id)).toEqual([task.id]);
    // Its use shows; the secret is never listed again.
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await expect(row).not.toContainText('Never');
    await expect(page.getByText(secret)).toHaveCount(0);

    // Revoked after a confirmation: the same call is refused.
    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke service token' });
    await expect(dialog).toContainText(`Calls made with ${name} (${orgName}) will be refused from now on.`);
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByText(`${name} revoked.`)).toBeVisible();
    await expect(row).toContainText('Revoked');
    await expect(row.getByRole('button', { name: `Revoke ${name}` })).toHaveCount(0);
    const refused = await tasks(secret);
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toBe('This service token has been revoked.');
  } finally {
    await context.close();
  }

  // An organisation admin is sent to their landing screen.
  const bossContext = await browser.newContext();
  const boss = await bossContext.newPage();
  try {
    await uiLogin(boss, orgAdmin, 'tokens-pass-2');
    await expect(boss).toHaveURL(/\/user\/home$/);
    await boss.goto(`${new URL(boss.url()).origin}/admin/aws-token`);
    await expect(boss).toHaveURL(/\/user\/home$/);
    await expect(boss.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(boss.getByRole('heading', { name: 'Cloud Function Token' })).toHaveCount(0);
  } finally {
    await bossContext.close();
  }
});
