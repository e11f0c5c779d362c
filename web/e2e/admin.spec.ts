/** The thinnest path: the seeded super admin signs in on the admin host with an e-mail
 * code and lands on Organizations with the admin sidebar. */
import { expect, test } from '@playwright/test';

import { ADMIN, adminUiLogin, origin, sidebarEntries } from './env';

test('the super admin signs in with an e-mail code and lands on Organizations', async ({ page }) => {
  await page.goto(`${origin('admin.localhost')}/login`);
  await expect(page.getByRole('heading', { name: 'Admin Login' })).toBeVisible();
  await adminUiLogin(page, ADMIN.email, ADMIN.password);
  const entries = await sidebarEntries(page);
  expect(entries[0]).toBe('Organizations');
  expect(entries).toContain('Pending Users');
  // The spec's twenty, and the audit log (issue 28; docs/decisions.md).
  expect(entries).toContain('Audit Log');
  expect(entries).toHaveLength(21);
});
