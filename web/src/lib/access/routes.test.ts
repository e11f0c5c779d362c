import { paths } from '@/config/paths';

import { ROLES, type Role } from './roles';
import { ROUTES, canOpen, matchPath, ruleFor } from './routes';

const userArea = [
  'temp', 'home', 'process', 'record', 'train', 'deploy', 'models', 'tasks', 'devices', 'devices/7', 'opc',
  'cameras', 'remote-devices', 'analytics', 'line-analytics', 'trace', 'trace/abc', 'org-users', 'setting',
  'user-manual', 'fundamentals', 'add-device', 'label-data', 'issue-center', 'line', 'line-visibility',
].map((p) => `/user/${p}`);
const adminArea = [
  'tampering-requests', 'organizations', 'users', 'roles', 'pending-users', 'devices', 'archived-cycles', 'tasks',
  'updates', 'instances', 'trained-tasks', 'annotations', 'labelers', 'task-videos/3/Assembly', 'user-report',
  'barcode', 'aws-token', 'feature-control', 'model-versions', 'model-types', 'event-notification',
].map((p) => `/admin/${p}`);
const labelerArea = ['/labeler/tasks', '/labeler/setting', '/labeler/videos/acme/Assembly/3'];
const publicPages = [
  '/login', '/signup', '/privacy-policy', '/resend-verification', '/verify-email/tok', '/forgot-password',
  '/reset-password/tok', '/change-password', '/admin-login',
];

const opens = (role: Role) => [...userArea, ...adminArea, ...labelerArea, '/cycle-trace', '/cycle-trace/9'].filter((p) => canOpen(role, p));

test('every route of spec section 2 is in the table at its exact path', () => {
  for (const p of [...userArea, ...adminArea, ...labelerArea, ...publicPages, '/organizations', '/cycle-trace', '/cycle-trace/t1']) {
    expect(ruleFor(p), p).toBeDefined();
  }
  expect(ruleFor('/user/nope')).toBeUndefined();
  expect(ruleFor('/cycle-trace/a/b')).toBeUndefined();
  expect(new Set(ROUTES.map((r) => r.path)).size).toBe(ROUTES.length);
});

test('matchPath handles parameters, optional parameters and trailing slashes', () => {
  expect(matchPath('/user/devices/:id', '/user/devices/12')).toBe(true);
  expect(matchPath('/user/devices/:id', '/user/devices')).toBe(false);
  expect(matchPath('/cycle-trace/:traceId?', '/cycle-trace')).toBe(true);
  expect(matchPath('/cycle-trace/:traceId?', '/cycle-trace/x/')).toBe(true);
  expect(matchPath('/user/home', '/user/homes')).toBe(false);
});

test('the labeler reaches only the labeler area', () => {
  expect(opens('labeler')).toEqual(labelerArea);
});

test('admin routes are for the super admin only', () => {
  for (const r of ROLES) for (const p of adminArea) expect(canOpen(r, p), `${r} ${p}`).toBe(r === 'admin');
});

test('the analytics user reaches analytics, line analytics, trace, issue center, line visibility and cycle trace', () => {
  expect(opens('analytics_user')).toEqual([
    '/user/analytics', '/user/line-analytics', '/user/trace', '/user/trace/abc', '/user/issue-center',
    '/user/line-visibility', '/cycle-trace', '/cycle-trace/9',
  ]);
});

test('org admin, support user and user reach every user screen except temp (user: temp too)', () => {
  for (const r of ['org_admin', 'support_user'] as const) {
    expect(opens(r)).toEqual([...userArea.filter((p) => p !== '/user/temp'), '/cycle-trace', '/cycle-trace/9']);
  }
  expect(opens('user')).toEqual([...userArea, '/cycle-trace', '/cycle-trace/9']);
});

test('the org user has temp but no Users screen', () => {
  expect(opens('org_user')).toEqual([...userArea.filter((p) => p !== '/user/org-users'), '/cycle-trace', '/cycle-trace/9']);
});

test('the docs user reaches the user screens without OPC and temp, manuals and fundamentals included', () => {
  const got = opens('doc_user');
  expect(got).toContain(paths.user.userManual);
  expect(got).toContain(paths.user.fundamentals);
  expect(got).toContain(paths.user.orgUsers);
  expect(got).not.toContain(paths.user.opc);
  expect(got).not.toContain(paths.user.temp);
});

test('the workstation user reaches no screen', () => {
  expect(opens('workstation_user')).toEqual([]);
});

test('the Users screen follows the server permission ViewOrgUsers', () => {
  expect(ROLES.filter((r) => canOpen(r, '/user/org-users')).sort()).toEqual(['admin', 'doc_user', 'org_admin', 'support_user', 'user']);
});
