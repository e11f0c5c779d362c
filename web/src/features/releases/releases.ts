/**
 * Releases, pure (issue 30): the upload form's checks (the server's rules of
 * `gemba_shared::release`, with its messages), the release states and update states in
 * words, a roll-out's progress, what can be done with a release in its state, and the
 * command that signs a binary.
 */
import type { Release, UpdateReport, UpdateState } from '@/api/generated';
import { megabytes } from '@/lib/format';

/** As `gemba_shared::release::{TARGETS, ENVIRONMENTS}`. */
export const TARGETS = ['x86_64', 'aarch64'] as const;
export const ENVIRONMENTS = ['dev', 'prod'] as const;
export type Target = (typeof TARGETS)[number];
export type Environment = (typeof ENVIRONMENTS)[number];

export type ReleaseFields = {
  version: string;
  branch: string;
  environment: Environment;
  target: Target;
  signature: string;
};

export const EMPTY_FIELDS: ReleaseFields = { version: '', branch: 'main', environment: 'dev', target: 'x86_64', signature: '' };

/** The fields the server may refuse by name, shown next to them (`file`: the binary). */
export const RELEASE_FIELDS = ['file', 'version', 'branch', 'environment', 'target', 'signature'] as const;
export type ReleaseField = (typeof RELEASE_FIELDS)[number];

const NAME = /^[A-Za-z0-9][A-Za-z0-9.+_-]*$/;
const nameMessage = (what: string) => `A ${what} is 1 to 64 letters, digits and . - + _, starting with a letter or digit.`;

/** `check_version`: its message, or null. */
export function versionProblem(v: string): string | null {
  return v.length <= 64 && NAME.test(v) ? null : nameMessage('version');
}

/** `check_branch`: a version's characters plus `/`. */
export function branchProblem(b: string): string | null {
  if (b.length === 0 || b.length > 64) return 'A branch is 1 to 64 characters.';
  return NAME.test(b.replaceAll('/', '-')) ? null : nameMessage('branch');
}

/** The form's problems before anything is sent (empty: send it). */
export function checkRelease(f: ReleaseFields, file: { size: number } | null | undefined): Partial<Record<ReleaseField, string>> {
  const out: Partial<Record<ReleaseField, string>> = {};
  if (!file) out.file = 'Choose the agent binary.';
  else if (file.size === 0) out.file = 'The binary is empty.';
  const version = f.version.trim();
  const branch = f.branch.trim();
  if (version === '') out.version = 'This field is required.';
  else {
    const p = versionProblem(version);
    if (p) out.version = p;
  }
  if (branch === '') out.branch = 'This field is required.';
  else {
    const p = branchProblem(branch);
    if (p) out.branch = p;
  }
  if (f.signature.trim() === '') out.signature = 'This field is required.';
  return out;
}

/** How to make the signature, for the form's note: the cloud's own command on its host. */
export function signCommand(f: Pick<ReleaseFields, 'target' | 'version'>, fileName?: string): string {
  const v = f.version.trim() || 'VERSION';
  return `gemba-cloud sign-release --target ${f.target} --version ${v} ${fileName || 'FILE'}`;
}

/** A release's `currentState` in words (`gemba_shared::api::v1::release::state`). */
export const RELEASE_STATE: Record<string, string> = {
  uploaded: 'Uploaded',
  rolling_out: 'Rolling out',
  deployed: 'Deployed',
  stopped: 'Stopped',
  superseded: 'Superseded',
};

export const releaseState = (r: Pick<Release, 'currentState' | 'reason'>) => {
  const s = RELEASE_STATE[r.currentState] ?? r.currentState;
  return r.reason ? `${s}: ${r.reason}` : s;
};

export const UPDATE_STATE: Record<UpdateState, string> = {
  pending: 'Pending',
  sent: 'Sent',
  downloading: 'Downloading',
  restarting: 'Restarting',
  done: 'Done',
  failed: 'Failed',
  rolled_back: 'Rolled back',
};

/** A device's latest update in words: "Done: 1.2.3", "Rolled back: 1.2.4". */
export const updateSummary = (u: UpdateReport | null) => (u ? `${UPDATE_STATE[u.state]}: ${u.version}` : '—');

/** "3 done, 1 failed of 10", or "no devices" when nothing follows it. */
export function progress(r: Pick<Release, 'devices_total' | 'devices_done' | 'devices_failed'>): string {
  if (r.devices_total === 0) return 'no devices';
  const failed = r.devices_failed > 0 ? `, ${r.devices_failed} failed` : '';
  return `${r.devices_done} done${failed} of ${r.devices_total}`;
}

/** What can be done to a release now. */
export function actionsOf(r: Pick<Release, 'currentState' | 'running_environment'>) {
  const moveTo: Environment = r.running_environment === 'prod' ? 'dev' : 'prod';
  return {
    /** Where "move" sends it: the other environment. */
    moveTo,
    stop: r.currentState === 'rolling_out',
    goOn: r.currentState === 'stopped',
  };
}

export const releaseName = (r: Pick<Release, 'version_number' | 'target'>) => `${r.version_number} (${r.target})`;

/** The downloaded file's name, as the server's attachment names it. */
export const binaryFileName = (r: Pick<Release, 'version_number' | 'target'>) => `gemba-agent-${r.version_number}-${r.target}`;

/** A binary's size: "2.6 KB" below a megabyte (a test build), else "12.3 MB". */
export const size = (bytes: number) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : megabytes(bytes));
