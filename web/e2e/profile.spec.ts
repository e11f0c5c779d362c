/**
 * Profile Setting against the real server: an org user changes their password at
 * /user/setting (only the new one signs in after), their e-mail address through the
 * mailed link, and their sign-in codes to an authenticator app; a labeler opens /labeler/setting from the sidebar, sees their details and
 * confirms a new address with the code from the mail (the link opens the user area,
 * which is not theirs).
 */
import { type Locator, type Page, expect, test } from '@playwright/test';

import { createOrganization, createUser, mailsTo, nextMail, openFromMenu, origin, scanQr, totp, uiLogin, uniqueName } from './env';

const PASSWORD_CHANGED = 'Your password has been changed. You are signed out on your other devices and browsers.';
const EMAIL_CHANGED = 'Your e-mail address has been changed.';

async function fill(scope: Page | Locator, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) await scope.getByLabel(label, { exact: true }).fill(value);
}

/** The details the screen shows, as label → value. */
async function details(page: Page): Promise<Record<string, string>> {
  const region = page.getByRole('region', { name: 'Your details' });
  await expect(region).toBeVisible();
  const terms = await region.getByRole('term').allInnerTexts();
  const values = await region.getByRole('definition').allInnerTexts();
  return Object.fromEntries(terms.map((t, i) => [t.trim(), (values[i] ?? '').trim()]));
}

/** The token of the address-change mail (`…/user/setting?verify-email-change={token}`). */
const changeTokenIn = (mail: string) => /verify-email-change=([A-Za-z0-9_-]+)/.exec(mail)?.[1] ?? '';

async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(`${origin()}/login`);
}

test('a user changes their password in Profile Settings, and only the new one signs in after', async ({ page }) => {
  const run = uniqueName();
  const email = `profile-${run}@acme.example`;
  const org = await createOrganization(`Profile Works ${run}`);
  await createUser(email, 'first-pass-1', 'org_user', org.id);
  await uiLogin(page, email, 'first-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);

  await page.goto(`${site}/user/setting`);
  await expect(page.getByRole('heading', { level: 1, name: 'Profile Settings' })).toBeVisible();
  expect(await details(page)).toEqual({
    Name: 'org user',
    'E-mail': email,
    Role: 'Organization User',
    Organization: `Profile Works ${run}`,
  });

  const form = page.getByRole('form', { name: 'Change password' });
  // Checked before sending: nothing reaches the server.
  await fill(form, { 'Current password': 'first-pass-1', 'New password': 'short1', 'Confirm new password': 'short1' });
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByText('This password is too short. It must contain at least 8 characters.')).toBeVisible();
  // The server's answer for a wrong current password shows under that field.
  await fill(form, { 'Current password': 'wrong-pass-1', 'New password': 'second-pass-2', 'Confirm new password': 'second-pass-2' });
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('alert')).toHaveText('Your old password is not correct.');
  await fill(form, { 'Current password': 'first-pass-1' });
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('status')).toHaveText(PASSWORD_CHANGED);
  await expect(form.getByLabel('New password', { exact: true })).toHaveValue('');
  // This session goes on.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Profile Settings' })).toBeVisible();

  await logOut(page);
  await fill(page, { 'E-mail': email, Password: 'first-pass-1' });
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Unable to log in with provided credentials.').first()).toBeVisible();
  await uiLogin(page, email, 'second-pass-2');
  await expect(page).toHaveURL(`${site}/user/home`);
});

test('a user changes their e-mail address: the link goes to the new address and confirms it', async ({ page }) => {
  const run = uniqueName();
  const email = `moving-${run}@acme.example`;
  const moved = `moved-${run}@acme.example`;
  const org = await createOrganization(`Moving Works ${run}`);
  await createUser(email, 'moving-pass-1', 'org_user', org.id);
  await uiLogin(page, email, 'moving-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/setting`);

  const form = page.getByRole('form', { name: 'Change e-mail' });
  await fill(form, { 'New e-mail': 'not-an-address', 'Current password': 'moving-pass-1' });
  await form.getByRole('button', { name: 'Send confirmation link' }).click();
  await expect(form.getByText('Enter a valid email address.')).toBeVisible();
  await fill(form, { 'New e-mail': moved, 'Current password': 'wrong-pass-1' });
  await form.getByRole('button', { name: 'Send confirmation link' }).click();
  await expect(form.getByRole('alert')).toHaveText('Your password is not correct.');
  expect(mailsTo(moved)).toHaveLength(0);

  await fill(form, { 'Current password': 'moving-pass-1' });
  await form.getByRole('button', { name: 'Send confirmation link' }).click();
  await expect(form.getByRole('status')).toHaveText(`A confirmation link has been sent to ${moved}. Open it to finish the change.`);
  const mail = await nextMail(moved, 0);
  const token = changeTokenIn(mail);
  expect(token).not.toBe('');
  expect(mail).toContain(`/user/setting?verify-email-change=${token}`);

  // The link, opened where the user is signed in.
  await page.goto(`${site}/user/setting?verify-email-change=${token}`);
  await expect(page.getByText(`${EMAIL_CHANGED} Sign in with the new address from now on.`)).toBeVisible();
  await expect(page).toHaveURL(`${site}/user/setting`);

  await logOut(page);
  await uiLogin(page, moved, 'moving-pass-1');
  await expect(page).toHaveURL(`${site}/user/home`);
});

test('a labeler opens Profile Setting from the sidebar and confirms a new address with the mailed code', async ({ page }) => {
  const run = uniqueName();
  const email = `labeler-${run}@labels.example`;
  const moved = `relabeled-${run}@labels.example`;
  await createUser(email, 'labeler-pass-1', 'labeler', null);
  await uiLogin(page, email, 'labeler-pass-1');
  await expect(page).toHaveURL(/\/labeler\/tasks$/);

  await openFromMenu(page, 'Profile Setting');
  await expect(page).toHaveURL(/\/labeler\/setting$/);
  expect(await details(page)).toEqual({ Name: 'labeler', 'E-mail': email, Role: 'Labeler', Organization: 'None' });

  const form = page.getByRole('form', { name: 'Change e-mail' });
  await fill(form, { 'New e-mail': moved, 'Current password': 'labeler-pass-1' });
  await form.getByRole('button', { name: 'Send confirmation link' }).click();
  await expect(form.getByRole('status')).toContainText(`A confirmation link has been sent to ${moved}.`);
  const token = changeTokenIn(await nextMail(moved, 0));
  expect(token).not.toBe('');

  await page.getByText('I have the confirmation code from the e-mail').click();
  const confirm = page.getByRole('form', { name: 'Confirm new e-mail' });
  await fill(confirm, { 'Confirmation code': token });
  await confirm.getByRole('button', { name: 'Confirm new e-mail' }).click();
  await expect(confirm.getByRole('status')).toHaveText(EMAIL_CHANGED);
  expect((await details(page))['E-mail']).toBe(moved);

  await logOut(page);
  await uiLogin(page, moved, 'labeler-pass-1');
  await expect(page).toHaveURL(/\/labeler\/tasks$/);
});

test('a user switches their sign-in codes to an authenticator app, whose codes then sign them in', async ({ page }) => {
  const run = uniqueName();
  const email = `app-${run}@acme.example`;
  const org = await createOrganization(`App Works ${run}`);
  await createUser(email, 'app-pass-1', 'org_user', org.id);
  // The first sign-in sets up codes by e-mail.
  await uiLogin(page, email, 'app-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/setting`);

  const section = page.getByRole('region', { name: 'Two-step verification' });
  await section.getByRole('button', { name: 'Authenticator app' }).click();
  const uri = await scanQr(page);
  const form = section.getByRole('form', { name: 'Authenticator app setup' });
  await form.getByLabel('6-digit code').fill(totp(uri, Date.now() - 10 * 60_000));
  await form.getByRole('button', { name: 'Use this app' }).click();
  await expect(form.getByRole('alert')).toHaveText('Invalid or expired OTP.');
  await form.getByLabel('6-digit code').fill(totp(uri, Date.now()));
  await form.getByRole('button', { name: 'Use this app' }).click();
  await expect(section).toContainText('Current method: Authenticator app');

  await logOut(page);
  const mails = mailsTo(email).length;
  await fill(page, { 'E-mail': email, Password: 'app-pass-1' });
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Enter the 6-digit code your authenticator app shows.')).toBeVisible();
  // The step the set-up used is spent: the app's next code.
  await page.getByLabel('6-digit code').fill(totp(uri, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${site}/user/home`);
  expect(mailsTo(email)).toHaveLength(mails);
});
