/**
 * Starts the real `gemba-cloud serve` for the end-to-end tests: a fresh data folder
 * (SQLite, e-mail outbox), free ports, the built portal (`web/dist`), base domain
 * `localhost` (Chromium resolves `*.localhost` to this machine, so organisation
 * sub-domains and the admin host `admin.localhost` are real hosts). The tests find it
 * through `GEMBA_E2E_*` variables; the returned function stops it, and fails the run
 * when a page broke the content security policy (Chromium reports each violation to
 * the server, which logs it). A real OpenID provider (`tests/oidc/provider.mjs`, the
 * `oidc-provider` package) runs beside it as the deployment's Microsoft and Google
 * sign-in, so the single sign-on buttons lead to a real provider's sign-in page.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { ADMIN, apiLogin } from './env';

/** A port nobody listens on whose next port is free too (the broker takes two). */
async function freePortPair(): Promise<number> {
  const listen = (port: number) =>
    new Promise<number | null>((done) => {
      const s = createServer();
      s.once('error', () => done(null));
      s.listen(port, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
  for (let i = 0; i < 100; i++) {
    const p = 20000 + Math.floor(Math.random() * 12000);
    if ((await listen(p)) && (await listen(p + 1))) return p;
  }
  throw new Error('no free port pair');
}

/** The test OpenID provider, sending browsers back to the portal at `http`; its issuer. */
async function startProvider(root: string, http: number): Promise<{ proc: ChildProcess; issuer: string }> {
  const proc = spawn(process.execPath, [join(root, 'tests/oidc/provider.mjs')], {
    env: { ...process.env, OIDC_REDIRECT_URIS: `http://localhost:${http}/sso-callback` },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const issuer = await new Promise<string>((done, fail) => {
    let buf = '';
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line) done((JSON.parse(line) as { issuer: string }).issuer);
    });
    proc.once('exit', () => fail(new Error('the test OpenID provider stopped at start: run `npm ci` in tests/oidc')));
    setTimeout(() => fail(new Error('the test OpenID provider did not start within 30 s')), 30_000);
  });
  return { proc, issuer };
}

async function waitHealthy(url: string, proc: ChildProcess, log: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`gemba-cloud stopped at start; see ${log}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gemba-cloud did not answer /api/health within 60 s; see ${log}`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const root = resolve(import.meta.dirname, '../..');
  const bin = process.env.GEMBA_BIN ?? join(root, 'target/debug/gemba-cloud');
  const data = mkdtempSync(join(tmpdir(), 'gemba-e2e-'));
  const http = await freePortPair();
  let mqtt = await freePortPair();
  while (Math.abs(mqtt - http) < 2) mqtt = await freePortPair();
  const log = `${data}.log`;
  const oidc = await startProvider(root, http);
  const proc = spawn(
    bin,
    ['serve', '--data', join(data, 'data'), '--http', `127.0.0.1:${http}`, '--mqtt', `127.0.0.1:${mqtt}`, '--web-dir', process.env.GEMBA_E2E_DIST ?? join(root, 'web/dist')],
    {
      env: {
        ...process.env,
        RUST_LOG: process.env.RUST_LOG ?? 'warn',
        GEMBA_ADMIN_EMAIL: ADMIN.email,
        GEMBA_ADMIN_PASSWORD: ADMIN.password,
        GEMBA_BASE_DOMAIN: 'localhost',
        GEMBA_ADMIN_HOST: 'admin.localhost',
        // Live view's TURN relay on a free port (live-view.spec.ts goes through it).
        GEMBA_TURN_PORT: '0',
        // Every spec signs its users up from this one client: the mail limits'
        // defaults are tested by the API suite (hardening.rs).
        GEMBA_MAIL_LIMIT__PER_CLIENT_PER_HOUR: '10000',
        GEMBA_MAIL_LIMIT__PER_ADDRESS_PER_HOUR: '1000',
        // The training code (the Python that runs it comes from scripts/lib.sh).
        GEMBA_TRAINER_SCRIPT: join(root, 'models/train.py'),
        // Single sign-on through the test provider's client `gemba`.
        GEMBA_SSO__AZURE__ISSUER: oidc.issuer,
        GEMBA_SSO__AZURE__CLIENT_ID: 'gemba',
        GEMBA_SSO__GOOGLE__ISSUER: oidc.issuer,
        GEMBA_SSO__GOOGLE__CLIENT_ID: 'gemba',
        // The run's one super-admin token lasts the run.
        GEMBA_ACCESS_TOKEN_TTL_SECS: '7200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out = createWriteStream(log);
  proc.stdout?.pipe(out);
  proc.stderr?.pipe(out);
  await waitHealthy(`http://127.0.0.1:${http}`, proc, log);

  process.env.GEMBA_E2E_PORT = String(http);
  process.env.GEMBA_E2E_DATA = join(data, 'data');
  process.env.GEMBA_E2E_OIDC = oidc.issuer;
  // The super admin signs in by API once for the whole run: a sign-in per spec file
  // would ask for more e-mail codes than the server sends a user in ten minutes.
  process.env.GEMBA_E2E_ADMIN_TOKEN = (await apiLogin(ADMIN.email, ADMIN.password)).token;

  return async () => {
    oidc.proc.kill('SIGTERM');
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
    // The log is written through once the server's output has ended.
    await Promise.race([
      new Promise<void>((r) => (out.writableFinished ? r() : out.once('finish', () => r()))),
      new Promise((r) => setTimeout(r, 2000)),
    ]);
    if (!process.env.GEMBA_E2E_KEEP) rmSync(data, { recursive: true, force: true });
    const violations = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('content security policy violation'));
    if (violations.length > 0) {
      throw new Error(`pages broke the content security policy (${violations.length}):\n${violations.slice(0, 10).join('\n')}`);
    }
  };
}
