/**
 * Benchmark (issue 7): the time to render Analytics in headless Chromium with 10,000
 * cycles behind it, against the real server. One station's 10,000 cycles over 83 days;
 * the page is opened by the hour (1,992 trend points in each trend chart, the server's
 * most is 2,000) and by the day (83 points), alternately, RUNS times (default 5) each in
 * one browser: ms from the navigation's start, by the page's own clock, until both trend
 * charts, the distribution and the steps are drawn (the trend's table is drawn when
 * opened). Writes
 * `target/bench/render.json`. Run by `bench/render.sh`; not part of the tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { expect, test } from '@playwright/test';

import { addDevice, apiLogin, createOrganization, createTask, createUser, enrolDevice, origin, sendCycles, subscribe, uiLogin, uniqueName } from '../env';

const CYCLES = 10_000;
const DAYS = 83;
const RUNS = Number(process.env.RUNS ?? 5);
const PASSWORD = 'render-bench-1';

test.setTimeout(20 * 60_000);

test('analytics renders 10,000 cycles', async ({ page }) => {
  const run = uniqueName();
  const name = `Render Works ${run}`;
  const org = await createOrganization(name);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  const device = await enrolDevice((await addDevice(org.id, 'Bench 1')).code);
  const today = new Date(new Date().setHours(0, 0, 0, 0));
  const first = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (DAYS - 1));
  const span = Date.now() - 60_000 - first.getTime();
  const cycles = Array.from({ length: CYCLES }, (_, i) => {
    const start = first.getTime() + Math.floor((i * span) / CYCLES);
    // 30-50 s, about one in eight bad.
    return { start_ms: start, end_ms: start + 30_000 + ((i * 7919) % 20_000), good: i % 8 !== 0 };
  });
  for (let i = 0; i < CYCLES; i += 1000) await sendCycles(device, task.id, cycles.slice(i, i + 1000));
  const email = `render-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  // Every cycle stored before anything is timed.
  const token = (await apiLogin(email, PASSWORD)).token;
  await expect
    .poll(
      async () => {
        const r = await fetch(`${origin()}/api/telemetry/fetch_cycles/v2?page_size=1`, {
          headers: { Authorization: `Bearer ${token}`, Organization: String(org.id) },
        });
        return ((await r.json()) as { count: number }).count;
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toBe(CYCLES);

  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();
  const host = new URL(page.url()).host;
  const iso = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  const url = (bucket: string) => `http://${host}/user/analytics?from=${iso(first)}&to=${iso(today)}&bucket=${bucket}`;
  const times: Record<string, number[]> = { hour: [], day: [] };
  const points: Record<string, number> = {};
  for (let r = 0; r < RUNS + 1; r++) {
    for (const bucket of r % 2 ? ['day', 'hour'] : ['hour', 'day']) {
      await page.goto(url(bucket), { waitUntil: 'commit' });
      const ms = await page.waitForFunction(
        () => {
          const bars = document.querySelectorAll('figure[aria-label="Good and bad cycles over time"] .recharts-bar-rectangle').length;
          const line = document.querySelector('figure[aria-label="Average cycle time over time"] .recharts-line-curve');
          const dist = document.querySelectorAll('figure[aria-label="Cycle-time distribution"] .recharts-bar-rectangle').length;
          const steps = document.querySelectorAll('table[aria-label="Step times"] tbody tr').length;
          if (bars > 0 && line && dist > 0 && steps > 0) {
            // The trend's points: the x axis's data, as the CSV link carries them.
            const csv = document.querySelector<HTMLAnchorElement>('a[download^="cycles-"]')?.href ?? '';
            const rows = decodeURIComponent(csv).trim().split('\n').length - 1;
            return { at: performance.now(), rows };
          }
          return null;
        },
        undefined,
        { polling: 'raf', timeout: 60_000 },
      );
      const { at, rows } = (await ms.jsonValue())!;
      points[bucket] = rows;
      // The first pass warms the browser's cache and the server's; it is not counted.
      if (r > 0) times[bucket]!.push(at);
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const result = Object.entries(times).map(([bucket, xs]) => ({
    bucket,
    trend_points: points[bucket],
    runs: xs.length,
    median_ms: Math.round(median(xs)),
    min_ms: Math.round(Math.min(...xs)),
    max_ms: Math.round(Math.max(...xs)),
  }));
  const out = resolve(import.meta.dirname, '../../../target/bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'render.json'), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result));
  expect(points.hour).toBeGreaterThan(1900);
});
