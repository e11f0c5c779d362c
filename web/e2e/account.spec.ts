/**
 * The account screens in the browser against the real server: sign-up with bad input
 * first (the spec's messages, nothing sent), the verification link from the outbox,
 * sign-in before approval, approval, sign-in with an e-mail code; forgotten password
 * by the e-mailed link; changing the password; a bad verification link.
 */
import { type Page, expect, test } from '@playwright/test';

import { INVALID_EMAIL_MESSAGE, PASSWORD_TOO_SHORT } from '../src/lib/validate';
import {
  approveUser,
  codeIn,
  createOrganization,
  createUser,
  mailsTo,
  nextMail,
  origin,
  resetPathIn,
  smsTo,
  uiLogin,
  uniqueName,
  verifyPathIn,
} from './env';

const ADMIN_NOTIFIED = 'Admin has been notified. Your account will be approved within 24 Hours.';
const VERIFICATION_SENT = 'Verification email has been sent please verify to complete registeration!';

async function fill(page: Page, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
}

test('sign up, verify from the outbox, wait for approval, then sign in with an e-mail code', async ({ page }) => {
  const run = uniqueName();
  const email = `newcomer-${run}@acme.example`;
  const org = await createOrganization(`Signup Works ${run}`);

  await page.goto(`${origin()}/login`);
  await page.getByRole('link', { name: 'Sign up' }).click();
  await expect(page.getByRole('heading', { name: 'Sign Up' })).toBeVisible();

  // Bad input: each field shows its message and nothing reaches the server.
  await fill(page, { 'First name': 'Nora', 'E-mail': 'not-an-address', Password: 'short1', 'Confirm password': 'short1' });
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await expect(page.getByText(INVALID_EMAIL_MESSAGE)).toBeVisible();
  await expect(page.getByText(PASSWORD_TOO_SHORT).first()).toBeVisible();
  await fill(page, { 'E-mail': email, Password: 'nora-pass-1', 'Confirm password': 'nora-pass-2' });
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await expect(page.getByText('The two passwords do not match.')).toBeVisible();
  expect(mailsTo(email)).toHaveLength(0);

  await fill(page, { 'Confirm password': 'nora-pass-1' });
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await expect(page.getByText(VERIFICATION_SENT).first()).toBeVisible();
  // The login screen follows after the spec's 3 s.
  await expect(page).toHaveURL(`${origin()}/login`, { timeout: 6_000 });

  // The link in the e-mail confirms the address; the admins are told.
  const link = verifyPathIn(await nextMail(email, 0));
  expect(link).not.toBe('');
  await page.goto(`${origin()}${link}`);
  await expect(page.getByText(ADMIN_NOTIFIED).first()).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/login`, { timeout: 6_000 });

  // Before approval, signing in says so and signs nobody in.
  await fill(page, { 'E-mail': email, Password: 'nora-pass-1' });
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText(ADMIN_NOTIFIED).first()).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/login`);

  await approveUser(email, 'org_user', org.id);
  await uiLogin(page, email, 'nora-pass-1');
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/home`);
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
});

test('a bad verification link says so', async ({ page }) => {
  await page.goto(`${origin()}/verify-email/not-a-real-token`);
  await expect(page.getByText('Token expired/Invalid!').first()).toBeVisible();
});

test('a forgotten password is reset through the e-mailed link', async ({ page }) => {
  const run = uniqueName();
  const email = `forgetful-${run}@acme.example`;
  const org = await createOrganization(`Reset Works ${run}`);
  await createUser(email, 'old-pass-1', 'org_user', org.id);

  await page.goto(`${origin()}/login`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { name: 'Forgot Password' })).toBeVisible();
  await fill(page, { 'E-mail': 'nobody' });
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByText(INVALID_EMAIL_MESSAGE)).toBeVisible();
  const before = mailsTo(email).length;
  await fill(page, { 'E-mail': email });
  await page.getByRole('button', { name: 'Send reset link' }).click();
  const link = resetPathIn(await nextMail(email, before));
  expect(link).not.toBe('');

  await page.goto(`${origin()}${link}`);
  await expect(page.getByRole('heading', { name: 'Reset Password' })).toBeVisible();
  await fill(page, { 'New password': 'new-pass-2', 'Confirm password': 'new-pass-2' });
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page).toHaveURL(`${origin()}/login`, { timeout: 6_000 });

  await uiLogin(page, email, 'new-pass-2');
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/home`);
});

test('a signed-in user changes their password, and only the new one works after', async ({ page }) => {
  const run = uniqueName();
  const email = `changer-${run}@acme.example`;
  const org = await createOrganization(`Change Works ${run}`);
  await createUser(email, 'first-pass-1', 'org_admin', org.id);
  await uiLogin(page, email, 'first-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);

  await page.goto(`${site}/change-password`);
  await fill(page, { 'Current password': 'wrong-pass-1', 'New password': 'second-pass-2', 'Confirm new password': 'second-pass-2' });
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByRole('alert').first()).toBeVisible();
  await fill(page, { 'Current password': 'first-pass-1' });
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Your changes have been saved!').first()).toBeVisible();
  await expect(page).toHaveURL(`${site}/user/home`);

  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(`${origin()}/login`);
  await fill(page, { 'E-mail': email, Password: 'first-pass-1' });
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Unable to log in with provided credentials.').first()).toBeVisible();
  const before = mailsTo(email).length;
  await fill(page, { Password: 'second-pass-2' });
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Verify Code' })).toBeVisible();
  await page.getByLabel('6-digit code').fill(codeIn(await nextMail(email, before)));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${site}/user/home`);
});

test('one-time codes by SMS: a bad number is refused, a good one gets the code', async ({ page }) => {
  const run = uniqueName();
  const email = `texter-${run}@acme.example`;
  const number = `+49151${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  const org = await createOrganization(`Sms Works ${run}`);
  await createUser(email, 'texter-pass-1', 'org_user', org.id);

  await page.goto(`${origin()}/login`);
  await fill(page, { 'E-mail': email, Password: 'texter-pass-1' });
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Select Verification Method' })).toBeVisible();
  await page.getByRole('button', { name: 'SMS' }).click();
  await fill(page, { 'Mobile number': '12' });
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByText('Enter a valid mobile number, e.g. +4915112345678.').first()).toBeVisible();
  expect(smsTo('12')).toHaveLength(0);

  await fill(page, { 'Mobile number': number });
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByRole('heading', { name: 'Verify Code' })).toBeVisible();
  await expect.poll(() => smsTo(number).length).toBe(1);
  const code = codeIn(smsTo(number)[0] ?? '');
  expect(code).toMatch(/^\d{6}$/);
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/home`);
});
