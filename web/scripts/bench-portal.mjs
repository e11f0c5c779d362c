#!/usr/bin/env node
// Portal timings in headless Chromium (Debian's, driven by Playwright) against a running
// gemba-cloud: bench/portal.sh starts the server, makes the account and calls this.
//   login_interactive: a fresh browser context (empty cache) opens /login; the time, by
//     the page's own clock (ms since navigation start), when the Sign-in button is in
//     the page and enabled.
//   login_warm: the same in the same context again (cached scripts).
//   to_dashboard: from the Sign-in click to the Dashboard heading on the organisation's
//     sub-domain (password-only sign-in; includes the spec's 1 s organisation-switch
//     delay and the page load on the new host).
// Usage: node bench-portal.mjs ORIGIN EMAIL PASSWORD [RUNS]. Prints one JSON line per
// measurement kind with the median, min and max of the runs.
import { chromium } from '@playwright/test';

const [origin, email, password, runsArg] = process.argv.slice(2);
if (!origin || !email || !password) {
  console.error('usage: bench-portal.mjs ORIGIN EMAIL PASSWORD [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg ?? 10);
const browser = await chromium.launch({
  executablePath: process.env.GEMBA_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/** Navigates to /login and answers the ms (since navigation start) to an enabled Sign-in button. */
async function loginScreen(page) {
  await page.goto(`${origin}/login`, { waitUntil: 'commit' });
  await page.waitForFunction(() => {
    const b = [...document.querySelectorAll('button')].find((x) => x.textContent === 'Sign in');
    if (b && !b.disabled) {
      window.__ready ??= performance.now();
      return true;
    }
    return false;
  }, undefined, { polling: 'raf' });
  return page.evaluate(() => window.__ready);
}

const results = { login_interactive: [], login_warm: [], to_dashboard: [] };
for (let i = 0; i < runs; i++) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  results.login_interactive.push(await loginScreen(page));
  results.login_warm.push(await loginScreen(page));

  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Sign in' }).click();
  try {
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor({ timeout: 20_000 });
  } catch (err) {
    await page.screenshot({ path: '../target/bench/portal-failure.png' });
    console.error(`no dashboard at ${page.url()}; screenshot: target/bench/portal-failure.png`);
    throw err;
  }
  results.to_dashboard.push(Date.now() - t0);
  if (new URL(page.url()).hostname === new URL(origin).hostname) throw new Error(`expected the organisation's sub-domain, got ${page.url()}`);
  await ctx.close();
}
await browser.close();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
for (const [name, xs] of Object.entries(results)) {
  const r = (x) => Math.round(x * 10) / 10;
  console.log(JSON.stringify({ measurement: name, runs: xs.length, median_ms: r(median(xs)), min_ms: r(Math.min(...xs)), max_ms: r(Math.max(...xs)) }));
}
