/**
 * The super admin's screens against the real server: on `admin.localhost` a super
 * admin of this spec's own (the seeded one's e-mail codes, five in ten minutes, are
 * `admin.spec.ts`'s and the run's set-up) creates an organisation, approves a pending user (signed up and verified through the
 * API) with a role and assigns the organisation (the two-step approval of section 4);
 * that user then signs in on `localhost` with an e-mail code and lands on the Dashboard
 * of the organisation's sub-domain, where the Users screen lists them. Each one's Audit
 * Log shows what it may read: the super admin's changes to the super admin.
 */
import { type Locator, type Page, expect, test } from '@playwright/test';

import { adminUiLogin, createUser, mailsTo, openFromMenu, origin, signUpVerified, uiLogin } from './env';

/** The newest row of the Audit Log (newest first, 10 a page) made by `who`, paging on
 * while `who` has none on the page shown: the other workers' set-up writes entries too. */
async function newestAuditRowOf(page: Page, who: string): Promise<Locator> {
  const rows = page.getByRole('table', { name: 'Audit log' }).getByRole('row');
  await expect(rows.nth(1)).toBeVisible();
  const mine = rows.filter({ hasText: who });
  for (let p = 2; (await mine.count()) === 0; p++) {
    expect(p, `an entry by ${who} on the Audit Log's first pages`).toBeLessThanOrEqual(6);
    const first = await rows.nth(1).innerText();
    await page.getByRole('navigation', { name: 'Audit log pages' }).getByRole('button', { name: 'Next' }).click();
    await expect(page.getByText(`Page ${p} of`)).toBeVisible();
    await expect(rows.nth(1)).not.toHaveText(first);
  }
  return mine.first();
}

test('the super admin creates an organisation and approves a pending user, who then signs in', async ({ browser }) => {
  const tag = Date.now().toString(36);
  const orgDisplay = `Harbor Works ${tag}`;
  const orgHost = `harbor-works-${tag}.localhost`;
  const email = `pia.${tag}@example.test`;
  const password = 'pia-pass-2026';
  const superAdmin = `screens-admin-${tag}@gemba.test`;
  await createUser(superAdmin, password, 'admin', null);
  await signUpVerified(email, password, 'Pia', 'Pending');

  // The super admin, on the admin host.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await adminUiLogin(admin, superAdmin, password);
  await expect(admin.getByRole('heading', { name: 'Organizations' })).toBeVisible();

  // Create the organisation; a blank name is refused first.
  await admin.getByRole('button', { name: 'Create Organization' }).click();
  const create = admin.getByRole('dialog', { name: 'Create Organization' });
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(create.getByText('Display name is required!')).toBeVisible();
  await create.getByLabel('Display name').fill(orgDisplay);
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(admin.getByText('Data created successfully!')).toBeVisible();
  await expect(create).toBeHidden();
  await admin.getByRole('searchbox', { name: 'Search organizations' }).fill(tag);
  await admin.getByRole('button', { name: 'Search' }).click();
  const orgRow = admin.getByRole('table', { name: 'Organizations' }).getByRole('row', { name: new RegExp(orgDisplay) });
  await expect(orgRow).toContainText(`harbor-works-${tag}`);

  // Approve the pending user: a role, then the organisation.
  await openFromMenu(admin, 'Pending Users');
  await admin.getByRole('searchbox', { name: 'Search users' }).fill(email);
  await admin.getByRole('button', { name: 'Search' }).click();
  const row = admin.getByRole('table', { name: 'Pending users' }).getByRole('row', { name: /Pia Pending/ });
  await expect(row).toContainText(email);
  await row.getByRole('button', { name: 'Approve Pia Pending' }).click();
  const approve = admin.getByRole('dialog', { name: 'Approve Pia Pending' });
  await approve.getByLabel('Role').selectOption({ label: 'Organization Admin' });
  await approve.getByRole('button', { name: 'Approve' }).click();
  await expect(admin.getByText('User approved successfully!')).toBeVisible();
  await expect(approve).toContainText('Pia Pending is approved as Organization Admin.');
  await approve.getByLabel('Organization').selectOption({ label: orgDisplay });
  await approve.getByRole('button', { name: 'Assign' }).click();
  await expect(admin.getByText('Data updated successfully!')).toBeVisible();
  await expect(approve).toBeHidden();
  await expect(admin.getByText(`No pending user matches "${email}".`)).toBeVisible();
  expect(mailsTo(email).some((m) => m.includes('Subject: Your gemba account is approved'))).toBe(true);

  // All Users shows the account active in the organisation.
  await openFromMenu(admin, 'All Users');
  await admin.getByRole('searchbox', { name: 'Search users' }).fill(email);
  await admin.getByRole('button', { name: 'Search' }).click();
  const userRow = admin.getByRole('table', { name: 'Users', exact: true }).getByRole('row', { name: /Pia Pending/ });
  await expect(userRow).toContainText('Organization Admin');
  await expect(userRow).toContainText(orgDisplay);
  await expect(userRow).toContainText('Active');

  // The Audit Log holds those changes, newest first: the super admin's newest is the
  // assignment just made.
  await openFromMenu(admin, 'Audit Log');
  const newest = await newestAuditRowOf(admin, superAdmin);
  await expect(newest).toContainText('PUT /api/account/assign_user_org');
  await expect(newest).toContainText('200');
  await adminContext.close();

  // The approved user signs in on the base domain with an e-mail code and continues on
  // the organisation's sub-domain, on their landing screen.
  const userContext = await browser.newContext();
  const page = await userContext.newPage();
  await uiLogin(page, email, password, 'localhost');
  await expect(page).toHaveURL(`${origin(orgHost)}/user/home`);
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText(orgDisplay);

  // As an organisation admin they have the Users screen, listing themselves.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
  await expect(page).toHaveURL(`${origin(orgHost)}/user/org-users`);
  const self = page.getByRole('table', { name: 'Users' }).getByRole('row', { name: /Pia Pending/ });
  await expect(self).toContainText(email);
  await expect(self).toContainText('Organization Admin');

  // And the Audit Log of their organisation, without the super admin's changes made
  // outside it.
  await openFromMenu(page, 'Audit Log');
  await expect(page.getByText('PUT /api/account/assign_user_org')).toHaveCount(0);
  await userContext.close();
});
