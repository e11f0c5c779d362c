/**
 * The sidebar by role (spec section 6 "Sidebar access", section 2 "Sidebar"): the
 * entries of section 2 under the headers Dashboard, LEAN, MANAGEMENT and SETUP, and
 * User Manuals and App Fundamentals under HELP, for the organisation roles; the
 * labeler's two entries, the admin entries for the super admin, nothing for the
 * workstation user.
 *
 * An organisation role sees an entry when the route table lets it open the entry's
 * path (so the sidebar never offers a screen the guard refuses) and, for the
 * subscription-gated screens of section 6 and Pathfinder, when its organisation holds
 * an unsuppressed subscription to the feature.
 */
import { paths } from '@/config/paths';
import type { Role } from '@/lib/access/roles';
import { canOpen } from '@/lib/access/routes';

export type SidebarEntry = {
  label: string;
  /** `null`: an entry without a path (Pathfinder: the spec gives it no route). */
  path: string | null;
  /** The feature (section 6) the organisation must be subscribed to. */
  feature?: string;
};

export type SidebarSection = { header: string | null; entries: SidebarEntry[] };

const u = paths.user;
const a = paths.admin;

export const USER_SIDEBAR: readonly SidebarSection[] = [
  { header: 'Dashboard', entries: [{ label: 'Dashboard', path: u.home }] },
  {
    header: 'LEAN',
    entries: [
      { label: 'Analytics', path: u.analytics },
      { label: 'Line Analytics', path: u.lineAnalytics },
      { label: 'Trace', path: u.trace },
      { label: 'Cycle Trace', path: '/cycle-trace' },
      { label: 'Line Visibility', path: u.lineVisibility },
      { label: 'Issue Center', path: u.issueCenter },
      { label: 'Line', path: u.line },
      { label: 'Pathfinder', path: null, feature: 'Pathfinder' },
      { label: 'Kaizen Assistant', path: u.assistant },
    ],
  },
  {
    header: 'MANAGEMENT',
    entries: [
      { label: 'Devices', path: u.devices, feature: 'Devices' },
      { label: 'OPC', path: u.opc, feature: 'OPCUA Explorer' },
      { label: 'Cameras', path: u.remoteDevices },
      { label: 'Users', path: u.orgUsers },
      { label: 'Add Device', path: u.addDevice },
      { label: 'Audit Log', path: paths.auditLog },
    ],
  },
  {
    header: 'SETUP',
    entries: [
      { label: 'Define Operation', path: u.process, feature: 'Define Operation' },
      { label: 'Record Training Set', path: u.record, feature: 'Record Training Set' },
      { label: 'Label Training Set', path: u.labelData },
      { label: 'Train Model', path: u.train },
      { label: 'Deploy Model', path: u.deploy, feature: 'Deploy Model' },
      { label: 'Validation', path: u.validation },
    ],
  },
  // Not a header of the spec's sidebar: the manuals and lessons (issue 32) need a way
  // in for every role of the user area (docs/decisions.md "Manuals in the sidebar").
  {
    header: 'HELP',
    entries: [
      { label: 'User Manuals', path: u.userManual },
      { label: 'App Fundamentals', path: u.fundamentals },
    ],
  },
];

export const LABELER_SIDEBAR: readonly SidebarSection[] = [
  {
    header: null,
    entries: [
      { label: 'Tasks Requested', path: paths.labeler.tasks },
      { label: 'Profile Setting', path: paths.labeler.setting },
    ],
  },
];

export const ADMIN_SIDEBAR: readonly SidebarSection[] = [
  {
    header: null,
    entries: [
      { label: 'Organizations', path: a.organizations },
      { label: 'All Users', path: a.users },
      { label: 'Roles', path: a.roles },
      { label: 'Pending Users', path: a.pendingUsers },
      { label: 'All Devices', path: a.devices },
      { label: 'Archived Cycles', path: a.archivedCycles },
      { label: 'All Operations', path: a.tasks },
      { label: 'Updates', path: a.updates },
      { label: 'Instances', path: a.instances },
      { label: 'Trained Operations', path: a.trainedTasks },
      { label: 'Annotations', path: a.annotations },
      { label: 'Labelers', path: a.labelers },
      { label: 'Tampering Requests', path: a.tamperingRequests },
      { label: 'User Report', path: a.userReport },
      { label: 'Barcode', path: a.barcode },
      { label: 'Cloud Function Token', path: a.awsToken },
      { label: 'Org Model Versions', path: a.modelVersions },
      { label: 'Model Types', path: a.modelTypes },
      { label: 'Feature Control', path: a.featureControl },
      { label: 'Event Notification', path: a.eventNotification },
      { label: 'Audit Log', path: paths.auditLog },
    ],
  },
];

/**
 * The sidebar of `role`; `features` holds the names of the features the organisation
 * is subscribed to (unsuppressed). Empty sections are left out.
 */
export function sidebarFor(role: Role, features: ReadonlySet<string>): SidebarSection[] {
  if (role === 'admin') return ADMIN_SIDEBAR.map((s) => ({ ...s, entries: [...s.entries] }));
  if (role === 'labeler') return LABELER_SIDEBAR.map((s) => ({ ...s, entries: [...s.entries] }));
  if (role === 'workstation_user') return [];
  return USER_SIDEBAR.map((s) => ({
    header: s.header,
    entries: s.entries.filter(
      (e) =>
        (e.feature === undefined || features.has(e.feature)) &&
        // A pathless entry (Pathfinder) is for the roles with the whole user area.
        canOpen(role, e.path ?? paths.user.home),
    ),
  })).filter((s) => s.entries.length > 0);
}

/**
 * The feature an organisation must be subscribed to for `pathname` (a gated screen of
 * section 6, or a screen below one, e.g. a device's detail), or `null`. The guard sends
 * a direct visit without the feature to the landing screen, as the sidebar hides it.
 */
export function requiredFeature(pathname: string): string | null {
  for (const s of USER_SIDEBAR) {
    for (const e of s.entries) {
      if (e.feature && e.path && (pathname === e.path || pathname.startsWith(`${e.path}/`))) return e.feature;
    }
  }
  return null;
}
