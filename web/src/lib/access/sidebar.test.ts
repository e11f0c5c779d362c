import { ROLES } from './roles';
import { canOpen } from './routes';
import { requiredFeature, sidebarFor } from './sidebar';

const ALL = new Set(['Record Training Set', 'Deploy Model', 'Devices', 'OPCUA Explorer', 'Define Operation', 'Pathfinder']);
const NONE = new Set<string>();

/** `{header: [labels]}` in order. */
const shape = (role: Parameters<typeof sidebarFor>[0], f: ReadonlySet<string>) =>
  sidebarFor(role, f).map((s) => [s.header, s.entries.map((e) => e.label)] as const);

const FULL = [
  ['Dashboard', ['Dashboard']],
  ['LEAN', ['Analytics', 'Line Analytics', 'Trace', 'Cycle Trace', 'Line Visibility', 'Issue Center', 'Line', 'Pathfinder', 'Kaizen Assistant']],
  ['MANAGEMENT', ['Devices', 'OPC', 'Cameras', 'Users', 'Add Device', 'Audit Log']],
  ['SETUP', ['Define Operation', 'Record Training Set', 'Label Training Set', 'Train Model', 'Deploy Model', 'Validation']],
  ['HELP', ['User Manuals', 'App Fundamentals']],
] as const;

const without = (labels: string[]) =>
  FULL.map(([h, es]) => [h, es.filter((e) => !labels.includes(e))] as const);

test('org admin: all user sections including Users and Add Device', () => {
  expect(shape('org_admin', ALL)).toEqual(FULL);
});

test('support user and user: the same as org admin but the audit log', () => {
  expect(shape('support_user', ALL)).toEqual(without(['Audit Log']));
  expect(shape('user', ALL)).toEqual(without(['Audit Log']));
});

test('org user: the same sections without Users', () => {
  expect(shape('org_user', ALL)).toEqual(without(['Users', 'Audit Log']));
});

test('docs user: the sections without OPC', () => {
  expect(shape('doc_user', ALL)).toEqual(without(['OPC', 'Audit Log']));
});

test('analytics user: Analytics, Line Analytics, Trace, Cycle Trace, Issue Center, Line Visibility', () => {
  expect(shape('analytics_user', ALL)).toEqual([
    ['LEAN', ['Analytics', 'Line Analytics', 'Trace', 'Cycle Trace', 'Line Visibility', 'Issue Center', 'Kaizen Assistant']],
  ]);
});

test('labeler: Tasks Requested and Profile Setting', () => {
  expect(shape('labeler', ALL)).toEqual([[null, ['Tasks Requested', 'Profile Setting']]]);
});

test('super admin: all admin entries, in the spec order', () => {
  expect(shape('admin', ALL)).toEqual([
    [
      null,
      [
        'Organizations', 'All Users', 'Roles', 'Pending Users', 'All Devices', 'Archived Cycles', 'All Operations',
        'Updates', 'Instances', 'Trained Operations', 'Annotations', 'Labelers', 'Tampering Requests', 'User Report',
        'Barcode', 'Cloud Function Token', 'Org Model Versions', 'Model Types', 'Feature Control', 'Event Notification',
        'Audit Log',
      ],
    ],
  ]);
});

test('workstation user: no menu', () => {
  expect(sidebarFor('workstation_user', ALL)).toEqual([]);
});

test('subscription-gated entries and Pathfinder hide without the feature', () => {
  expect(shape('org_admin', NONE)).toEqual(
    without(['Pathfinder', 'Devices', 'OPC', 'Define Operation', 'Record Training Set', 'Deploy Model']),
  );
  expect(shape('org_admin', new Set(['Devices']))).toEqual(
    without(['Pathfinder', 'OPC', 'Define Operation', 'Record Training Set', 'Deploy Model']),
  );
});

test('every sidebar entry opens for the role that sees it', () => {
  for (const r of ROLES) {
    for (const s of sidebarFor(r, ALL)) for (const e of s.entries) if (e.path) expect(canOpen(r, e.path), `${r} ${e.path}`).toBe(true);
  }
});

test('requiredFeature: the gated screens of section 6 and the screens below them', () => {
  expect(requiredFeature('/user/process')).toBe('Define Operation');
  expect(requiredFeature('/user/record')).toBe('Record Training Set');
  expect(requiredFeature('/user/deploy')).toBe('Deploy Model');
  expect(requiredFeature('/user/opc')).toBe('OPCUA Explorer');
  expect(requiredFeature('/user/devices')).toBe('Devices');
  expect(requiredFeature('/user/devices/12')).toBe('Devices');
  expect(requiredFeature('/user/devices-other')).toBeNull();
  expect(requiredFeature('/user/home')).toBeNull();
  expect(requiredFeature('/user/train')).toBeNull();
});
