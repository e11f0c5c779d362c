/**
 * Every role signs in through the portal (password, e-mail code from the outbox, the
 * organisation picked automatically and the session carried to the organisation's
 * sub-domain) and lands where section 2 says, with the sidebar of section 6; a route
 * outside the role's list sends it to its landing screen; logout returns to /login.
 * The expectations are written out from the spec here, not taken from the portal's
 * own tables.
 */
import { expect, test } from '@playwright/test';

import type { Organization } from '../src/api/generated';
import { createOrganization, createUser, expectNoSidebar, origin, sidebarEntries, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'role-pass-1';

/** The user area's entries an organisation without subscriptions shows (the gated
 * entries of section 6, and Pathfinder, hidden). */
const LEAN = ['Analytics', 'Line Analytics', 'Trace', 'Cycle Trace', 'Line Visibility', 'Issue Center', 'Line', 'Kaizen Assistant'];
const WITH_USERS = [
  'Dashboard', ...LEAN, 'Cameras', 'Users', 'Add Device', 'Label Training Set', 'Train Model', 'Validation',
  'User Manuals', 'App Fundamentals',
];
const WITHOUT_USERS = WITH_USERS.filter((e) => e !== 'Users');
/** The organisation admin also reads the audit log (issue 28), after Add Device. */
const ORG_ADMIN = WITH_USERS.flatMap((e) => (e === 'Add Device' ? [e, 'Audit Log'] : [e]));

/** `onBase`: super admins and labelers skip the organisation step (docs/decisions.md,
 * "Portal sign-in"), so they stay on the host they signed in on. */
const EXPECTED: { role: string; landing: string; heading: string; sidebar: string[]; onBase?: boolean }[] = [
  { role: 'org_admin', landing: '/user/home', heading: 'Dashboard', sidebar: ORG_ADMIN },
  { role: 'org_user', landing: '/user/home', heading: 'Dashboard', sidebar: WITHOUT_USERS },
  { role: 'support_user', landing: '/user/home', heading: 'Dashboard', sidebar: WITH_USERS },
  { role: 'user', landing: '/user/home', heading: 'Dashboard', sidebar: WITH_USERS },
  { role: 'doc_user', landing: '/user/user-manual', heading: 'User Manuals', sidebar: WITH_USERS },
  {
    role: 'analytics_user',
    landing: '/user/analytics',
    heading: 'Analytics',
    sidebar: ['Analytics', 'Line Analytics', 'Trace', 'Cycle Trace', 'Line Visibility', 'Issue Center', 'Kaizen Assistant'],
  },
  { role: 'labeler', landing: '/labeler/tasks', heading: 'Operations Requested', sidebar: ['Tasks Requested', 'Profile Setting'], onBase: true },
];

let org: Organization;
const email = (role: string) => `${role.replace('_', '-')}-${org.name}@acme.example`;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  org = await createOrganization(`Role Works ${uniqueName()}`);
  // Side by side: each is its own address's sign-up, verification and approval.
  await Promise.all([...EXPECTED, { role: 'workstation_user' }].map(({ role }) => createUser(email(role), PASSWORD, role, org.id)));
});

for (const want of EXPECTED) {
  test(`${want.role} lands on ${want.landing} with its sidebar; a forbidden route and logout`, async ({ page }) => {
    await uiLogin(page, email(want.role), PASSWORD);
    // One organisation: picked automatically, then the session moves to its sub-domain.
    const site = want.onBase ? origin() : origin(`${org.name}.localhost`);
    await expect(page).toHaveURL(`${site}${want.landing}`);
    await expect(page.getByRole('heading', { name: want.heading, level: 1 })).toBeVisible();
    // The hand-over parameter is gone from the address.
    expect(new URL(page.url()).searchParams.has('config')).toBe(false);
    expect(await sidebarEntries(page)).toEqual(want.sidebar);
    // The focused portal keeps an activity session (section 4) on the server.
    await expect.poll(() => page.evaluate(() => localStorage.getItem('sessionId'))).toMatch(/^\d+$/);

    // Outside the role's list: back to the landing screen.
    await page.goto(`${site}/admin/organizations`);
    await expect(page).toHaveURL(`${site}${want.landing}`);
    const foreign = want.role === 'labeler' ? '/user/home' : '/labeler/tasks';
    await page.goto(`${site}${foreign}`);
    await expect(page).toHaveURL(`${site}${want.landing}`);

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByRole('heading', { name: 'Login' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    // Signed out, a protected screen asks for the login again.
    await page.goto(`${origin()}${want.landing}`);
    await expect(page).toHaveURL(`${origin()}/login`);
  });
}

test('workstation_user gets no landing page and no menu', async ({ page }) => {
  await uiLogin(page, email('workstation_user'), PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/`);
  await expect(page.getByRole('button', { name: 'Log out' })).toBeVisible();
  await expectNoSidebar(page);
  await page.goto(`${site}/user/home`);
  await expect(page).toHaveURL(`${site}/`);
  await expectNoSidebar(page);
});

test('a subscription shows its gated entry and opens its screen; without one a direct visit is refused', async ({ page }) => {
  const run = uniqueName();
  const sub = await createOrganization(`Feature Works ${run}`);
  await subscribe(sub.id, 'Devices');
  const who = `subscriber-${run}@acme.example`;
  await createUser(who, PASSWORD, 'org_admin', sub.id);
  await uiLogin(page, who, PASSWORD);
  const site = origin(`${sub.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  // The gated entries show once the organisation's features have arrived.
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' })).toBeVisible();
  expect(await sidebarEntries(page)).not.toContain('Define Operation');
  await page.getByRole('link', { name: 'Devices' }).click();
  await expect(page).toHaveURL(`${site}/user/devices`);
  await page.goto(`${site}/user/process`);
  await expect(page).toHaveURL(`${site}/user/home`);
});
