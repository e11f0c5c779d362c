/**
 * Single sign-on in the browser (issue 28) against a real OpenID provider
 * (`tests/oidc/provider.mjs`, started by global-setup.ts as the deployment's Microsoft
 * and Google sign-in): sign up with Microsoft (an account awaiting approval), then,
 * approved, sign in with Microsoft on the provider's own page and land signed in; an
 * address the provider has not verified is refused with the server's message.
 */
import { type Page, expect, test } from '@playwright/test';

import { approveUser, codeIn, createOrganization, mailsTo, nextMail, origin, uniqueName } from './env';

const ADMIN_NOTIFIED = 'Admin has been notified. Your account will be approved within 24 Hours.';

const issuer = () => {
  const i = process.env.GEMBA_E2E_OIDC;
  if (!i) throw new Error('GEMBA_E2E_OIDC unset: global-setup.ts starts the provider');
  return i;
};

/** Presses a single sign-on button and, when the provider asks (it remembers a browser
 * signed in there), signs `login` in on the provider's own page. */
async function viaProvider(page: Page, button: string, login: string) {
  const answered = page.waitForResponse((r) => /\/api\/account\/(azure-sign(in|up)|google-sso)\/$/.test(r.url()));
  await page.getByRole('button', { name: button }).click();
  const form = page.locator('input[name="login"]');
  const first = await Promise.race([form.waitFor().then(() => 'form'), answered.then(() => 'back')]);
  if (first === 'form') {
    expect(new URL(page.url()).origin).toBe(issuer());
    await form.fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await answered;
  }
}

test('sign up with Microsoft, wait for approval, then sign in with Microsoft', async ({ page }) => {
  const run = uniqueName();
  const email = `sso-${run}@acme.example`;
  const org = await createOrganization(`Sso Works ${run}`);

  await page.goto(`${origin()}/signup`);
  await viaProvider(page, 'Sign up with Microsoft', email);
  await expect(page.getByText(ADMIN_NOTIFIED).first()).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/login`);
  // The super admins are told, as for a confirmed sign-up.
  expect(mailsTo('admin@gemba.local').some((m) => m.includes(email))).toBe(true);

  // Before approval: the spec's pending answer, nobody signed in.
  await viaProvider(page, 'Sign in with Microsoft', email);
  await expect(page.getByText(ADMIN_NOTIFIED).first()).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/login`);

  await approveUser(email, 'org_user', org.id);
  const before = mailsTo(email).length;
  await viaProvider(page, 'Sign in with Microsoft', email);
  // The deployment's one-time code follows, as after a password.
  await expect(page.getByRole('heading', { name: 'Select Verification Method' })).toBeVisible();
  await page.getByRole('button', { name: 'E-mail' }).click();
  await page.getByLabel('6-digit code').fill(codeIn(await nextMail(email, before)));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/home`);
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('azureLogin'))).toBe('true');
});

test('an address the provider has not verified is refused', async ({ page }) => {
  const email = `unverified-${uniqueName()}@acme.example`;
  await page.goto(`${origin()}/signup`);
  await viaProvider(page, 'Sign up with Google', `unverified:${email}`);
  await expect(page.getByText('The identity provider has not verified this e-mail address').first()).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/login`);
  expect(mailsTo('admin@gemba.local').some((m) => m.includes(email))).toBe(false);
});
