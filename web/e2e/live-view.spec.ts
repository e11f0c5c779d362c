/**
 * Live view with real parts: the real agent (`target/debug/gemba-agent`) with its camera
 * `cam0` on GStreamer's test pattern, no task running; Debian's Chromium asks for the
 * camera on the device stream (`webrtc_stream_offer`), makes its offer, and plays the
 * agent's H.264. Once over any path, once only through the cloud's TURN relay
 * (`iceTransportPolicy: "relay"`), with two viewers at once. A device of another
 * organisation is never offered.
 */
import { expect, test, type Page } from '@playwright/test';

import { addDevice, apiLogin, createOrganization, createUser, origin, runAgent, subscribe, uniqueName } from './env';
import { type WatchArgs, type Watched, watchInPage } from './live';

const PASSWORD = 'live-view-1';

/** In the page: watches with `watchInPage`. */
const watch = (page: Page, args: WatchArgs) => page.evaluate(watchInPage, args);

test('a camera plays live in Chromium, directly and through the relay', async ({ page }) => {
  test.setTimeout(150_000);
  const run = uniqueName();
  const org = await createOrganization(`Live ${run}`);
  await subscribe(org.id, 'Devices');
  const bench = await addDevice(org.id, 'Bench');
  const elsewhere = await createOrganization(`Other ${run}`);
  const theirs = await addDevice(elsewhere.id, 'Theirs');
  const stopAgent = runAgent(bench.code, ['cam0=test']);
  try {
    const email = `live-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_user', org.id);
    const { token } = await apiLogin(email, PASSWORD);
    await page.goto(origin());
    // The agent comes online: its first offers may meet it offline.
    let direct: Watched[] | string = '';
    for (let i = 0; i < 20; i++) {
      direct = await watch(page, { org: org.id, device: bench.device.id, token, relay: false, viewers: 1 });
      if (typeof direct !== 'string' || !direct.includes('offline')) break;
      await page.waitForTimeout(1_000);
    }
    expect(typeof direct === 'string' ? direct : '').toBe('');
    const [d] = direct as Watched[];
    if (!d) throw new Error('no viewer');
    // The test pattern's own size, and the picture moves.
    expect([d.width, d.height]).toEqual([320, 240]);
    expect(d.t1 - d.t0).toBeGreaterThan(1);
    // Only the relay: two viewers at once, both through it.
    const relayed = await watch(page, { org: org.id, device: bench.device.id, token, relay: true, viewers: 2 });
    expect(typeof relayed === 'string' ? relayed : '').toBe('');
    for (const r of relayed as Watched[]) {
      expect(r.local).toBe('relay');
      expect([r.width, r.height]).toEqual([320, 240]);
      expect(r.t1 - r.t0).toBeGreaterThan(1);
    }
    // A camera the device lacks is refused by the device; another organisation's
    // device is not found.
    expect(await watch(page, { org: org.id, device: bench.device.id, token, relay: false, viewers: 1, camera: 'cam9' })).toContain('this device has no camera cam9');
    expect(await watch(page, { org: org.id, device: theirs.device.id, token, relay: false, viewers: 1 })).toContain(`Device ${theirs.device.id} not found.`);
  } finally {
    stopAgent();
  }
});
