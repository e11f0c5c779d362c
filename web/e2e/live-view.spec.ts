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

const PASSWORD = 'live-view-1';

interface Watched {
  width: number;
  height: number;
  /** The video's time when it first played, and two seconds later. */
  t0: number;
  t1: number;
  /** The selected candidate pair's local candidate type (`relay` through the relay). */
  local: string;
}

/** In the page: watches `camera` of `device` with `viewers` peer connections at once. */
async function watch(page: Page, args: { org: number; device: number; token: string; relay: boolean; viewers: number; camera?: string }): Promise<Watched[] | string> {
  return page.evaluate(async ({ org, device, token, relay, viewers, camera }) => {
    const u = new URL('/api/ws', location.origin);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    u.searchParams.set('organization', String(org));
    const ws = new WebSocket(u.toString(), ['gemba.v1', `bearer.${token}`]);
    await new Promise((ok, no) => {
      ws.onopen = ok;
      ws.onerror = no;
    });
    type Live = { type: string; session?: string; sdp?: string; message?: string; ice_servers?: RTCIceServer[] };
    const heard: (Live | { type: 'error'; message: string })[] = [];
    let wake = () => {};
    ws.onmessage = (m) => {
      const e = JSON.parse(m.data as string) as { event: string; data: Live & { message?: string } };
      if (e.event === 'webrtc_stream_offer') heard.push(e.data);
      if (e.event === 'error') heard.push({ type: 'error', message: e.data.message ?? '' });
      wake();
    };
    const next = async (pred: (l: Live) => boolean, ms = 30_000): Promise<Live> => {
      const until = Date.now() + ms;
      for (;;) {
        const i = heard.findIndex((l) => pred(l) || l.type === 'error');
        if (i >= 0) return heard.splice(i, 1)[0];
        if (Date.now() > until) throw new Error('nothing heard');
        await new Promise<void>((ok) => {
          wake = ok;
          setTimeout(ok, 200);
        });
      }
    };
    const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
    const one = async (): Promise<Watched> => {
      ws.send(JSON.stringify({ event: 'webrtc_stream_offer', data: { type: 'request', device, camera: camera ?? 'cam0' } }));
      const ready = await next((l) => l.type === 'ready');
      if (ready.type !== 'ready') throw new Error(ready.message);
      const pc = new RTCPeerConnection({ iceServers: ready.ice_servers, iceTransportPolicy: relay ? 'relay' : 'all' });
      pc.addTransceiver('video', { direction: 'recvonly' });
      const video = document.createElement('video');
      video.muted = true;
      video.autoplay = true;
      video.playsInline = true;
      document.body.append(video);
      pc.ontrack = (ev) => {
        video.srcObject = ev.streams[0] ?? new MediaStream([ev.track]);
        void video.play().catch(() => {});
      };
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise<void>((ok) => {
        if (pc.iceGatheringState === 'complete') ok();
        pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && ok();
      });
      ws.send(JSON.stringify({ event: 'webrtc_stream_offer', data: { type: 'offer', session: ready.session, sdp: pc.localDescription?.sdp } }));
      const answer = await next((l) => l.session === ready.session);
      if (answer.type !== 'answer') throw new Error(`${answer.type}: ${answer.message}`);
      await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
      const until = Date.now() + 30_000;
      while (!(video.videoWidth > 0 && video.currentTime > 0)) {
        if (Date.now() > until) {
          // What arrived, to say why there is no picture.
          const got: string[] = [];
          (await pc.getStats()).forEach((r) => {
            if (r.type === 'inbound-rtp') got.push(`packets ${r.packetsReceived}, bytes ${r.bytesReceived}, frames received ${r.framesReceived}, decoded ${r.framesDecoded}, key ${r.keyFramesDecoded}, plis ${r.pliCount}, decoder ${r.decoderImplementation}`);
            if (r.type === 'codec') got.push(`codec ${r.mimeType} ${r.sdpFmtpLine} pt ${r.payloadType}`);
          });
          throw new Error(`no picture (connection ${pc.connectionState}; video ${video.videoWidth}×${video.videoHeight} ready ${video.readyState} paused ${video.paused} at ${video.currentTime}; ${got.join('; ')})`);
        }
        await sleep(100);
      }
      const t0 = video.currentTime;
      await sleep(2_000);
      const t1 = video.currentTime;
      let local = '';
      const stats = await pc.getStats();
      stats.forEach((s) => {
        if (s.type === 'transport' && s.selectedCandidatePairId) {
          const pair = stats.get(s.selectedCandidatePairId);
          local = stats.get(pair.localCandidateId)?.candidateType ?? '';
        }
      });
      return { width: video.videoWidth, height: video.videoHeight, t0, t1, local };
    };
    try {
      const watched: Watched[] = [];
      for (let i = 0; i < viewers; i++) watched.push(await one());
      return watched;
    } catch (e) {
      return String(e);
    } finally {
      ws.close();
    }
  }, args);
}

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
