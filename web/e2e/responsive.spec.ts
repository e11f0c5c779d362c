/**
 * The portal from a phone to a desktop (issue 33), against the real server: at 390×844
 * (a phone), 820×1180 (a tablet) and 1440×900 the main journeys (sign-in, Dashboard, a
 * device, Analytics, live view, Cycle Trace with its clip, Label Training Set) fit the
 * viewport's width (the page does not scroll sideways and no element of the screen is
 * wider than the viewport) and each screen's primary action is shown whole in it. On the
 * phone the sidebar is a drawer behind the menu button, and the labeling timeline is
 * used by touch (a tap seeks) and by drag (marks a segment). Live view: a camera is
 * chosen on Cameras by a tap on its tile (a click on a desktop), and its player plays the
 * real agent's camera; below 900 px it takes the whole screen, the picture the whole
 * width, every control a 44 px touch target. The Dashboard's wall display shows without
 * the header and sidebar.
 *
 * One set-up for all (an organisation with a device, cycles, one with a clip uploaded as
 * the agent does, and a video to label, made through the API; and a second device, the
 * real agent (`target/debug/gemba-agent`) with its camera on GStreamer's test pattern).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Locator, type Page, expect, test } from '@playwright/test';

import {
  addDevice,
  clearOfMidnight,
  createOrganization,
  createTask,
  createUser,
  enrolDevice,
  makeClip,
  origin,
  patchTask,
  sayStatus,
  sendCycleWithClip,
  sendCycles,
  subscribe,
  uiLogin,
  uniqueName,
  runAgent,
  uploadVideo,
} from './env';

const PASSWORD = 'responsive-pass-1';
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 820, height: 1180 },
  { width: 1440, height: 900 },
] as const;

let email = '';
let site = '';
let device = 0;
let cycle = '';
let task = 0;
let stopAgent = () => {};

test.beforeAll(async () => {
  test.setTimeout(60_000);
  // The Dashboard's Today must hold the three cycles below.
  const now = await clearOfMidnight();
  const run = uniqueName();
  const org = await createOrganization(`Floor Works ${run}`);
  for (const f of ['Devices', 'Define Operation']) await subscribe(org.id, f);
  const t = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  task = t.id;
  await patchTask(org.id, task, { stepsAvgTime: { cycle_time: 40 } });
  const enrolment = await addDevice(org.id, 'Bench 7');
  device = enrolment.device.id;
  const creds = await enrolDevice(enrolment.code);
  await sayStatus(creds, true, ['cam0']);
  const dir = mkdtempSync(join(tmpdir(), 'gemba-e2e-responsive-'));
  try {
    const clip = join(dir, 'pump.mp4');
    makeClip(clip, 'ball');
    await sendCycles(creds, task, [
      { start_ms: now - 120_000, end_ms: now - 76_000, good: true },
      { start_ms: now - 70_000, end_ms: now - 40_000, good: false },
    ]);
    // The clip (2 s) holds the whole cycle (1.6 s) from 0.2 s before it.
    cycle = await sendCycleWithClip(creds, task, { start_ms: now - 30_000, end_ms: now - 28_400, good: true }, clip, now - 30_200);
    await uploadVideo(org.id, task, clip);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The live camera: the real agent, online by the time a journey reaches Cameras.
  stopAgent = runAgent((await addDevice(org.id, 'Line cam')).code, ['cam0=test']);
  email = `responsive-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_admin', org.id);
  site = origin(`${org.name}.localhost`);
});

test.afterAll(() => stopAgent());

/** Nothing is wider than the viewport: the page does not scroll sideways, and no
 * element of the screen is wider than it, but for the content of a box that scrolls
 * sideways itself (a table "scrolls inside its box"), which the box fits. */
async function expectFits(page: Page, what: string): Promise<void> {
  const r = await page.evaluate(() => {
    const width = window.innerWidth;
    const scrolls = (el: Element) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const inScrollBox = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return true;
      return false;
    };
    const wide = [...document.querySelectorAll('header, header *, main, main *')]
      .filter((el) => el.getBoundingClientRect().width > width + 0.5 && !inScrollBox(el))
      .map((el) => `${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className ? `.${el.className.replace(/ /g, '.')}` : ''}`);
    return { width, page: document.scrollingElement?.scrollWidth ?? 0, wide: wide.slice(0, 5) };
  });
  expect(r.page, `${what}: the page is ${r.page} px wide in a ${r.width} px viewport`).toBeLessThanOrEqual(r.width);
  expect(r.wide, `${what}: wider than the viewport`).toEqual([]);
}

/** `action` is shown whole inside the viewport (once scrolled to, for those below the fold). */
async function expectShown(action: Locator): Promise<void> {
  await action.scrollIntoViewIfNeeded();
  await expect(action).toBeInViewport({ ratio: 1 });
}

for (const viewport of VIEWPORTS) {
  const phone = viewport.width < 600;
  const drawer = viewport.width < 900;
  test(`the main journeys fit ${viewport.width}×${viewport.height}`, async ({ browser }) => {
    test.setTimeout(150_000);
    const context = await browser.newContext({ viewport, hasTouch: drawer, isMobile: phone });
    const page = await context.newPage();
    try {
      // Sign-in.
      await page.goto(`${origin()}/login`);
      await expectShown(page.getByRole('button', { name: 'Sign in', exact: true }));
      await expectFits(page, 'Login');
      await uiLogin(page, email, PASSWORD);

      // Dashboard.
      await expect(page).toHaveURL(`${site}/user/home`);
      await expect(page.getByRole('article', { name: 'Today' }).getByTestId('Today-cycles')).toHaveText('3');
      await expect(page.getByRole('figure', { name: 'Cycles today by hour' })).toBeVisible();
      await expectShown(page.getByRole('link', { name: 'Wall display' }));
      await expectFits(page, 'Dashboard');
      const nav = page.getByRole('navigation', { name: 'Main' });
      const menu = page.getByRole('button', { name: 'Menu', exact: true });
      if (drawer) {
        // The sidebar waits behind the menu button.
        await expect(nav).toBeHidden();
        await expectShown(menu);
      } else {
        await expect(menu).toHaveCount(0);
        await expect(nav).toBeVisible();
      }

      // Analytics, from the sidebar (in the drawer on narrow screens).
      if (drawer) {
        await menu.click();
        await expect(menu).toHaveAttribute('aria-expanded', 'true');
      }
      await nav.getByRole('link', { name: 'Analytics', exact: true }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();
      if (drawer) await expect(nav).toBeHidden();
      await expect(page.getByRole('figure').first()).toBeVisible();
      await expectShown(page.getByLabel('Operation', { exact: true }));
      await expectFits(page, 'Analytics');

      // A device.
      await page.goto(`${site}/user/devices/${device}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Bench 7' })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Cameras' })).toBeVisible();
      await expectShown(page.getByRole('form', { name: 'Start a task' }).getByRole('button', { name: 'Start' }));
      await expectFits(page, 'Device');

      // Live view: the camera chosen on Cameras (a tap on its tile where there is touch),
      // its player playing it.
      await page.goto(`${site}/user/cameras`);
      await expect(page.getByRole('heading', { level: 1, name: 'Cameras' })).toBeVisible();
      const tile = page.getByRole('button', { name: 'cam0 on Line cam' });
      await expect(tile).toHaveAccessibleDescription(/^Live Camera: /, { timeout: 60_000 });
      await expectShown(tile);
      await expectFits(page, 'Cameras');
      if (drawer) await tile.tap();
      else await tile.click();
      const live = page.getByRole('dialog', { name: 'cam0 on Line cam' });
      await expect(page).toHaveURL(/\?watch=\d+%2Fcam0$/);
      await expect(live.getByRole('status', { name: 'Live video state' })).toHaveText('Live', { timeout: 60_000 });
      const picture = live.getByLabel('Live video of cam0 on Line cam, full screen');
      await expect.poll(() => picture.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight])).toEqual([320, 240]);
      await expectShown(picture);
      await expectShown(live.getByRole('button', { name: 'Close' }));
      await expectFits(page, 'Live view');
      await page.screenshot({ path: test.info().outputPath(`live-view-${viewport.width}.png`) });
      if (drawer) {
        // The whole screen, the picture the whole width, every control touch-sized.
        const box = (await live.boundingBox())!;
        expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, viewport.width, viewport.height]);
        expect((await picture.boundingBox())!.width).toBeGreaterThan(viewport.width - 40);
        for (const b of await live.getByRole('button').all()) {
          const name = (await b.textContent()) ?? '';
          expect((await b.boundingBox())!.height, `the ${name} button's height`).toBeGreaterThanOrEqual(44);
          expect((await b.boundingBox())!.width, `the ${name} button's width`).toBeGreaterThanOrEqual(44);
        }
        // The views switch by a tap; Close by a tap leaves the player.
        await live.getByRole('button', { name: 'Screenshots' }).tap();
        await expect(live.getByRole('button', { name: 'Screenshots' })).toHaveAttribute('aria-pressed', 'true');
        await live.getByRole('button', { name: 'Live', exact: true }).tap();
        await expect(live.getByRole('status', { name: 'Live video state' })).toHaveText('Live', { timeout: 60_000 });
        await live.getByRole('button', { name: 'Close' }).tap();
      } else {
        await live.getByRole('button', { name: 'Close' }).click();
      }
      await expect(live).toBeHidden();

      // Cycle Trace with its clip.
      await page.goto(`${site}/cycle-trace/${cycle}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Cycle Trace' })).toBeVisible();
      const clip = page.getByLabel('Cycle clip');
      await expect.poll(() => clip.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
      await expectShown(clip);
      await expectShown(page.getByRole('button', { name: /^Play Fit housing from/ }).first());
      await expectFits(page, 'Cycle Trace');

      // Label Training Set, a video chosen.
      await page.goto(`${site}/user/label-data?task=${task}`);
      await page.getByRole('button', { name: 'Label pump.mp4' }).click();
      const player = page.getByLabel('Labeling pump.mp4');
      await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
      await expectShown(page.getByRole('button', { name: 'Play / pause' }));
      await expectShown(page.getByRole('button', { name: 'Save labels' }));
      await expectFits(page, 'Label Training Set');
      if (phone) {
        // Touch-sized, full-width player; a tap on the timeline seeks, a drag marks.
        const width = await player.evaluate((v) => v.getBoundingClientRect().width);
        expect(width).toBeGreaterThan(viewport.width - 40);
        const timeline = page.getByRole('slider', { name: /^Timeline/ });
        const box = (await timeline.boundingBox())!;
        expect(box.height).toBeGreaterThanOrEqual(44);
        await timeline.scrollIntoViewIfNeeded();
        const b = (await timeline.boundingBox())!;
        await page.touchscreen.tap(b.x + b.width * 0.5, b.y + b.height / 2);
        await expect(page.getByText(/^At (0\.9|1\.0)\d\d s/)).toBeVisible();
        await page.getByRole('button', { name: '2. Check seal' }).click();
        await page.mouse.move(b.x + b.width * 0.1, b.y + b.height / 2);
        await page.mouse.down();
        await page.mouse.move(b.x + b.width * 0.3, b.y + b.height / 2, { steps: 4 });
        await page.mouse.move(b.x + b.width * 0.4, b.y + b.height / 2, { steps: 4 });
        await page.mouse.up();
        await expect(page.getByRole('slider', { name: 'Timeline: 1 segment' })).toBeVisible();
        await expect(page.getByRole('table', { name: 'Segments' }).getByRole('row').nth(1)).toContainText('2. Check seal');
      }

      // The Dashboard as a wall display: the screen alone.
      await page.goto(`${site}/user/home?display=wall`);
      await expect(page.getByRole('article', { name: 'Today' }).getByTestId('Today-cycles')).toHaveText('3');
      await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
      await expect(page.getByRole('banner')).toHaveCount(0);
      await expectShown(page.getByRole('link', { name: 'Leave wall display' }));
      await expectFits(page, 'Wall display');
    } finally {
      await context.close();
    }
  });
}
