/**
 * Who may open which route (spec section 2 routes, section 6 "Route access"), as data.
 *
 * - `public`: sign-in and similar pages; a signed-in user is sent to their landing.
 * - `always`: reachable whatever the session (privacy policy, OTP, change password).
 * - `signedIn`: any signed-in role (the organisation picker).
 * - `protected`: only the roles in `authorize`; others go to their landing screen.
 *
 * Where section 6 is ambiguous the reading is in docs/decisions.md ("Portal route
 * access"); the Users screen follows `Permission::ViewOrgUsers` of the server.
 */
import { paths } from '@/config/paths';
import { type Role, USER_AREA_ROLES, rolesWith } from '@/lib/access/roles';

export type RouteKind = 'public' | 'always' | 'signedIn' | 'protected';

export type RouteRule = {
  path: string;
  title: string;
  kind: RouteKind;
  /** For `protected` routes: the roles that may open it. */
  authorize: readonly Role[];
};

/** The organisation's user area: the user roles and the docs user. */
const USER_SCREENS: readonly Role[] = [...USER_AREA_ROLES, 'doc_user'];
/** The analytics screens: the user area plus the analytics user. */
const ANALYTICS_SCREENS: readonly Role[] = [...USER_SCREENS, 'analytics_user'];
/** OPC: the user area without the docs user (their sidebar has no OPC). */
const OPC_SCREEN: readonly Role[] = USER_AREA_ROLES;
const LABELER: readonly Role[] = ['labeler'];
const ADMIN: readonly Role[] = rolesWith('AdminArea');
const ORG_USERS: readonly Role[] = rolesWith('ViewOrgUsers');
const AUDIT_LOG: readonly Role[] = rolesWith('ReadAuditLog');
const TEMP: readonly Role[] = ['user', 'org_user'];

const pub = (path: string, title: string): RouteRule => ({ path, title, kind: 'public', authorize: [] });
const always = (path: string, title: string): RouteRule => ({ path, title, kind: 'always', authorize: [] });
const only = (path: string, title: string, authorize: readonly Role[]): RouteRule => ({
  path,
  title,
  kind: 'protected',
  authorize,
});

const u = paths.user;
const a = paths.admin;

export const ROUTES: readonly RouteRule[] = [
  pub(paths.login, 'Login'),
  pub(paths.adminLogin, 'Admin Login'),
  pub(paths.signup, 'Sign Up'),
  pub(paths.resendVerification, 'Resend Verification'),
  pub(paths.verifyEmail, 'Verify Email'),
  pub(paths.forgotPassword, 'Forgot Password'),
  pub(paths.resetPassword, 'Reset Password'),
  pub(paths.ssoCallback, 'Single Sign-On'),
  always(paths.privacyPolicy, 'Privacy Policy'),
  always(paths.changePassword, 'Change Password'),
  always(paths.otpSelection, 'Select Verification Method'),
  always(paths.otpVerification, 'Verify Code'),
  { path: paths.organizations, title: 'Select Organization', kind: 'signedIn', authorize: [] },
  only(paths.cycleTrace, 'Cycle Trace', ANALYTICS_SCREENS),
  only(paths.auditLog, 'Audit Log', AUDIT_LOG),

  only(paths.labeler.tasks, 'Operations Requested', LABELER),
  only(paths.labeler.setting, 'Profile Setting', LABELER),
  only(paths.labeler.videos, 'Task Videos', LABELER),

  only(u.temp, 'Temporary', TEMP),
  only(u.home, 'Dashboard', USER_SCREENS),
  only(u.process, 'Define Operation', USER_SCREENS),
  only(u.record, 'Record Training Set', USER_SCREENS),
  only(u.train, 'Train Model', USER_SCREENS),
  only(u.deploy, 'Deploy Model', USER_SCREENS),
  only(u.models, 'Model Versions', USER_SCREENS),
  only(u.validation, 'Validation', USER_SCREENS),
  only(u.tasks, 'Tasks', USER_SCREENS),
  only(u.devices, 'Devices', USER_SCREENS),
  only(u.device, 'Device', USER_SCREENS),
  only(u.opc, 'OPC', OPC_SCREEN),
  only(u.cameras, 'Cameras', USER_SCREENS),
  only(u.remoteDevices, 'Cameras', USER_SCREENS),
  only(u.analytics, 'Analytics', ANALYTICS_SCREENS),
  only(u.lineAnalytics, 'Line Analytics', ANALYTICS_SCREENS),
  only(u.trace, 'Trace', ANALYTICS_SCREENS),
  only(u.traceItem, 'Trace', ANALYTICS_SCREENS),
  only(u.orgUsers, 'Users', ORG_USERS),
  only(u.setting, 'Profile Settings', USER_SCREENS),
  only(u.userManual, 'User Manuals', USER_SCREENS),
  only(u.fundamentals, 'App Fundamentals', USER_SCREENS),
  only(u.addDevice, 'Add Device', USER_SCREENS),
  only(u.labelData, 'Label Training Set', USER_SCREENS),
  only(u.issueCenter, 'Issue Center', ANALYTICS_SCREENS),
  only(u.assistant, 'Kaizen Assistant', ANALYTICS_SCREENS),
  only(u.line, 'Line', USER_SCREENS),
  only(u.lineVisibility, 'Line Visibility', ANALYTICS_SCREENS),

  only(a.tamperingRequests, 'Tampering Requests', ADMIN),
  only(a.organizations, 'Organizations', ADMIN),
  only(a.users, 'All Users', ADMIN),
  only(a.roles, 'Roles', ADMIN),
  only(a.pendingUsers, 'Pending Users', ADMIN),
  only(a.devices, 'All Devices', ADMIN),
  only(a.archivedCycles, 'Archived Cycles', ADMIN),
  only(a.tasks, 'All Operations', ADMIN),
  only(a.updates, 'Updates', ADMIN),
  only(a.instances, 'Instances', ADMIN),
  only(a.trainedTasks, 'Trained Operations', ADMIN),
  only(a.annotations, 'Annotations', ADMIN),
  only(a.labelers, 'Labelers', ADMIN),
  only(a.taskVideos, 'Task Videos', ADMIN),
  only(a.userReport, 'User Report', ADMIN),
  only(a.barcode, 'Barcode', ADMIN),
  only(a.awsToken, 'Cloud Function Token', ADMIN),
  only(a.featureControl, 'Feature Control', ADMIN),
  only(a.modelVersions, 'Org Model Versions', ADMIN),
  only(a.modelTypes, 'Model Types', ADMIN),
  only(a.eventNotification, 'Event Notification', ADMIN),
];

/** Whether `pattern` (`/user/devices/:id`, `/cycle-trace/:traceId?`) matches `pathname`. */
export function matchPath(pattern: string, pathname: string): boolean {
  const want = pattern.split('/').filter(Boolean);
  const got = pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  if (got.length > want.length) return false;
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i];
    if (w.endsWith('?')) continue;
    if (g === undefined) return false;
    if (w.startsWith(':')) continue;
    if (w !== g) return false;
  }
  return true;
}

/** The rule of the route at `pathname`, if any. */
export function ruleFor(pathname: string): RouteRule | undefined {
  return ROUTES.find((r) => matchPath(r.path, pathname));
}

/** Whether `role` may open the route at `pathname` (unknown paths: no). */
export function canOpen(role: Role, pathname: string): boolean {
  const r = ruleFor(pathname);
  if (!r) return false;
  return r.kind !== 'protected' || r.authorize.includes(role);
}
