/**
 * Where each screen's Help link goes: one table, route → the User Manuals chapter
 * (`topic`, a file of `features/docs/content/manual/` without its number) and section
 * (its `##` heading as an id). `features/docs/help.test.ts` checks every entry names a
 * section that exists and every screen of the sidebar has one. The screen header
 * (`components/ui/screen-header.tsx`) finds its screen's entry by the address.
 */
import { paths } from '@/config/paths';
import { matchPath } from '@/lib/access/routes';

export type HelpTarget = { topic: string; section: string };

const u = paths.user;

export const HELP: readonly (HelpTarget & { route: string })[] = [
  { route: u.home, topic: 'analytics', section: 'the-dashboard' },
  { route: u.analytics, topic: 'analytics', section: 'analytics-choosing-what-to-look-at' },
  { route: u.trace, topic: 'trace', section: 'trace' },
  { route: paths.cycleTrace, topic: 'trace', section: 'cycle-trace' },
  { route: u.issueCenter, topic: 'issue-center', section: 'bad-cycles-by-reason' },
  { route: u.line, topic: 'lines', section: 'defining-a-line' },
  { route: u.lineAnalytics, topic: 'lines', section: 'line-analytics' },
  { route: u.lineVisibility, topic: 'lines', section: 'line-visibility' },
  { route: u.devices, topic: 'devices', section: 'the-devices-screen' },
  { route: u.device, topic: 'devices', section: 'a-devices-page' },
  { route: u.addDevice, topic: 'devices', section: 'adding-a-device' },
  { route: u.cameras, topic: 'cameras', section: 'the-cameras-screen' },
  { route: u.remoteDevices, topic: 'cameras', section: 'the-cameras-screen' },
  { route: u.orgUsers, topic: 'users-roles', section: 'the-users-screen' },
  { route: u.setting, topic: 'users-roles', section: 'your-profile' },
  { route: paths.auditLog, topic: 'users-roles', section: 'the-audit-log' },
  { route: u.process, topic: 'define-operation', section: 'the-define-operation-screen' },
  { route: u.tasks, topic: 'define-operation', section: 'the-define-operation-screen' },
  { route: u.record, topic: 'record', section: 'the-record-training-set-screen' },
  { route: u.labelData, topic: 'label', section: 'the-label-training-set-screen' },
  { route: u.train, topic: 'train', section: 'before-you-train' },
  { route: u.models, topic: 'train', section: 'model-versions' },
  { route: u.deploy, topic: 'deploy', section: 'the-deploy-model-screen' },
  { route: u.validation, topic: 'validation', section: 'validation-groups' },
  { route: u.opc, topic: 'opc', section: 'the-opc-screen' },
  { route: u.assistant, topic: 'assistant', section: 'asking-a-question' },
];

/** The address of a User Manuals chapter, at `section`, with `q` (what a search found)
 * highlighted. */
export function manualHref(topic: string, section?: string, q?: string): string {
  const query = new URLSearchParams({ topic });
  if (q) query.set('q', q);
  return `${paths.user.userManual}?${query.toString()}${section ? `#${section}` : ''}`;
}

/** The address of Fundamentals lesson `n`, at `section`, with `q` highlighted. */
export function lessonHref(n: number, section?: string, q?: string): string {
  const query = new URLSearchParams({ lesson: String(n) });
  if (q) query.set('q', q);
  return `${paths.user.fundamentals}?${query.toString()}${section ? `#${section}` : ''}`;
}

/** The Help address of the screen at `pathname`, or null when the manual has none. */
export function helpFor(pathname: string): string | null {
  const h = HELP.find((e) => matchPath(e.route, pathname));
  return h ? manualHref(h.topic, h.section) : null;
}
