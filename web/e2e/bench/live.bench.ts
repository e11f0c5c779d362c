/**
 * Benchmark (issue 29): live view's glass-to-glass latency and the agent's CPU, with the
 * real agent on the `stamp` camera (640 × 360 at 30 fps, the time each frame is made
 * drawn into it, `edge-agent/src/capture/stamp.rs`) and Debian's Chromium reading the
 * time back from each frame it shows. On this one machine both clocks are the same.
 * Phases, each SECONDS long (default 120): nobody watching; one viewer directly; two
 * viewers; one viewer only through the cloud's relay; one viewer while the camera runs
 * a task at 15 fps. The agent's CPU time (utime + stime of /proc/PID/stat) is read
 * around each phase. Writes `target/bench/live.json`. Run by `bench/live.sh`.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { expect, test } from '@playwright/test';

import type { DeviceDetails } from '../../src/api/generated';
import { addDevice, adminGet, apiLogin, createOrganization, createTask, createUser, origin, runTaskOn, startAgent, subscribe, uniqueName } from '../env';
import { type WatchArgs, watchInPage } from '../live';

const SECONDS = Number(process.env.SECONDS_EACH ?? 120);
const PASSWORD = 'live-bench-1';
const TICK = 100; // clock ticks a second (CLK_TCK on Linux)

/** The process's CPU time so far, in seconds. */
function cpu(pid: number): number {
  const f = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

test.setTimeout(30 * 60_000);

test('live view latency and agent CPU', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Live Bench ${run}`);
  for (const f of ['Devices', 'Define Operation']) await subscribe(org.id, f);
  const bench = await addDevice(org.id, 'Bench');
  const agent = startAgent(bench.code, ['cam0=stamp']);
  const results: Record<string, unknown> = { seconds_each: SECONDS };
  try {
    const email = `live-bench-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_user', org.id);
    const { token } = await apiLogin(email, PASSWORD);
    await page.goto(origin());
    const base: WatchArgs = { org: org.id, device: bench.device.id, token, relay: false, viewers: 1, stamp: true, holdMs: SECONDS * 1000 };
    // Until the device is online.
    for (let i = 0; i < 30; i++) {
      const d = await adminGet<DeviceDetails>(org.id, `device/${bench.device.id}/device_details/`);
      if (d.online) break;
      await page.waitForTimeout(1_000);
    }
    const phase = async (name: string, args: WatchArgs | null) => {
      const before = cpu(agent.pid);
      const t = Date.now();
      let latencies: number[] = [];
      let unread = 0;
      if (args) {
        const r = await page.evaluate(watchInPage, args);
        if (typeof r === 'string' || !r[0]) throw new Error(`${name}: ${typeof r === 'string' ? r : 'no viewer'}`);
        latencies = r[0].latencies;
        unread = r[0].unread;
        if (unread > latencies.length) console.log(name, 'frames unread, the first', r[0].firstUnread);
        expect(r.every((v) => v.t1 - v.t0 > SECONDS / 2)).toBe(true);
      } else {
        await page.waitForTimeout(SECONDS * 1000);
      }
      const secs = (Date.now() - t) / 1000;
      const used = ((cpu(agent.pid) - before) / secs) * 100;
      results[name] = {
        agent_cpu_pct_of_a_core: Math.round(used * 10) / 10,
        frames_read: latencies.length,
        frames_unread: unread,
        latency_ms_p50: pct(latencies, 50),
        latency_ms_p95: pct(latencies, 95),
      };
      console.log(name, JSON.stringify(results[name]));
    };
    await phase('nobody_watching', null);
    await phase('direct_1_viewer', base);
    await phase('direct_2_viewers', { ...base, viewers: 2 });
    await phase('relay_1_viewer', { ...base, relay: true });
    // A task on the camera (the demo model's steps) while it is watched: its frame rate.
    const task = await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\nFasten screws:\nDrive;\nInspect:\nLook;\n');
    await runTaskOn(org.id, bench.device.id, 'cam0', task.id);
    await page.waitForTimeout(10_000);
    await phase('task_and_1_viewer', base);
    const d = await adminGet<DeviceDetails>(org.id, `device/${bench.device.id}/device_details/`);
    results.task_fps = d.status?.cameras.find((c) => c.camera === 'cam0')?.fps ?? null;
  } finally {
    agent.stop();
  }
  const out = resolve(import.meta.dirname, '../../../target/bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'live.json'), JSON.stringify(results, null, 2));
});
