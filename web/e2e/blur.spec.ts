/**
 * Privacy blur with real parts: the real agent (`target/debug/gemba-agent`) with its
 * camera cam0 on the demo footage (640 × 480) and cam1 on the test pattern, no task
 * running. An org user opens cam0's player on Cameras, draws a region over the grey
 * bin in the middle of the footage (light grey with a dark inside: sharp edges in
 * brightness against each other and the floor, in a neutral colour that JPEG's coarse
 * colour planes hardly ring around; the hand reaching in now and then does not matter)
 * on the agent's picture by dragging with the mouse, and saves it. The pictures are read in the page (copied into a canvas), block by
 * block as the agent cuts the region (`pixels.ts`): in a screenshot taken after the
 * save and in the live video, the inner half of every block is one colour, and the
 * blocks differ (a mosaic, not a fill); in the picture taken before, and in the live
 * video before, edges cross some blocks, so the same check fails there. A save the
 * server refuses (the device's 64 regions are all used, most on cam1; its region drawn
 * by keyboard: the frame focused, arrow keys, Enter) shows its message and keeps the
 * drawing; the region deleted, a new screenshot has its edges back. The
 * pictures go to the test's output folder.
 */
import { writeFileSync } from 'node:fs';

import { expect, test, type Locator, type Page } from '@playwright/test';

import type { BlurRegionsWrite, DeviceBlurRegion, Rect } from '../src/api/generated';
import { addDevice, adminGet, adminSend, createOrganization, createUser, demoFootage, openFromMenu, runAgent, subscribe, uiLogin, uniqueName } from './env';
import { type Block, type BlockRead, blocksOf, grabInPage, pngInPage, readBlocksInPage } from './pixels';

const PASSWORD = 'blur-spec-1';
const TITLE = 'cam0 on Bench';

/** The demo footage's size, the pictures' and the live video's. */
const W = 640;
const H = 480;

/**
 * The region drawn, as fractions of the picture: the grey bin's top-left part (the bin
 * at x 250–410, y 270–390 of the footage, its dark inside at x 300–360, y 310–350) with
 * the floor around. 165 × 121 pixels, so blocks of 20: even, so that the agent's colour
 * planes are pixelated block for block too. It cuts them into blocks of half the block,
 * rounded down: an odd block's colour blocks drift off its brightness blocks, a pixel
 * further each block, and an inner half can hold two colours (seen with blocks of 19).
 */
const DRAWN = { from: [0.36, 0.53], to: [0.616, 0.78] } as const;

/** Largest spread of a channel over a block's inner half in a pixelated picture: JPEG's
 * and H.264's noise (a strong colour edge between two blocks rings up to about 20 into
 * the next block's inner half in a JPEG; 8 at most here). */
const FLAT = 24;
/** Smallest spread of a channel over some block's inner half in the picture unblurred:
 * an edge of the bin crosses it (light grey, dark grey and the floor differ by 50 and
 * more). */
const EDGES = 48;
/** Smallest spread of the blocks' colours in a pixelated picture: the bin shows through. */
const MOSAIC = 30;

/** Copies what `el` shows into the page's canvas named `name` (its size). */
const grab = (el: Locator, name: string) => el.evaluate(grabInPage, name);
/** Reads `blocks` of the picture grabbed as `name`. */
const read = (page: Page, name: string, blocks: Block[]) => page.evaluate(readBlocksInPage, { name, blocks });

const maxSpread = (r: BlockRead[]) => Math.max(...r.map((b) => b.spread));
/** How far the blocks' colours spread, the largest of R, G and B. */
const mosaic = (r: BlockRead[]) => Math.max(...[0, 1, 2].map((c) => Math.max(...r.map((b) => b.inner[c] ?? 0)) - Math.min(...r.map((b) => b.inner[c] ?? 0))));
const summary = (r: BlockRead[]) => r.map((b) => b.spread).join(' ');

/** A JPEG whose image has loaded: its size. */
const loaded = (img: Locator) =>
  expect.poll(() => img.evaluate((i: HTMLImageElement) => (i.complete ? [i.naturalWidth, i.naturalHeight] : null)), { timeout: 20_000 });

/** The video's picture size. */
const size = (video: Locator) => video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight]);

/** Waits for the player's live video to play the camera and move on a second (so the
 * encoder is past its first frames): then grabs a frame as `name`. */
async function grabLive(player: Locator, name: string): Promise<void> {
  await expect(player.getByRole('status', { name: 'Live video state' })).toHaveText('Live', { timeout: 60_000 });
  const video = player.getByLabel(`Live video of ${TITLE}, full screen`);
  await expect.poll(() => size(video), { timeout: 30_000 }).toEqual([W, H]);
  const t0 = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(t0 + 1);
  expect(await grab(video, name)).toEqual([W, H]);
  const png = await video.page().evaluate(pngInPage, name);
  writeFileSync(test.info().outputPath(`${name}.png`), Buffer.from(png, 'base64'));
}

/** Drags with the mouse over `frame` from one point to another (fractions of it). */
async function drag(page: Page, frame: Locator, from: readonly number[], to: readonly number[]): Promise<void> {
  await frame.scrollIntoViewIfNeeded();
  const box = await frame.boundingBox();
  if (!box) throw new Error('the frame is not shown');
  const at = (p: readonly number[]) => [box.x + (p[0] ?? 0) * box.width, box.y + (p[1] ?? 0) * box.height] as const;
  await page.mouse.move(...at(from));
  await page.mouse.down();
  await page.mouse.move(...at([((from[0] ?? 0) + (to[0] ?? 0)) / 2, ((from[1] ?? 0) + (to[1] ?? 0)) / 2]), { steps: 4 });
  await page.mouse.move(...at(to), { steps: 4 });
  await page.mouse.up();
}

/** Takes a screenshot in the player's Screenshots view and grabs it as `name`; answers
 * its address. */
async function screenshotNow(player: Locator, name: string): Promise<string> {
  await player.getByRole('button', { name: 'Screenshots', exact: true }).click();
  const take = player.getByRole('button', { name: 'Take screenshot' });
  await take.click();
  await expect(take).toBeEnabled({ timeout: 20_000 });
  // Taken now: the large one, before the interval gallery.
  const shot = player.getByRole('figure').first().getByRole('img', { name: new RegExp(`^${TITLE}, taken `) });
  await loaded(shot).toEqual([W, H]);
  expect(await grab(shot, name)).toEqual([W, H]);
  return keepJpeg(shot, name);
}

/** Keeps the JPEG `img` shows in the test's output folder as `name.jpg`; answers its
 * address. */
async function keepJpeg(img: Locator, name: string): Promise<string> {
  const [src, type, b64] = await img.evaluate(async (el: HTMLImageElement) => {
    const res = await fetch(el.src);
    let bin = '';
    for (const b of new Uint8Array(await res.arrayBuffer())) bin += String.fromCharCode(b);
    return [el.src, res.headers.get('content-type'), btoa(bin)] as const;
  });
  expect(type).toBe('image/jpeg');
  writeFileSync(test.info().outputPath(`${name}.jpg`), Buffer.from(b64, 'base64'));
  return src;
}

/** The next answer to `PUT device/blur_regions`: the camera's regions as kept, or the refusal. */
const nextSave = (page: Page) =>
  page.waitForResponse((r) => r.request().method() === 'PUT' && new URL(r.url()).pathname === '/api/device/blur_regions');

test.use({ viewport: { width: 1280, height: 1000 } });

test('a drawn region is pixelated in screenshots and live video; a refused save says why; removed, the detail is back', async ({ page }) => {
  test.setTimeout(180_000);
  const run = uniqueName();
  const org = await createOrganization(`Blur ${run}`);
  await subscribe(org.id, 'Devices');
  const bench = await addDevice(org.id, 'Bench');
  const stopAgent = runAgent(bench.code, [`cam0=${demoFootage()}`, 'cam1=test']);
  try {
    const email = `blur-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_user', org.id);
    await uiLogin(page, email, PASSWORD);
    await openFromMenu(page, 'Cameras');
    const tile = page.getByRole('button', { name: TITLE });
    await expect(tile).toBeVisible({ timeout: 60_000 });
    await tile.click();
    const player = page.getByRole('dialog', { name: TITLE });

    // The live video before any blur.
    await grabLive(player, 'live-before');

    // The blur view: the agent's picture of the camera, no regions yet.
    await player.getByRole('button', { name: 'Blur regions' }).click();
    const picture = player.getByRole('img', { name: new RegExp(`^${TITLE}, taken `) });
    await loaded(picture).toEqual([W, H]);
    expect(await grab(picture, 'before')).toEqual([W, H]);
    const shots = [await keepJpeg(picture, 'before')];
    await expect(player.getByText('No blur regions: nothing of this camera is blurred.')).toBeVisible();
    const save = player.getByRole('button', { name: 'Save regions' });
    await expect(save).toBeDisabled();

    // A click draws nothing; a drag draws the region.
    const frame = player.getByRole('group', { name: `Frame of ${TITLE}` });
    await drag(page, frame, [0.5, 0.5], [0.5, 0.5]);
    await expect(player.getByText('No blur regions: nothing of this camera is blurred.')).toBeVisible();
    await expect(save).toBeDisabled();
    await drag(page, frame, DRAWN.from, DRAWN.to);
    const list = player.getByRole('list', { name: `Blur regions of ${TITLE}` });
    await expect(list.getByRole('listitem')).toHaveText([/^Region 1: from 36(\.\d)?% across, 53(\.\d)?% down, 2[56](\.\d)?% wide, 2[45](\.\d)?% high/]);
    await expect(player.getByRole('status').filter({ hasText: 'Not saved yet.' })).toBeVisible();
    await frame.screenshot({ path: test.info().outputPath('drawn.png') });

    let answer = nextSave(page);
    await save.click();
    expect((await answer).status()).toBe(200);
    const [region, ...more] = (await (await answer).json()) as DeviceBlurRegion[];
    if (!region) throw new Error('no region kept');
    expect(more).toEqual([]);
    for (const [got, want] of [
      [region.x, DRAWN.from[0]],
      [region.y, DRAWN.from[1]],
      [region.x + region.width, DRAWN.to[0]],
      [region.y + region.height, DRAWN.to[1]],
    ] as const)
      expect(Math.abs(got - want)).toBeLessThan(0.005);
    await expect(player.getByText('Not saved yet.')).toBeHidden();
    await expect(save).toBeDisabled();

    // The agent's blocks of the region; those wholly inside it are read.
    const grid = blocksOf(region, W, H);
    expect(grid.size).toBe(20);
    expect(grid.blocks.length).toBe(48);
    const before = await read(page, 'before', grid.blocks);
    const liveBefore = await read(page, 'live-before', grid.blocks);
    test.info().annotations.push({ type: 'grid', description: `region ${grid.px.join(',')}, block ${grid.size}, ${grid.blocks.length} blocks` });
    test.info().annotations.push({ type: 'before', description: summary(before) });
    test.info().annotations.push({ type: 'live-before', description: summary(liveBefore) });
    // Unblurred, edges cross some blocks: what the checks below would find without the blur.
    expect(maxSpread(before), `spreads before: ${summary(before)}`).toBeGreaterThanOrEqual(EDGES);
    expect(maxSpread(liveBefore), `spreads live before: ${summary(liveBefore)}`).toBeGreaterThanOrEqual(EDGES);

    // (a) A screenshot now: each block one colour, the blocks different.
    shots.push(await screenshotNow(player, 'blurred'));
    const blurred = await read(page, 'blurred', grid.blocks);
    test.info().annotations.push({ type: 'blurred', description: summary(blurred) });
    expect(maxSpread(blurred), `spreads blurred: ${summary(blurred)}`).toBeLessThanOrEqual(FLAT);
    expect(mosaic(blurred)).toBeGreaterThanOrEqual(MOSAIC);

    // (b) The live video, its session begun again: the same.
    await player.getByRole('button', { name: 'Live', exact: true }).click();
    await grabLive(player, 'live-blurred');
    const live = await read(page, 'live-blurred', grid.blocks);
    test.info().annotations.push({ type: 'live-blurred', description: summary(live) });
    expect(maxSpread(live), `spreads live: ${summary(live)}`).toBeLessThanOrEqual(FLAT);
    expect(mosaic(live)).toBeGreaterThanOrEqual(MOSAIC);

    // The device's 64 regions all used (63 on cam1): a second region on cam0 is refused
    // by the server, its message shown, the drawing kept, nothing saved.
    const full: BlurRegionsWrite = {
      device: bench.device.id,
      camera: 'cam1',
      regions: Array.from({ length: 63 }, (_, i): Rect => ({ x: (i % 8) / 8, y: Math.floor(i / 8) / 8, width: 0.05, height: 0.05 })),
    };
    await adminSend(org.id, 'PUT', 'device/blur_regions', full);
    await player.getByRole('button', { name: 'Blur regions' }).click();
    await expect(list.getByRole('listitem')).toHaveCount(1);
    // By keyboard: the middle fifth of the frame, a big step left.
    await frame.press('Shift+ArrowLeft');
    await frame.press('Enter');
    await expect(list.getByRole('listitem')).toHaveCount(2);
    await expect(list.getByRole('listitem').nth(1)).toHaveText(/^Region 2: from 30% across, 40% down, 20% wide, 20% high/);
    answer = nextSave(page);
    await save.click();
    expect((await answer).status()).toBe(400);
    await expect(player.getByRole('alert')).toHaveText('A device has at most 64 blur regions.');
    await expect(list.getByRole('listitem')).toHaveCount(2);
    await expect(player.getByText('Not saved yet.')).toBeVisible();
    const kept = await adminGet<DeviceBlurRegion[]>(org.id, `device/blur_regions?device=${bench.device.id}&camera=cam0`);
    expect(kept.map((r) => r.id)).toEqual([region.id]);

    // Discarded, then the region deleted and saved: none left, and a new screenshot has
    // the bin's edges back where it was.
    await player.getByRole('button', { name: 'Discard changes' }).click();
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await expect(player.getByRole('alert')).toBeHidden();
    await player.getByRole('button', { name: 'Delete region 1' }).click();
    answer = nextSave(page);
    await save.click();
    expect((await answer).status()).toBe(200);
    expect(await (await answer).json()).toEqual([]);
    await expect(player.getByText('No blur regions: nothing of this camera is blurred.')).toBeVisible();
    await expect(player.getByText('Not saved yet.')).toBeHidden();
    shots.push(await screenshotNow(player, 'unblurred'));
    // Three pictures, each taken anew.
    expect(new Set(shots).size).toBe(3);
    const unblurred = await read(page, 'unblurred', grid.blocks);
    test.info().annotations.push({ type: 'unblurred', description: summary(unblurred) });
    expect(maxSpread(unblurred), `spreads unblurred: ${summary(unblurred)}`).toBeGreaterThanOrEqual(EDGES);
  } finally {
    stopAgent();
  }
});
