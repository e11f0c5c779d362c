/**
 * The authenticator app as a phone would use it: the portal shows a QR code, the test
 * reads it (decoding the PNG the server drew, as the phone's camera would), derives the
 * code from the `otpauth://` secret (RFC 6238) and signs in with it.
 */
import { expect, test } from '@playwright/test';

import { createOrganization, createUser, origin, scanQr, totp, uniqueName } from './env';

test('an authenticator app scans the QR code and its codes sign the user in', async ({ page }) => {
  const run = uniqueName();
  const email = `phone-${run}@acme.example`;
  const org = await createOrganization(`Phone Works ${run}`);
  await createUser(email, 'phone-pass-1', 'org_user', org.id);

  await page.goto(`${origin()}/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('phone-pass-1');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Select Verification Method' })).toBeVisible();
  await page.getByRole('button', { name: 'Authenticator app' }).click();

  const uri = await scanQr(page);
  expect(uri.protocol).toBe('otpauth:');
  expect(decodeURIComponent(uri.pathname)).toContain(email);

  // A code from another time window is refused, and nothing is signed in.
  await page.getByLabel('6-digit code').fill(totp(uri, Date.now() - 10 * 60_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Invalid or expired OTP.').first()).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

  await page.getByLabel('6-digit code').fill(totp(uri, Date.now()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/home`);
});
