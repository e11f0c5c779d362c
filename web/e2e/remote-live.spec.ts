/**
 * A remote camera watched live, with real parts: GStreamer's RTSP server (the agent's
 * `rtsp_camera` example: a 320 × 240 moving ball as constrained-baseline H.264) and the
 * real agent, whose own cam0 is the demo footage (640 × 480), no task running. An org
 * admin attaches the RTSP camera to the device on Cameras; the device reports it (its
 * tile appears) and its full-screen player plays it at the camera's size. The server
 * stopped, the player says the camera cannot be watched; started again on the same
 * port, the camera plays again. Deleted, its tile goes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import { expect, test, type Locator } from '@playwright/test';

import { addDevice, createOrganization, createUser, openFromMenu, runAgent, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'remote-live-1';

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((ok, no) => {
    const s = createServer();
    s.once('error', no);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? ok(a.port) : no(new Error('no port'))));
    });
  });
}

/** The RTSP camera on `port` (`target/debug/examples/rtsp_camera`), once it listens: its
 * process and URL. */
async function startCamera(port: number): Promise<{ proc: ChildProcess; url: string }> {
  const bin = process.env.GEMBA_RTSP_CAMERA ?? join(resolve(import.meta.dirname, '../..'), 'target/debug/examples/rtsp_camera');
  const proc = spawn(bin, [String(port), 'door'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((ok, no) => {
    const timer = setTimeout(() => no(new Error(`rtsp_camera: no URL in 20 s (${stderr})`)), 20_000);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      if (line.startsWith('rtsp://')) {
        clearTimeout(timer);
        ok(line.trim());
      }
    });
    proc.once('error', (e) => {
      clearTimeout(timer);
      no(new Error(`${bin}: ${e.message} (built by cargo build -p gemba-agent --example rtsp_camera)`));
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      no(new Error(`rtsp_camera exited (${code}): ${stderr}`));
    });
  }).catch((e: unknown) => {
    proc.kill('SIGKILL');
    throw e;
  });
  return { proc, url };
}

/** Stops the camera as a camera unplugged (killed) and waits for it to be gone. */
async function stopCamera(proc: ChildProcess | null): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise((ok) => proc.once('exit', ok));
  proc.kill('SIGKILL');
  await gone;
}

/** The video's picture size. */
const size = (video: Locator) => video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight]);

/** How far the video's time moves over `ms`. */
async function advance(video: Locator, ms = 2_000): Promise<number> {
  const t0 = await video.evaluate((e: HTMLVideoElement) => e.currentTime);
  await video.page().waitForTimeout(ms);
  return (await video.evaluate((e: HTMLVideoElement) => e.currentTime)) - t0;
}

test('a remote RTSP camera plays live, fails when its server stops, plays again, and is deleted', async ({ page }) => {
  test.setTimeout(240_000);
  const port = await freePort();
  let camera: ChildProcess | null = null;
  let stopAgent = () => {};
  try {
    const started = await startCamera(port);
    camera = started.proc;
    const url = started.url;
    expect(url).toBe(`rtsp://127.0.0.1:${port}/door`);

    const run = uniqueName();
    const org = await createOrganization(`Remote live ${run}`);
    await subscribe(org.id, 'Devices');
    const bench = await addDevice(org.id, 'Bench');
    stopAgent = runAgent(bench.code);
    const email = `remote-live-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_admin', org.id);
    await uiLogin(page, email, PASSWORD);
    await openFromMenu(page, 'Cameras');
    const device = page.getByRole('region', { name: /^Bench/ });
    // The agent online, with its own cam0.
    await expect(device.getByRole('button', { name: 'cam0 on Bench' })).toBeVisible({ timeout: 60_000 });

    // Attached through the form; listed, then reported by the device (its tile).
    await device.getByRole('button', { name: 'Add remote camera to Bench' }).click();
    const form = page.getByRole('dialog', { name: 'Add a remote camera to Bench' });
    await form.getByLabel('Name', { exact: true }).fill('door');
    await form.getByLabel('URL').fill(url);
    await form.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByText('Data created successfully!')).toBeVisible();
    await expect(form).toBeHidden();
    const table = device.getByRole('table', { name: 'Remote cameras of Bench' });
    const row = table.getByRole('row').nth(1);
    const listed = `^door\\s*rtsp://127\\.0\\.0\\.1:${port}/door\\s*—\\s*`;
    await expect(row).toHaveText(new RegExp(listed));
    const tile = device.getByRole('button', { name: 'door on Bench', exact: true });
    await expect(tile).toBeVisible({ timeout: 60_000 });
    // Running no task: idle, no longer "Not reported by the device yet".
    await expect(row).toHaveText(new RegExp(`${listed}Idle`));

    // Its player: live, at the camera's own size (cam0's is 640 × 480), moving.
    await tile.click();
    const player = page.getByRole('dialog', { name: 'door on Bench' });
    await expect(page).toHaveURL(/\?watch=\d+%2Fdoor$/);
    const state = player.getByRole('status', { name: 'Live video state' });
    const video = player.getByLabel('Live video of door on Bench, full screen');
    await expect(state).toHaveText('Live', { timeout: 60_000 });
    await expect.poll(() => size(video)).toEqual([320, 240]);
    expect(await advance(video)).toBeGreaterThan(1);
    await page.screenshot({ path: test.info().outputPath('remote-live-player.png') });

    // The server stopped: the player and the tile say why the camera cannot be watched
    // (the agent's words for an RTSP camera it cannot read), and the picture goes.
    await stopCamera(camera);
    camera = null;
    const unreachable = /^Failed: camera door: the stream cannot be reached: check the address, the network and that the camera is on \(GStreamer: [^)]*\) Trying again in \d+ s\.$/;
    await expect(state).toHaveText(unreachable, { timeout: 30_000 });
    await expect.poll(() => size(video)).toEqual([0, 0]);
    await expect(tile).toHaveAccessibleDescription(/^Failed: camera door: the stream cannot be reached: /);
    await page.screenshot({ path: test.info().outputPath('remote-live-failed.png') });

    // Started again on the same port: the player opened again plays it.
    camera = (await startCamera(port)).proc;
    await player.getByRole('button', { name: 'Close' }).click();
    await expect(player).toBeHidden();
    await tile.click();
    await expect(state).toHaveText('Live', { timeout: 60_000 });
    await expect.poll(() => size(video)).toEqual([320, 240]);
    expect(await advance(video)).toBeGreaterThan(1);
    await player.getByRole('button', { name: 'Close' }).click();
    await expect(player).toBeHidden();

    // Deleted, after a confirmation: its row and its tile go.
    await table.getByRole('button', { name: 'Delete door' }).click();
    await page.getByRole('dialog', { name: 'Delete door?' }).getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Data deleted successfully!')).toBeVisible();
    await expect(device.getByText('No remote cameras.')).toBeVisible();
    await expect(tile).toBeHidden({ timeout: 60_000 });
    await expect(device.getByRole('button', { name: 'cam0 on Bench' })).toBeVisible();
  } finally {
    stopAgent();
    await stopCamera(camera);
  }
});
