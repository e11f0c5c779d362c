import { type GuardSession, decide } from './guard';
import type { Site } from './hosts';

const other: Site = { kind: 'other' };
const base: Site = { kind: 'base' };
const acme: Site = { kind: 'org', org: 'acme' };

const out: GuardSession = { signedIn: false, pendingOtp: false, isOtpSetup: false, role: null, organization: null };
const as = (role: GuardSession['role'], organization: number | null = 1): GuardSession => ({
  signedIn: true,
  pendingOtp: false,
  isOtpSetup: true,
  role,
  organization,
});

test('a signed-in user is bounced from login, signup and similar pages to their landing screen', () => {
  for (const p of ['/login', '/signup', '/resend-verification', '/forgot-password', '/reset-password/x', '/verify-email/x', '/admin-login']) {
    expect(decide(p, as('org_user'), other), p).toEqual({ kind: 'redirect', to: '/user/home' });
  }
  expect(decide('/login', as('labeler', null), other)).toEqual({ kind: 'redirect', to: '/labeler/tasks' });
});

test('signed-out visitors and sign-ins pending an OTP may use the public pages', () => {
  expect(decide('/login', out, other)).toEqual({ kind: 'allow' });
  expect(decide('/signup', { ...out, pendingOtp: true }, other)).toEqual({ kind: 'allow' });
});

test('privacy policy, OTP selection and change password stay reachable', () => {
  for (const s of [out, as('org_user'), { ...out, pendingOtp: true }]) {
    for (const p of ['/privacy-policy', '/otp-selection', '/otp-verification', '/change-password']) {
      expect(decide(p, s, base), p).toEqual({ kind: 'allow' });
    }
  }
});

test('a protected route without a session goes to /login, remembering the address', () => {
  expect(decide('/user/home', out, other)).toEqual({ kind: 'redirect', to: '/login', remember: true });
  expect(decide('/organizations', out, other)).toEqual({ kind: 'redirect', to: '/login', remember: true });
  expect(decide('/', out, other)).toEqual({ kind: 'redirect', to: '/login', remember: false });
});

test('a sign-in waiting for its code goes back to the code screens', () => {
  expect(decide('/user/home', { ...out, pendingOtp: true, isOtpSetup: false }, other)).toEqual({ kind: 'redirect', to: '/otp-selection' });
  expect(decide('/user/home', { ...out, pendingOtp: true, isOtpSetup: true }, other)).toEqual({ kind: 'redirect', to: '/otp-verification' });
});

test('a route with an authorize list sends any other role to its landing screen', () => {
  expect(decide('/admin/organizations', as('org_admin'), other)).toEqual({ kind: 'redirect', to: '/user/home' });
  expect(decide('/user/home', as('admin', null), other)).toEqual({ kind: 'redirect', to: '/admin/organizations' });
  expect(decide('/user/opc', as('doc_user'), other)).toEqual({ kind: 'redirect', to: '/user/user-manual' });
  expect(decide('/user/org-users', as('org_user'), other)).toEqual({ kind: 'redirect', to: '/user/home' });
  expect(decide('/user/home', as('labeler', null), other)).toEqual({ kind: 'redirect', to: '/labeler/tasks' });
  expect(decide('/user/analytics', as('analytics_user'), other)).toEqual({ kind: 'allow' });
  expect(decide('/user/home', as('analytics_user'), other)).toEqual({ kind: 'redirect', to: '/user/analytics' });
});

test('the workstation user has no landing page: every screen sends them to the empty root', () => {
  expect(decide('/user/home', as('workstation_user'), other)).toEqual({ kind: 'redirect', to: '/' });
  expect(decide('/', as('workstation_user'), other)).toEqual({ kind: 'allow' });
  expect(decide('/login', as('workstation_user'), other)).toEqual({ kind: 'redirect', to: '/' });
});

test('the root path redirects by role', () => {
  expect(decide('/', as('org_admin'), other)).toEqual({ kind: 'redirect', to: '/user/home' });
  expect(decide('/', as('admin', null), other)).toEqual({ kind: 'redirect', to: '/admin/organizations' });
  expect(decide('/', as('doc_user'), other)).toEqual({ kind: 'redirect', to: '/user/user-manual' });
});

test('a user who needs an organisation and has none picks one', () => {
  expect(decide('/user/home', as('org_user', null), other)).toEqual({ kind: 'redirect', to: '/organizations' });
  expect(decide('/organizations', as('org_user', null), other)).toEqual({ kind: 'allow' });
  // The super admin and the labeler are exempt.
  expect(decide('/admin/users', as('admin', null), other)).toEqual({ kind: 'allow' });
  expect(decide('/labeler/tasks', as('labeler', null), other)).toEqual({ kind: 'allow' });
});

test('on an organisation sub-domain, /login goes to the base domain', () => {
  expect(decide('/login', out, acme)).toEqual({ kind: 'baseDomain', path: '/login' });
  expect(decide('/login', as('org_user'), acme)).toEqual({ kind: 'baseDomain', path: '/login' });
  expect(decide('/login', out, base)).toEqual({ kind: 'allow' });
});

test('on the base domain a stored organisation sends the user to /organizations', () => {
  expect(decide('/user/home', as('org_user', 4), base)).toEqual({ kind: 'redirect', to: '/organizations' });
  expect(decide('/organizations', as('org_user', 4), base)).toEqual({ kind: 'allow' });
  // On the organisation's sub-domain, or a host outside the base domain, the user works in place.
  expect(decide('/user/home', as('org_user', 4), acme)).toEqual({ kind: 'allow' });
  expect(decide('/user/home', as('org_user', 4), other)).toEqual({ kind: 'allow' });
  // The super admin is exempt from the organisation step.
  expect(decide('/admin/users', as('admin', 4), base)).toEqual({ kind: 'allow' });
});

test('unknown paths are left to the not-found screen', () => {
  expect(decide('/no/such/page', out, other)).toEqual({ kind: 'allow' });
});
