/**
 * The Cameras screen with real parts, as a plant engineer uses it: the real agent
 * (`target/debug/gemba-agent`) with its camera `cam0` on GStreamer's moving test
 * pattern (320×240), no task running. An org user opens Cameras from the menu; cam0's
 * tile plays the agent's live H.264 (the picture is the camera's size and moves), and
 * the full-screen player plays it too, on a session of its own, while the tile goes on.
 * Pictures of both go to the test's output folder.
 */
import { expect, test, type Locator } from '@playwright/test';

import { addDevice, createOrganization, createUser, openFromMenu, runAgent, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'cameras-1';

/** The video's picture size. */
const size = (video: Locator) => video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight]);

/** How far each video's time moves over `ms`, measured together. */
async function advance(videos: Locator[], ms = 2_000): Promise<number[]> {
  const t0 = await Promise.all(videos.map((v) => v.evaluate((e: HTMLVideoElement) => e.currentTime)));
  await videos[0]!.page().waitForTimeout(ms);
  const t1 = await Promise.all(videos.map((v) => v.evaluate((e: HTMLVideoElement) => e.currentTime)));
  return t1.map((t, i) => t - t0[i]!);
}

test('a camera plays live in its tile and in the full-screen player', async ({ page }) => {
  test.setTimeout(150_000);
  const run = uniqueName();
  const org = await createOrganization(`Cameras ${run}`);
  await subscribe(org.id, 'Devices');
  const bench = await addDevice(org.id, 'Bench');
  const stopAgent = runAgent(bench.code, ['cam0=test']);
  try {
    const email = `cameras-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_user', org.id);
    await uiLogin(page, email, PASSWORD);
    await openFromMenu(page, 'Cameras');
    await expect(page.getByRole('region', { name: /^Bench/ })).toBeVisible();

    // The agent comes online and reports cam0 (the stream brings it): its tile asks for
    // the picture and plays. Its first offers may meet the device not yet online.
    const tile = page.getByRole('button', { name: 'cam0 on Bench' });
    await expect(tile).toBeVisible({ timeout: 60_000 });
    await expect(tile).toHaveAccessibleDescription(/^Live Camera: /, { timeout: 60_000 });
    const tileVideo = page.getByLabel('Live video of cam0 on Bench', { exact: true });
    await expect.poll(() => size(tileVideo)).toEqual([320, 240]);
    const [moved] = await advance([tileVideo]);
    expect(moved).toBeGreaterThan(1);
    await page.screenshot({ path: test.info().outputPath('cameras-grid.png'), fullPage: true });

    // The full-screen player: the same camera on its own session, the tile playing on.
    await tile.click();
    const player = page.getByRole('dialog', { name: 'cam0 on Bench' });
    await expect(player).toBeVisible();
    await expect(page).toHaveURL(/\?watch=\d+%2Fcam0$/);
    await expect(player.getByRole('status', { name: 'Live video state' })).toHaveText('Live', { timeout: 60_000 });
    await expect(player.getByText(/^Camera: /)).toBeVisible();
    const playerVideo = player.getByLabel('Live video of cam0 on Bench, full screen');
    await expect.poll(() => size(playerVideo)).toEqual([320, 240]);
    const [inPlayer, inTile] = await advance([playerVideo, tileVideo]);
    expect(inPlayer).toBeGreaterThan(1);
    expect(inTile).toBeGreaterThan(1);
    await page.screenshot({ path: test.info().outputPath('cameras-player.png') });

    // Closing the player leaves its session; the tile still plays.
    await player.getByRole('button', { name: 'Close' }).click();
    await expect(player).toBeHidden();
    await expect(tile).toHaveAccessibleDescription(/^Live Camera: /);
    const [after] = await advance([tileVideo], 1_500);
    expect(after).toBeGreaterThan(0.5);
  } finally {
    stopAgent();
  }
});
