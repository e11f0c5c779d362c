/**
 * A cycle's video clip on Cycle Trace, through every real part: the real agent
 * (`target/debug/gemba-agent`) runs the demo operation on the demo footage in real time
 * with the default model, keeps its camera's last minutes encoded, cuts each cycle's
 * clip from them and uploads it once the cloud has stored the cycle. The analytics user
 * opens the cycle from Trace: the clip plays, the step highlighted on its timeline and in
 * the step table follows the video, and a step played from the table moves the video to
 * that step's start.
 */
import { expect, test } from '@playwright/test';

import type { CycleDetails } from '../src/api/generated/CycleDetails';
import { addDevice, adminGet, createOrganization, createTask, createUser, origin, runAgent, runTaskOn, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'clip-pass-1';
const OPERATION = 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\nFasten screws:\nDrive;\nInspect:\nLook;\n';

test('a cycle plays its clip with the step timeline following, and jumps to a step', async ({ page }) => {
  test.setTimeout(240_000);
  const run = uniqueName();
  const org = await createOrganization(`Clips ${run}`);
  for (const f of ['Devices', 'Define Operation']) await subscribe(org.id, f);
  const task = await createTask(org.id, OPERATION);
  const bench = await addDevice(org.id, 'Bench');
  await runTaskOn(org.id, bench.device.id, 'cam0', task.id);
  const stopAgent = runAgent(bench.code);
  let details: CycleDetails | null = null;
  try {
    // The first cycle with all four steps whose clip has arrived.
    await expect
      .poll(
        async () => {
          const list = await adminGet<{ results: { id: string }[] }>(org.id, `telemetry/fetch_cycles/v2?task=${task.id}&page_size=20`);
          for (const c of list.results) {
            const d = await adminGet<CycleDetails>(org.id, `telemetry/trace/trace_single_cycle_details/?cycle_id=${c.id}`);
            if (d.clip && d.cycle.segments.length >= 3) {
              details = d;
              return true;
            }
          }
          return false;
        },
        { timeout: 180_000, intervals: [2_000] },
      )
      .toBe(true);
  } finally {
    stopAgent();
  }
  const d = details as unknown as CycleDetails;
  const clip = d.clip!;
  const segments = d.cycle.segments;
  const seg = (i: number) => segments.at(i)!;
  const name = (i: number) => d.steps[seg(i).step] ?? `Step ${seg(i).step + 1}`;
  // The clip holds the whole cycle, from a little before it to a little after.
  expect(clip.start_ms).toBeLessThanOrEqual(d.cycle.start_ms);
  expect(clip.start_ms + clip.duration_ms).toBeGreaterThanOrEqual(d.cycle.end_ms);

  const email = `clips-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  // Trace lists the station's cycles, each opening its trace.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trace', exact: true }).click();
  await expect(page.getByRole('link', { name: /^Trace of the cycle ended/ }).first()).toBeVisible();
  // Those with a clip say so.
  await expect(page.getByRole('link', { name: /^Play clip \(\d+\.\d s\) of the cycle ended/ }).first()).toContainText(/▶ Play clip \(\d+\.\d s\)/);
  await page.goto(`${site}/cycle-trace/${d.cycle.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Cycle Trace' })).toBeVisible();

  const video = page.getByLabel('Cycle clip');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => Math.round(v.duration * 1000)), { timeout: 20_000 }).toBeGreaterThan(clip.duration_ms - 500);
  const now = page.getByRole('status', { name: 'Now playing' });
  const steps = page.getByRole('table', { name: 'Step times' });

  // Played: the highlighted step follows the video, on the timeline and in the table.
  // At its own pace through the first step (at 4x a short step lasted under a second
  // of wall time, and a busy CI run looked too late), then faster to the last.
  await video.evaluate((v: HTMLVideoElement) => v.play());
  const first = seg(0);
  const last = seg(-1);
  await expect(now).toContainText(name(0), { timeout: 20_000 });
  await expect(page.getByRole('button', { name: new RegExp(`^Play ${name(0)} from`) })).toHaveAttribute('aria-current', 'step');
  await expect(steps.locator('tr[aria-current="step"]')).toContainText(name(0));
  await video.evaluate((v: HTMLVideoElement) => {
    v.playbackRate = 4;
  });
  await expect(now).toContainText(name(-1), { timeout: 60_000 });
  await expect(steps.locator('tr[aria-current="step"]')).toContainText(name(-1));
  expect(first.step).not.toBe(last.step);

  // A step played from the table: the video moves to its start, and the step is the one shown.
  await video.evaluate((v: HTMLVideoElement) => v.pause());
  const second = seg(1);
  await steps.getByRole('row').nth(2).getByRole('button', { name: 'Play from here' }).click();
  await expect
    .poll(() => video.evaluate((v: HTMLVideoElement) => Math.round(v.currentTime * 1000)))
    .toBeGreaterThanOrEqual(second.start_ms - clip.start_ms - 100);
  expect(await video.evaluate((v: HTMLVideoElement) => v.currentTime * 1000)).toBeLessThan(second.start_ms - clip.start_ms + 100);
  await expect(now).toContainText(name(1));
  // And from the timeline: the last step.
  await page.getByRole('button', { name: new RegExp(`^Play ${name(-1)} from`) }).last().click();
  await expect(now).toContainText(name(-1));
});
