/**
 * Accessibility against the real server (issue 33): axe-core (`@axe-core/playwright`)
 * checks every route of section 2 as a role allowed to open it, and each role's landing
 * screen, on an organisation with data (an operation with a target, a device with good
 * and bad cycles, a line, a video asked of a labeler), so screens show their tables and
 * charts rather than empty states. Any `serious` or `critical` violation fails, listed
 * by screen, rule and element. One browser context per role, signed in once; the route
 * list is checked against the portal's own route table, so a new route needs a visit
 * here. A keyboard walk on the Dashboard and on Label Training Set reaches their main
 * actions with Tab alone and works them with the keyboard.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import AxeBuilder from '@axe-core/playwright';
import { type Page, expect, test } from '@playwright/test';

import type { Organization, Task } from '../src/api/generated';
import { ROUTES } from '../src/lib/access/routes';
import { pageTitle } from '../src/lib/page-title';
import {
  addDevice,
  adminGet,
  adminSend,
  adminUiLogin,
  codeIn,
  createOrganization,
  createTask,
  createUser,
  enrolDevice,
  mailsTo,
  midnightOf,
  nextMail,
  origin,
  patchTask,
  sayStatus,
  sendCycles,
  subscribe,
  uiLogin,
  uniqueName,
  uploadVideo,
} from './env';

const PASSWORD = 'a11y-pass-1';
const FOOTAGE = join(process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url)), 'demo.mp4');
/** The checks: WCAG 2.1 A and AA, and axe's best practices (landmarks, headings). */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const BLOCKING = new Set(['serious', 'critical']);

// Reduced motion (sonner and the portal honour it): a toast is then shown or gone, never
// half-faded. Its default 5 s can end while axe runs, and a toast fading out mid-analysis
// read as a 1.43:1 contrast failure on the labeler's screen (CI, stop 44).
test.use({ reducedMotion: 'reduce' });

let org: Organization;
let task: Task;
let device = 0;
let cycleId = '';
const email = (role: string) => `a11y-${role.replace('_', '-')}-${org.name}@acme.example`;
const site = () => origin(`${org.name}.localhost`);
/** A screen to audit: its route pattern (ROUTES' `path`), the address opened (else the
 * pattern), the path it ends at (else the address's), and the dialog it shows open. */
type Visit = { route: string; path?: () => string; at?: () => string; dialog?: string };
const at = (route: string, path?: () => string, end?: () => string): Visit => ({ route, path, at: end });

const PUBLIC: Visit[] = [
  ...['/login', '/admin-login', '/signup', '/resend-verification', '/forgot-password', '/privacy-policy', '/sso-callback'].map((r) => at(r)),
  at('/verify-email/:token', () => '/verify-email/not-a-token'),
  at('/reset-password/:token', () => '/reset-password/not-a-token'),
];
/** Reached on the way in: the sign-in's code steps, the organisation picker (the
 * organisation admin belongs to two), then the landing screen. */
const SIGN_IN = ['/otp-selection', '/otp-verification', '/organizations', '/user/home'];
/** The organisation admin's screens: the whole user area. */
const USER_AREA: Visit[] = [
  ...[
    '/user/process',
    '/user/record',
    '/user/train',
    '/user/deploy',
    '/user/models',
    '/user/validation',
    '/user/tasks',
    '/user/devices',
    '/user/opc',
    '/user/cameras',
    '/user/remote-devices',
    '/user/analytics',
    '/user/line-analytics',
    '/user/trace',
    '/user/org-users',
    '/user/setting',
    '/user/user-manual',
    '/user/fundamentals',
    '/user/add-device',
    '/user/issue-center',
    '/user/line',
    '/user/line-visibility',
    '/user/assistant',
    '/audit-log',
    '/change-password',
  ].map((r) => at(r)),
  at('/user/devices/:id', () => `/user/devices/${device}`),
  // Live view: a camera's full-screen player on Cameras.
  { ...at('/user/cameras', () => `/user/cameras?watch=${device}/cam0`), dialog: 'cam0 on Bench 7' },
  at('/user/label-data', () => `/user/label-data?task=${task.id}`, () => '/user/label-data'),
  at('/cycle-trace/:traceId?', () => `/cycle-trace/${cycleId}`),
  at('/user/trace/:traceId', () => `/user/trace/${cycleId}`, () => `/cycle-trace/${cycleId}`),
];
/** The organisation user's own screen beside its landing. */
const TEMP: Visit[] = [at('/user/temp')];
const LABELER = ['/labeler/tasks', '/labeler/videos/:organization/:taskName/:taskId', '/labeler/setting'];
const ADMIN_AREA: Visit[] = [
  ...ROUTES.filter((r) => r.path.startsWith('/admin/') && !r.path.includes(':')).map((r) => at(r.path)),
  at('/admin/task-videos/:taskId/:taskName', () => `/admin/task-videos/${task.id}/${encodeURIComponent(task.taskName)}`),
];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  org = await createOrganization(`Access Works ${uniqueName()}`);
  for (const f of ['Devices', 'Define Operation', 'Record Training Set', 'Deploy Model', 'OPCUA Explorer']) await subscribe(org.id, f);
  task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  await patchTask(org.id, task.id, { stepsAvgTime: { cycle_time: 40 } });
  const paint = await createTask(org.id, 'Paint body\nMask:\nTape edges;\nSpray:\nSpray coat;\n');
  const d1 = await enrolDevice((await addDevice(org.id, 'Bench 7')).code);
  const d2 = await enrolDevice((await addDevice(org.id, 'Booth 2')).code);
  device = d1.device;
  await sayStatus(d1, true, ['cam0']);
  const now = Date.now();
  const base = Math.max(midnightOf(now) + 60_000, now - 40 * 60_000);
  const cycles = (dur: number, shift: number) =>
    Array.from({ length: 6 }, (_, i) => ({ start_ms: base + i * 5 * 60_000 + shift, end_ms: base + i * 5 * 60_000 + shift + dur, good: i % 3 !== 2 }));
  await sendCycles(d1, task.id, cycles(44_000, 0));
  await sendCycles(d2, paint.id, cycles(50_000, 45_000));
  await adminSend(org.id, 'POST', 'telemetry/trace/line/', {
    name: 'Body line',
    takt_time_s: 45,
    stations: [
      { task: task.id, device: d1.device },
      { task: paint.id, device: d2.device },
    ],
  });
  await expect
    .poll(async () => (cycleId = (await adminGet<{ results: { id: string }[] }>(org.id, `telemetry/fetch_cycles/v2?task=${task.id}&page_size=20`)).results[0]?.id ?? ''))
    .not.toBe('');
  await uploadVideo(org.id, task.id, FOOTAGE);
  // Side by side: each is its own address's sign-up, verification and approval. A
  // super admin of this spec's own: the shared one's e-mail codes (five in ten minutes)
  // are the run's set-up's and `admin.spec.ts`'s.
  await Promise.all([
    ...['org_admin', 'org_user', 'support_user', 'user', 'doc_user', 'analytics_user'].map((role) => createUser(email(role), PASSWORD, role, org.id)),
    createUser(email('labeler'), PASSWORD, 'labeler', null),
    createUser(email('admin'), PASSWORD, 'admin', null),
  ]);
  // A second organisation: the organisation admin picks one after signing in.
  const other = await createOrganization(`Access Annex ${uniqueName()}`);
  await adminSend(other.id, 'PUT', 'account/assign_user_org', { email: email('org_admin'), organization: other.id });
  await adminSend(org.id, 'POST', `organization/task/${task.id}/labelers/`, { email: email('labeler') });
});

/** Waits until the screen has drawn: a level-1 heading, no spinner, no "Loading …", and
 * no toast still fading in (axe would measure its half-transparent text's contrast). */
async function settled(page: Page): Promise<void> {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await expect(page.locator('.spinner')).toHaveCount(0);
  await expect(page.getByText(/^Loading\b.*…$/)).toHaveCount(0);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-sonner-toast]')].every(
      (t) =>
        t.getAttribute('data-mounted') === 'true' &&
        t.getAnimations({ subtree: true }).every((a) => a.playState !== 'running'),
    ),
  );
}

/** Runs axe on the screen shown; answers its blocking violations as readable lines. */
async function audit(page: Page, where: string): Promise<string[]> {
  await settled(page);
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return violations
    .filter((v) => BLOCKING.has(v.impact ?? ''))
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 4)
        .map((n) => `      ${n.target.join(' ')}: ${(n.failureSummary ?? '').split('\n').slice(1).join(' ').trim()}`);
      const more = v.nodes.length > 4 ? [`      … and ${v.nodes.length - 4} more`] : [];
      return [`${where} [${v.impact}] ${v.id}: ${v.help}`, ...nodes, ...more].join('\n');
    });
}

/** Opens each of `visits` on `host` in turn and audits it; answers what they found.
 * Within the portal a screen is reached as its links reach it (no reload), unless
 * `reload` (the public screens that act on their address when loaded). */
async function visitAll(page: Page, host: string, visits: Visit[], reload = false): Promise<string[]> {
  const found: string[] = [];
  for (const v of visits) {
    const path = v.path?.() ?? v.route;
    const end = v.at?.() ?? new URL(path, host).pathname;
    if (!reload && new URL(page.url()).origin === host) {
      // Within the portal, as its links go (no reload: the session and scripts stay);
      // the title changes once the new screen is drawn.
      await page.evaluate((p) => {
        history.pushState(null, '', p);
        dispatchEvent(new PopStateEvent('popstate'));
      }, path);
      await expect(page).toHaveTitle(pageTitle(end));
    } else {
      await page.goto(`${host}${path}`);
    }
    // Still there: the role may open it (no redirect to its landing screen).
    await expect(page).toHaveURL((u) => u.pathname === end);
    if (v.dialog) await expect(page.getByRole('dialog', { name: v.dialog })).toBeVisible();
    found.push(...(await audit(page, path === v.route ? v.route : `${v.route} (${path})`)));
  }
  return found;
}

/** Fails with every violation found, one block each. */
function expectNone(found: string[]): void {
  expect(found, `axe found serious or critical violations:\n${found.join('\n')}`).toEqual([]);
}

test('the public screens', async ({ page }) => {
  expectNone(await visitAll(page, origin(), PUBLIC, true));
});

test('the organisation admin: sign-in steps, landing, the user area', async ({ page }) => {
  test.setTimeout(180_000);
  const found: string[] = [];
  // The sign-in's own steps: choosing how to get the code, then the code.
  await page.goto(`${origin()}/login`);
  await page.getByLabel('E-mail').fill(email('org_admin'));
  await page.getByLabel('Password').fill(PASSWORD);
  const before = mailsTo(email('org_admin')).length;
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/otp-selection$/);
  found.push(...(await audit(page, '/otp-selection')));
  await page.getByRole('button', { name: 'E-mail' }).click();
  await expect(page).toHaveURL(/\/otp-verification$/);
  found.push(...(await audit(page, '/otp-verification')));
  await page.getByLabel('6-digit code').fill(codeIn(await nextMail(email('org_admin'), before)));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${origin()}/organizations`);
  await expect(page.getByRole('button', { name: org.org_name_to_display })).toBeVisible();
  found.push(...(await audit(page, '/organizations')));
  await page.getByRole('button', { name: org.org_name_to_display }).click();
  await expect(page).toHaveURL(`${site()}/user/home`);
  found.push(...(await audit(page, 'landing /user/home')));
  // Its sidebar has every gated entry (the features are subscribed).
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'OPC' })).toBeVisible();

  found.push(...(await visitAll(page, site(), USER_AREA)));
  expectNone(found);
});

/** Presses Tab (at most `max` times) until `name`'s button has the focus; answers the presses. */
async function tabTo(page: Page, name: string, max = 80): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? { tag: el.tagName, text: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() } : null;
    });
    if (at?.tag === 'BUTTON' && at.text === name) return i;
  }
  throw new Error(`${max} presses of Tab did not reach the button ${name}`);
}

test('the keyboard alone reaches and works a screen\'s main action', async ({ page }) => {
  await uiLogin(page, email('org_user'), PASSWORD);
  await expect(page).toHaveURL(`${site()}/user/home`);
  await page.goto(`${site()}/user/line`);
  await settled(page);
  // From the top of the page: through the header and the sidebar to "Create Line".
  await page.locator('body').focus();
  await tabTo(page, 'Create Line');
  const create = page.getByRole('button', { name: 'Create Line' });
  await expect(create).toBeFocused();
  // The focus is drawn (the :focus-visible ring).
  expect(await create.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Create Line' });
  await expect(dialog.getByLabel('Line name')).toBeFocused();
  // Tab stays in the dialog; Escape closes it and the focus returns to the button.
  for (let i = 0; i < 12; i++) await page.keyboard.press('Tab');
  expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(create).toBeFocused();

  // Label Training Set: the labeling keys on the video, then Save reached by Tab.
  await page.goto(`${site()}/user/label-data?task=${task.id}`);
  await settled(page);
  await page.locator('body').focus();
  await tabTo(page, 'Label demo.mp4');
  await page.keyboard.press('Enter');
  const player = page.getByLabel('Labeling demo.mp4');
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState >= 1)).toBe(true);
  await page.keyboard.press('1');
  await page.keyboard.press('s');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('e');
  await expect(page.getByRole('table', { name: 'Segments' }).getByRole('row')).toHaveCount(2);
  await tabTo(page, 'Save labels');
  await page.keyboard.press('Enter');
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
});

/** The roles that land on a screen of their own or hold a route of their own. */
for (const role of ['org_user', 'support_user', 'user', 'doc_user', 'analytics_user']) {
  test(`${role}: landing`, async ({ page }) => {
    await uiLogin(page, email(role), PASSWORD);
    const landing = role === 'doc_user' ? '/user/user-manual' : role === 'analytics_user' ? '/user/analytics' : '/user/home';
    await expect(page).toHaveURL(`${site()}${landing}`);
    const found = await audit(page, `${role} landing ${landing}`);
    // The temporary screen is the organisation user's and the user's alone.
    if (role === 'org_user') found.push(...(await visitAll(page, site(), TEMP)));
    expectNone(found);
  });
}

test('the labeler: landing, the videos asked of them, profile', async ({ page }) => {
  await uiLogin(page, email('labeler'), PASSWORD);
  await expect(page).toHaveURL(`${origin()}/labeler/tasks`);
  const found = await audit(page, 'labeler landing /labeler/tasks');
  await page.getByRole('link', { name: 'Videos of Assemble pump' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Assemble pump' })).toBeVisible();
  found.push(...(await audit(page, '/labeler/videos/:organization/:taskName/:taskId')));
  found.push(...(await visitAll(page, origin(), [at('/labeler/setting')])));
  expectNone(found);
});

test('the super admin: landing and the admin area', async ({ page }) => {
  test.setTimeout(120_000);
  await adminUiLogin(page, email('admin'), PASSWORD);
  const found = await audit(page, 'admin landing /admin/organizations');
  found.push(...(await visitAll(page, origin('admin.localhost'), ADMIN_AREA.filter((v) => v.route !== '/admin/organizations'))));
  expectNone(found);
});

test('every route of the route table has a visit here', () => {
  const visited = new Set([...[PUBLIC, USER_AREA, TEMP, ADMIN_AREA].flat().map((v) => v.route), ...SIGN_IN, ...LABELER]);
  expect(ROUTES.map((r) => r.path).filter((p) => !visited.has(p))).toEqual([]);
});
