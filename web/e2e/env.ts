/**
 * What the end-to-end tests share: the server `global-setup.ts` started (its port and
 * data folder), its e-mail outbox, a small API client for the set-up the tests are not
 * about (creating organisations and users with a role), and signing in through the
 * portal's own screens.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type PeerCertificate, checkServerIdentity } from 'node:tls';
import { join, resolve } from 'node:path';

import { type Page, expect, test } from '@playwright/test';
import jsQR from 'jsqr';
import { connectAsync } from 'mqtt';
import { PNG } from 'pngjs';

import type {
  Credentials,
  EnrolRequest,
  EnrolmentCode,
  Feature,
  LoginUser,
  Organization,
  RoleRecord,
  StatusMessage,
  Segment,
  Task,
  Video,
} from '../src/api/generated';

export const ADMIN = { email: 'admin@gemba.local', password: 'gemba-admin-1' } as const;

const port = () => {
  const p = process.env.GEMBA_E2E_PORT;
  if (!p) throw new Error('GEMBA_E2E_PORT unset: run through playwright.config.ts (global-setup.ts)');
  return p;
};

/** `http://{host}:{port}`: `localhost` (the base domain), `admin.localhost`, `{org}.localhost`. */
export const origin = (host = 'localhost') => `http://${host}:${port()}`;
const api = (path: string) => `http://127.0.0.1:${port()}/api/${path}`;

/** Six random letters: names of this run's own (organisation names allow letters only),
 * so a worker restarted after a failure does not meet its earlier records. */
export const uniqueName = () => Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

// ----- the outbox ------------------------------------------------------------------

const outboxDir = () => join(process.env.GEMBA_E2E_DATA ?? '', 'outbox');

/** The addresses of a mail's `To:` header (folded onto more lines when long). */
function recipients(mail: string): string[] {
  const header = /^To: (.*(?:\r?\n[ \t].*)*)/m.exec(mail)?.[1] ?? '';
  return header
    .split(',')
    .map((a) => a.trim())
    .map((a) => /<([^>]+)>/.exec(a)?.[1] ?? a);
}

/** The mails (.eml text) sent to `to`, oldest first: alone, or among the recipients (the
 * super admins are mailed together, and the specs make super admins of their own). */
export function mailsTo(to: string): string[] {
  const files = readdirSync(outboxDir())
    .filter((f) => f.endsWith('.eml'))
    .sort();
  return files.map((f) => readFileSync(join(outboxDir(), f), 'utf8')).filter((m) => recipients(m).includes(to));
}

/** The text messages (.sms.txt) sent to the number `to`, oldest first. */
export function smsTo(to: string): string[] {
  return readdirSync(outboxDir())
    .filter((f) => f.endsWith('.sms.txt'))
    .sort()
    .map((f) => readFileSync(join(outboxDir(), f), 'utf8'))
    .filter((m) => m.startsWith(`To: ${to}\n`));
}

/** Waits for a mail to `to` beyond the first `after` ones and returns it. */
export async function nextMail(to: string, after: number): Promise<string> {
  let mails: string[] = [];
  await expect.poll(() => (mails = mailsTo(to)).length, { message: `a mail to ${to}` }).toBeGreaterThan(after);
  return mails[mails.length - 1] ?? '';
}

export const codeIn = (mail: string) => /code is (\d{6})/.exec(mail)?.[1] ?? '';

/** Waits for a sign-in code mailed to `to` beyond the first `after` mails and returns
 * the code. Not merely the next mail: a super admin is also mailed each account that
 * awaits approval, which another worker's sign-ups send at any moment. */
export async function nextCode(to: string, after: number): Promise<string> {
  let code = '';
  await expect
    .poll(() => (code = mailsTo(to).slice(after).map(codeIn).filter(Boolean).at(-1) ?? ''), { message: `a sign-in code mailed to ${to}` })
    .not.toBe('');
  return code;
}
export const verifyPathIn = (mail: string) => /\/verify-email\/[A-Za-z0-9_-]+/.exec(mail)?.[0] ?? '';
export const resetPathIn = (mail: string) => /\/reset-password\/[A-Za-z0-9_-]+/.exec(mail)?.[0] ?? '';

// ----- the day -----------------------------------------------------------------------

/** The local midnight that began the day of time `t` (ms). */
export const midnightOf = (t: number): number => new Date(t).setHours(0, 0, 0, 0);

/** The time, clear of midnight: a spec whose cycles must fall on the day its screens
 * show as today waits out the 5 minutes before local midnight and the 3 after it (at
 * most 8 minutes, in a run that meets them) and answers the time after. */
export async function clearOfMidnight(): Promise<number> {
  const now = Date.now();
  const midnight = midnightOf(now);
  const next = new Date(now).setHours(24, 0, 0, 0);
  const until = next - now < 5 * 60_000 ? next + 3 * 60_000 : now - midnight < 3 * 60_000 ? midnight + 3 * 60_000 : now;
  if (until > now) {
    test.setTimeout(test.info().timeout + (until - now));
    await new Promise((resolve) => setTimeout(resolve, until - now));
  }
  return Date.now();
}

// ----- a small API client --------------------------------------------------------

async function call<T>(method: string, path: string, token: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(api(path), {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Signs in through the API (password, then the e-mail code) and answers the session. */
export async function apiLogin(email: string, password: string): Promise<LoginUser> {
  const first = await call<LoginUser>('POST', 'account/login_v2', null, { email, password });
  if (!first.require_otp) return first;
  const before = mailsTo(email).length;
  if (first.receive_otp_on === null) await call('PATCH', 'account/set_mfa_method_email/', first.token);
  else await call('GET', 'account/send_otp_code/', first.token);
  const code = await nextCode(email, before);
  return call<LoginUser>('POST', 'account/verify_otp_code/', first.token, { otp: code });
}

let adminToken: string | null = null;
async function admin(): Promise<string> {
  adminToken ??= process.env.GEMBA_E2E_ADMIN_TOKEN ?? (await apiLogin(ADMIN.email, ADMIN.password)).token;
  return adminToken;
}

export async function createOrganization(display: string): Promise<Organization> {
  return call<Organization>('POST', 'organization/', await admin(), { org_name_to_display: display });
}

/** Subscribes `org` to the feature named `name` (section 6), unsuppressed. */
export async function subscribe(org: number, name: string): Promise<void> {
  const token = await admin();
  const feature = (await call<Feature[]>('GET', 'feature_control/feature/', token)).find((f) => f.name === name);
  if (!feature) throw new Error(`no feature ${name}`);
  await call('POST', 'feature_control/subscribed_feature/', token, { Feature: feature.id, Organization: org, is_suppressed: false });
}

/** The super admin defines an operation (a task) in `org` from its text (the task-detail
 * format of section 3: the name, then `Step:` and `Sub-step;` lines). */
export async function createTask(org: number, taskDetail: string): Promise<Task> {
  return call<Task>('POST', 'organization/task/', await admin(), { task_detail: taskDetail }, { Organization: String(org) });
}

/** Two seconds (30 frames at 15 fps) of 320×240 H.264 in MP4, made by GStreamer at
 * `path`; `pattern` is videotestsrc's (`ball` moves, so frames differ). */
export function makeClip(path: string, pattern = 'smpte'): void {
  const r = spawnSync(
    'gst-launch-1.0',
    ['-q', 'videotestsrc', 'num-buffers=30', `pattern=${pattern}`, '!', 'video/x-raw,width=320,height=240,framerate=15/1', '!', 'x264enc', 'speed-preset=ultrafast', '!', 'mp4mux', '!', 'filesink', `location=${path}`],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`gst-launch-1.0: ${r.stderr}`);
}

/** The super admin uploads the video file at `path` to `task` of `org` (in 4 MiB parts,
 * as the portal does) and answers it, ready. */
export async function uploadVideo(org: number, task: number, path: string, name = path.split('/').pop() ?? 'video.mp4'): Promise<Video> {
  const token = await admin();
  const bytes = readFileSync(path);
  const headers = { Organization: String(org) };
  let v = await call<Video>('POST', `organization/task/videos/${task}`, token, { file_name: name, size_bytes: bytes.length }, headers);
  const step = 4 * 1024 * 1024;
  for (let at = 0; at < bytes.length; at += step) {
    const end = Math.min(at + step, bytes.length);
    const res = await fetch(api(`organization/task_record/${v.id}/content/`), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Range': `bytes ${at}-${end - 1}/${bytes.length}`, ...headers },
      body: bytes.subarray(at, end),
    });
    if (!res.ok) throw new Error(`uploading ${name}: ${res.status} ${await res.text()}`);
    v = (await res.json()) as Video;
  }
  return v;
}

/** Saves a video's step labels as the labeling screen does (`PUT organization/task_record/{id}/labels/`). */
export async function labelVideo(org: number, video: number, segments: Segment[]): Promise<void> {
  await call('PUT', `organization/task_record/${video}/labels/`, await admin(), { segments }, { Organization: String(org) });
}

/** Adds a device to `org` as the super admin; answers it with its one-time code. */
export async function addDevice(org: number, name: string): Promise<EnrolmentCode> {
  return call<EnrolmentCode>('POST', 'device/', await admin(), { display_name: name }, { Organization: String(org) });
}

/** The demo's models and footage (`target/models`, or GEMBA_MODELS). */
const modelsDir = () => process.env.GEMBA_MODELS ?? resolve(import.meta.dirname, '../../target/models');

/** The demo footage, 640 × 480 (`demo.mp4`): the agent's `cam0` by default; named
 * cameras get it as `cam0=${demoFootage()}`. */
export const demoFootage = () => join(modelsDir(), 'demo.mp4');

/**
 * The real agent (`target/debug/gemba-agent`, or GEMBA_AGENT) enrolled with `code` and
 * running with the demo's default model, its camera `cam0` on the demo footage (or the
 * cameras given, each `NAME=SOURCE`); answers what stops it.
 */
export function runAgent(code: string, cameras?: string[]): () => void {
  return startAgent(code, cameras).stop;
}

/** [`runAgent`], also answering the agent's process id (the benchmarks read its CPU time). */
export function startAgent(code: string, cameras?: string[]): { stop: () => void; pid: number } {
  const root = resolve(import.meta.dirname, '../..');
  const bin = process.env.GEMBA_AGENT ?? join(root, 'target/debug/gemba-agent');
  const models = modelsDir();
  const data = mkdtempSync(join(tmpdir(), 'gemba-e2e-agent-'));
  const enrol = spawnSync(bin, ['--data', data, 'enroll', '--cloud', `http://127.0.0.1:${port()}`, '--code', code], { encoding: 'utf8' });
  if (enrol.status !== 0) throw new Error(`gemba-agent enroll: ${enrol.stderr}`);
  const cams = (cameras ?? [`cam0=${demoFootage()}`]).flatMap((c) => ['--camera', c]);
  const agent = spawn(
    bin,
    ['--data', data, 'run', ...cams, '--model', join(models, 'default'), '--loop', '--heartbeat', '1'],
    // GEMBA_E2E_AGENT_LOG names a file for the agent's log (RUST_LOG as set, else warn).
    {
      stdio: process.env.GEMBA_E2E_AGENT_LOG ? ['ignore', openSync(process.env.GEMBA_E2E_AGENT_LOG, 'a'), openSync(process.env.GEMBA_E2E_AGENT_LOG, 'a')] : 'ignore',
      env: { ...process.env, RUST_LOG: process.env.GEMBA_E2E_AGENT_LOG ? (process.env.RUST_LOG ?? 'info') : 'warn' },
    },
  );
  const stop = () => {
    agent.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  };
  return { stop, pid: agent.pid ?? 0 };
}

/** Sets camera `camera` of device `device` (of `org`) to run `task`, as the device page does. */
export async function runTaskOn(org: number, device: number, camera: string, task: number): Promise<void> {
  await call('POST', 'device/device_tasks_upsert/', await admin(), { device, camera, task }, { Organization: String(org) });
}

/** Calls the API as the super admin in `org` (`GET`): the answer. */
export async function adminGet<T>(org: number, path: string): Promise<T> {
  return call<T>('GET', path, await admin(), undefined, { Organization: String(org) });
}

/** Calls the API as the super admin in `org` with `method` and `body`: the answer. */
export async function adminSend<T>(org: number, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return call<T>(method, path, await admin(), body, { Organization: String(org) });
}

/** Enrols a device with its one-time code, as the agent does (`POST device/enroll/`, no user). */
export async function enrolDevice(code: string): Promise<Credentials> {
  return call<Credentials>('POST', 'device/enroll/', null, { code } satisfies EnrolRequest);
}

/**
 * The broker login of the enrolled device `c`, as its agent makes it
 * (`gemba_shared::broker`): the broker takes nobody else.
 */
function brokerLogin(c: Credentials): { clientId: string; username: string; password: string } {
  const key = Buffer.from(c.key, 'base64');
  const tag = createHash('sha256').update(Buffer.concat([Buffer.from('gemba-agent client id\0'), key])).digest('hex').slice(0, 12);
  return {
    clientId: `gemba-agent-${c.device}-${tag}`,
    username: `gemba-device-${c.device}`,
    password: createHmac('sha256', key).update('gemba mqtt password v1').digest('hex'),
  };
}

/**
 * The TLS of the enrolled device `c` when its broker speaks it, as its agent's
 * (`gemba_shared::broker::tls`): its own certificate, and only the pinned authority's
 * certificate for the broker's one name is accepted, whatever address it is reached at.
 */
function brokerTls(c: Credentials): object {
  if (!c.tls) return {};
  return {
    ca: c.tls.ca,
    cert: c.tls.cert,
    key: c.tls.key,
    servername: BROKER_NAME,
    checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(BROKER_NAME, cert),
  };
}

/** The name the embedded broker's certificate is made for (`gemba_shared::broker::BROKER_NAME`). */
const BROKER_NAME = 'gemba-broker';

/**
 * Publishes `msgs` on channel `channel` of the enrolled device `c` as its agent would,
 * one connection for all: each signed with the device's key (compact JWS, HS256, `kid`
 * its credential id), QoS 1, through the broker the enrolment named.
 */
async function publishSigned(c: Credentials, channel: 'status' | 'cycles', ...msgs: object[]): Promise<void> {
  const client = await connectAsync(c.mqtt, { ...brokerLogin(c), ...brokerTls(c) });
  try {
    for (const msg of msgs) await client.publishAsync(deviceTopic(c, channel), signedBy(c, msg), { qos: 1 });
  } finally {
    await client.endAsync();
  }
}

/** The topic of channel `channel` of the enrolled device `c` (under TLS the broker keeps
 * each device to its tenant's topics). */
const deviceTopic = (c: Credentials, channel: string) => `${c.tls ? `/tenants/${c.tls.tenant}/` : ''}gemba/v1/${c.organization}/${c.device}/${channel}`;

/** `msg` signed with the device's key (compact JWS, HS256, `kid` its credential id). */
function signedBy(c: Credentials, msg: object): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64url');
  const signed = `${b64(JSON.stringify({ alg: 'HS256', kid: String(c.credential_id) }))}.${b64(JSON.stringify(msg))}`;
  return `${signed}.${createHmac('sha256', Buffer.from(c.key, 'base64')).update(signed).digest('base64url')}`;
}

/** Says the enrolled device `c` is online (or offline), as its agent would, with its
 * cameras (`cameras`: their names, each idle); `extra` adds to or changes the status
 * (an agent's version, target, whether it can update itself). */
export async function sayStatus(c: Credentials, online: boolean, cameras: string[] = [], extra: Partial<StatusMessage> = {}): Promise<void> {
  const status: StatusMessage = {
    v: 1,
    online,
    ts_ms: Date.now(),
    agent_version: 'e2e',
    cameras: cameras.map((camera) => ({ camera, task: null, fps: 0, model_version: null, state: 'idle', generation: 0 })),
    outbox: 0,
    disk_free_mb: null,
    temperature_c: null,
    ...extra,
  };
  await publishSigned(c, 'status', status);
}

/**
 * Sends a cycle of `task` from the enrolled device `c` as its agent would: two steps
 * splitting the cycle; a bad one misses the second.
 */
export async function sendCycle(c: Credentials, task: number, at: { start_ms: number; end_ms: number; good: boolean }): Promise<void> {
  await sendCycles(c, task, [at]);
}

/** [`sendCycle`] for many cycles, over one connection. */
export async function sendCycles(c: Credentials, task: number, cycles: { start_ms: number; end_ms: number; good: boolean }[]): Promise<void> {
  await publishSigned(c, 'cycles', ...cycles.map((at) => cycleMessage(task, at)));
}

/** A cycle of `task` as an agent sends it: two steps splitting it; a bad one misses the second. */
function cycleMessage(task: number, at: { start_ms: number; end_ms: number; good: boolean }) {
  const mid = Math.round((at.start_ms + at.end_ms) / 2);
  return {
    v: 1,
    id: randomUUID(),
    task,
    camera: 'cam0',
    start_ms: at.start_ms,
    end_ms: at.end_ms,
    segments: at.good
      ? [
          { step: 0, start_ms: at.start_ms, end_ms: mid },
          { step: 1, start_ms: mid, end_ms: at.end_ms },
        ]
      : [{ step: 0, start_ms: at.start_ms, end_ms: at.end_ms }],
    idle_ms: 0,
    good: at.good,
    reasons: at.good ? [] : [{ reason: 'missed_step', step: 1 }],
    metadata: {},
  };
}

/**
 * [`sendCycle`], then its clip as the agent uploads it: the cycle's acknowledgement on
 * `cycles/ack` carries the clip link, and the video file at `clip` (its first frame
 * `clipStartMs` on the cycle's clock) goes whole in one `PUT` to it. Answers the cycle's id.
 */
export async function sendCycleWithClip(
  c: Credentials,
  task: number,
  at: { start_ms: number; end_ms: number; good: boolean },
  clip: string,
  clipStartMs: number,
): Promise<string> {
  const msg = cycleMessage(task, at);
  const client = await connectAsync(c.mqtt, { ...brokerLogin(c), ...brokerTls(c) });
  let clipUrl: string;
  try {
    const acked = new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no acknowledgement of cycle ${msg.id}`)), 15_000);
      client.on('message', (_topic, payload) => {
        // The cloud's signed message: its middle part is the acknowledgement.
        const ack = JSON.parse(Buffer.from(payload.toString().split('.')[1] ?? '', 'base64url').toString()) as { ids: string[]; clip_url?: string };
        if (!ack.ids.includes(msg.id)) return;
        clearTimeout(timer);
        if (ack.clip_url) done(ack.clip_url);
        else fail(new Error('the acknowledgement asks for no clip'));
      });
    });
    await client.subscribeAsync(deviceTopic(c, 'cycles/ack'), { qos: 1 });
    await client.publishAsync(deviceTopic(c, 'cycles'), signedBy(c, msg), { qos: 1 });
    clipUrl = await acked;
  } finally {
    await client.endAsync();
  }
  // The link's path, on the test server (its public address may be another name of it).
  const res = await fetch(`http://127.0.0.1:${port()}${new URL(clipUrl).pathname}${msg.id}?start_ms=${clipStartMs}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/octet-stream' },
    body: readFileSync(clip),
  });
  if (!res.ok) throw new Error(`uploading the clip of ${msg.id}: ${res.status} ${await res.text()}`);
  return msg.id;
}

/** The super admin changes task `task` of `org` (`PATCH organization/task/{id}/`). */
export async function patchTask(org: number, task: number, change: Record<string, unknown>): Promise<Task> {
  return call<Task>('PATCH', `organization/task/${task}/`, await admin(), change, { Organization: String(org) });
}

/** Signs a user up and verifies the address from the outbox: an account awaiting the
 * super admin's approval. */
export async function signUpVerified(email: string, password: string, name: string, lastname = 'Tester'): Promise<void> {
  const before = mailsTo(email).length;
  await call('POST', 'account/register', null, { name, lastname, email, password });
  await call('PATCH', `account/verify-email${verifyPathIn(await nextMail(email, before)).slice('/verify-email'.length)}`, null);
}

/** Signs a user up, verifies the address from the outbox, approves them with `role`, and
 * assigns `org`: the state a user is in after the sign-up flow (tested on its own). */
export async function createUser(email: string, password: string, role: string, org: number | null): Promise<void> {
  // A person name (letters, spaces): 'org_admin' becomes 'org admin'.
  await signUpVerified(email, password, role.replace(/_/g, ' '));
  await approveUser(email, role, org);
}

/** The super admin approves `email` with `role`, then assigns `org` (section 4). */
export async function approveUser(email: string, role: string, org: number | null): Promise<void> {
  const token = await admin();
  const roles = await call<RoleRecord[]>('GET', 'account/roles/', token);
  const roleId = roles.find((r) => r.name === role)?.id;
  if (roleId === undefined) throw new Error(`no role ${role}`);
  await call('PUT', 'account/approve_user', token, { email, roleId });
  if (org !== null) await call('PUT', 'account/assign_user_org', token, { email, organization: org });
}

// ----- signing in through the portal -------------------------------------------------

/** Signs in on the login screen of `host` with the e-mail code from the outbox, up to the
 * point where the portal leaves the sign-in screens. */
export async function uiLogin(page: Page, email: string, password: string, host = 'localhost'): Promise<void> {
  await page.goto(`${origin(host)}/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  const before = mailsTo(email).length;
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const selection = page.getByRole('heading', { name: 'Select Verification Method' });
  const verify = page.getByRole('heading', { name: 'Verify Code' });
  await expect(selection.or(verify)).toBeVisible();
  if (await selection.isVisible()) await page.getByRole('button', { name: 'E-mail' }).click();
  await expect(verify).toBeVisible();
  await page.getByLabel('6-digit code').fill(await nextCode(email, before));
  await page.getByRole('button', { name: 'Verify' }).click();
}

/** The sidebar's entries as shown, in order (waiting for the sidebar). */
/** Signs in on the admin host (`admin.localhost`) as a super admin, who lands on
 * Organizations. */
export async function adminUiLogin(page: Page, email: string, password: string): Promise<void> {
  await uiLogin(page, email, password, 'admin.localhost');
  await expect(page).toHaveURL(`${origin('admin.localhost')}/admin/organizations`);
}

export async function sidebarEntries(page: Page): Promise<string[]> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeVisible();
  return (await nav.getByRole('listitem').allInnerTexts()).map((t) => t.trim());
}

/** Opens the sidebar's entry `name` and waits for its screen (its heading of that name):
 * the screen before stays up while the next one's code loads, and an action meant for
 * the next one (an Operation chooser both have) would otherwise reach the one before. */
export async function openFromMenu(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name, exact: true })).toBeVisible();
}

/** The screen is shown (its heading) with no sidebar. */
export async function expectNoSidebar(page: Page): Promise<void> {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
}

/** The `otpauth://` address in the QR code the page shows (decoding the PNG the server
 * drew, as a phone's camera would). */
export async function scanQr(page: Page): Promise<URL> {
  const img = page.getByRole('img', { name: 'QR code for the authenticator app' });
  await expect(img).toBeVisible();
  const b64 = await img.evaluate(async (el: HTMLImageElement) => {
    const bytes = new Uint8Array(await (await fetch(el.src)).arrayBuffer());
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin);
  });
  const png = PNG.sync.read(Buffer.from(b64, 'base64'));
  const qr = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!qr) throw new Error('no QR code in the image');
  return new URL(qr.data);
}

function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The RFC 6238 code of `uri` at `now` (ms). */
export function totp(uri: URL, now: number): string {
  const digits = Number(uri.searchParams.get('digits') ?? 6);
  const period = Number(uri.searchParams.get('period') ?? 30);
  const algorithm = (uri.searchParams.get('algorithm') ?? 'SHA1').toLowerCase();
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 1000 / period)));
  const mac = createHmac(algorithm, base32(uri.searchParams.get('secret') ?? '')).update(counter).digest();
  const at = (mac[mac.length - 1] ?? 0) & 0x0f;
  const n = (mac.readUInt32BE(at) & 0x7fffffff) % 10 ** digits;
  return String(n).padStart(digits, '0');
}
