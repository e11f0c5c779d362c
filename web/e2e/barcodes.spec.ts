/**
 * The admin Barcode screen against the real server: a super admin of its own (the
 * seeded one's sign-in codes are spent by the other specs) chooses a new organisation
 * with an operation, adds a barcode with a typed value (a repeat is refused with the
 * server's reason), has one made up, changes a value, associates one with the operation
 * and removes that association, and deletes one after confirming; what the server keeps
 * is read back through the API after each step.
 */
import { expect, test } from '@playwright/test';

import type { AssociatedBarcode, Barcode } from '../src/api/generated';

import { adminGet, adminUiLogin, createOrganization, createTask, createUser, openFromMenu, uniqueName } from './env';

test('the super admin adds, changes, associates, removes and deletes barcodes of an organisation', async ({ page }) => {
  test.setTimeout(90_000);
  const run = uniqueName();
  const orgName = `Barcodes ${run}`;
  const org = await createOrganization(orgName);
  const task = await createTask(org.id, `Pump ${run}\nFit:\nPlace;\nCheck:\nLook;\n`);
  const email = `barcode-admin-${run}@gemba.test`;
  await createUser(email, 'barcode-pass-1', 'admin', null);
  const kept = () => adminGet<Barcode[]>(org.id, `account/barcode/${org.id}`);

  await adminUiLogin(page, email, 'barcode-pass-1');
  await openFromMenu(page, 'Barcode');
  await expect(page.getByText('Choose an organization to see its barcodes.')).toBeVisible();
  await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: orgName });
  await expect(page).toHaveURL(new RegExp(`organization=${org.id}`));
  await expect(page.getByText('No barcodes yet.')).toBeVisible();
  const table = page.getByRole('table', { name: 'Barcodes' });

  // A typed value, then the same again: refused with the server's reason.
  const value = page.getByRole('textbox', { name: 'Barcode value' });
  await value.fill(`LOT-${run}`);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByText('Barcode added successfully')).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(`LOT-${run}`) })).toContainText('—');
  await value.fill(`LOT-${run}`);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByText('Unable to add barcode')).toBeVisible();
  await expect(page.getByText('This organization already has a barcode with this value.').first()).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);

  // One made up by the server.
  await page.getByRole('button', { name: 'Generate a barcode' }).click();
  await expect(table.getByRole('row')).toHaveCount(3);
  const made = (await kept()).find((b) => b.barcode_value !== `LOT-${run}`);
  expect(made?.barcode_value).toMatch(/^GB-[2-9A-Z]{8}$/);
  await expect(table.getByRole('row', { name: new RegExp(made!.barcode_value) })).toBeVisible();

  // A new value, in place.
  await page.getByRole('button', { name: `Edit LOT-${run}` }).click();
  await page.getByRole('textbox', { name: `Value of LOT-${run}` }).fill(`LOT-${run}-B`);
  await page.getByRole('button', { name: `Save LOT-${run}` }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(`LOT-${run}-B`) })).toBeVisible();

  // Associated with the operation, found by name; then removed from it.
  await page.getByRole('button', { name: `Associate LOT-${run}-B` }).click();
  const dialog = page.getByRole('dialog', { name: `Associate LOT-${run}-B` });
  await dialog.getByRole('textbox', { name: 'Operation name' }).fill('pump');
  await dialog.getByRole('button', { name: 'Search' }).click();
  await dialog.getByRole('combobox', { name: 'Operation' }).selectOption({ label: `Pump ${run}` });
  await dialog.getByRole('button', { name: 'Associate' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(table.getByRole('row', { name: new RegExp(`LOT-${run}-B`) })).toContainText(`Pump ${run}`);
  const links = await adminGet<AssociatedBarcode[]>(org.id, `account/associate_barcode/?task=${task.id}`);
  expect(links.map((l) => l.barcode)).toEqual([`LOT-${run}-B`]);
  await page.getByRole('button', { name: `Remove LOT-${run}-B from Pump ${run}` }).click();
  await expect(page.getByText('Barcode removed successfully')).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(`LOT-${run}-B`) })).toContainText('—');
  expect(await adminGet<AssociatedBarcode[]>(org.id, `account/associate_barcode/?task=${task.id}`)).toEqual([]);

  // Deleted after confirming.
  await page.getByRole('button', { name: `Delete ${made!.barcode_value}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Barcode deleted successfully')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
  expect((await kept()).map((b) => b.barcode_value)).toEqual([`LOT-${run}-B`]);
});
