/**
 * Live view from a test page, as the portal does it on the device stream
 * (`webrtc_stream_offer`): `watchInPage` runs inside the page (`page.evaluate`), so it
 * is self-contained. Used by `live-view.spec.ts` and the live view benchmark
 * (`bench/live.bench.ts`).
 */

export interface WatchArgs {
  org: number;
  device: number;
  token: string;
  /** Only through the cloud's relay (`iceTransportPolicy: "relay"`). */
  relay: boolean;
  /** Peer connections at once, on the one stream. */
  viewers: number;
  camera?: string;
  /** How long to hold the streams once all play (ms); 2 s by default. */
  holdMs?: number;
  /** Read the capture time the `stamp` camera draws into each frame, on viewer 0. */
  stamp?: boolean;
}

export interface Watched {
  width: number;
  height: number;
  /** The video's time when it first played, and at the end of the hold. */
  t0: number;
  t1: number;
  /** The selected candidate pair's local candidate type (`relay` through the relay). */
  local: string;
  /** Glass-to-glass latencies (ms), one a frame shown, when `stamp`. */
  latencies: number[];
  /** Frames shown whose band did not read as a time near now (with the first such). */
  unread: number;
  firstUnread: number | null;
}

/** Runs in the page: the viewers' results, or why not (a string). */
export async function watchInPage(a: WatchArgs): Promise<Watched[] | string> {
  const u = new URL('/api/ws', location.origin);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.searchParams.set('organization', String(a.org));
  const ws = new WebSocket(u.toString(), ['gemba.v1', `bearer.${a.token}`]);
  await new Promise((ok, no) => {
    ws.onopen = ok;
    ws.onerror = no;
  });
  type Live = { type: string; session?: string; sdp?: string; message?: string; ice_servers?: RTCIceServer[] };
  const heard: Live[] = [];
  let wake = () => {};
  ws.onmessage = (m) => {
    const e = JSON.parse(m.data as string) as { event: string; data: Live };
    if (e.event === 'webrtc_stream_offer') heard.push(e.data);
    if (e.event === 'error') heard.push({ type: 'error', message: e.data.message ?? '' });
    wake();
  };
  const next = async (pred: (l: Live) => boolean): Promise<Live> => {
    const until = Date.now() + 30_000;
    for (;;) {
      const i = heard.findIndex((l) => pred(l) || l.type === 'error');
      const [found] = i >= 0 ? heard.splice(i, 1) : [];
      if (found) return found;
      if (Date.now() > until) throw new Error('nothing heard');
      await new Promise<void>((ok) => {
        wake = ok;
        setTimeout(ok, 200);
      });
    }
  };
  const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
  const pcs: RTCPeerConnection[] = [];
  const videos: HTMLVideoElement[] = [];
  const start = async (): Promise<void> => {
    ws.send(JSON.stringify({ event: 'webrtc_stream_offer', data: { type: 'request', device: a.device, camera: a.camera ?? 'cam0' } }));
    const ready = await next((l) => l.type === 'ready');
    if (ready.type !== 'ready') throw new Error(ready.message);
    const pc = new RTCPeerConnection({ iceServers: ready.ice_servers, iceTransportPolicy: a.relay ? 'relay' : 'all' });
    pcs.push(pc);
    pc.addTransceiver('video', { direction: 'recvonly' });
    const video = document.createElement('video');
    videos.push(video);
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
        (await pc.getStats()).forEach((r: { type: string; packetsReceived?: number; framesDecoded?: number }) => {
          if (r.type === 'inbound-rtp') got.push(`packets ${r.packetsReceived}, frames decoded ${r.framesDecoded}`);
        });
        throw new Error(`no picture (connection ${pc.connectionState}; ready ${video.readyState}; ${got.join('; ')})`);
      }
      await sleep(100);
    }
  };
  try {
    for (let i = 0; i < a.viewers; i++) await start();
    const t0 = videos.map((v) => v.currentTime);
    const latencies: number[] = [];
    let unread = 0;
    let firstUnread: number | null = null;
    const first = videos[0];
    if (a.stamp && first) {
      // Each frame shown: its band of 48 blocks read from a canvas (the agent's
      // `capture/stamp.rs` layout: 640 wide, blocks of 13 px, 40 rows).
      const v = first;
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 40;
      const ctx = canvas.getContext('2d', { willReadFrequently: true });
      const onFrame = () => {
        const shown = Date.now();
        if (ctx) {
          ctx.drawImage(v, 0, 0, 640, 40, 0, 0, 640, 40);
          const row = ctx.getImageData(0, 20, 640, 1).data;
          let ms = 0;
          for (let bit = 0; bit < 48; bit++) {
            const i = (bit * 13 + 6) * 4;
            const light = (row[i] ?? 0) + (row[i + 1] ?? 0) + (row[i + 2] ?? 0);
            ms = ms * 2 + (light > 3 * 128 ? 1 : 0);
          }
          // Frames whose band did not read as a recent time are not counted.
          if (Math.abs(shown - ms) < 10_000) latencies.push(shown - ms);
          else {
            unread++;
            firstUnread ??= ms;
          }
        }
        v.requestVideoFrameCallback(onFrame);
      };
      v.requestVideoFrameCallback(onFrame);
    }
    await sleep(a.holdMs ?? 2_000);
    const results: Watched[] = [];
    for (const [i, pc] of pcs.entries()) {
      const v = videos[i];
      if (!v) continue;
      let local = '';
      const stats = await pc.getStats();
      stats.forEach((s: { type: string; selectedCandidatePairId?: string }) => {
        if (s.type === 'transport' && s.selectedCandidatePairId) {
          const pair = stats.get(s.selectedCandidatePairId) as { localCandidateId: string } | undefined;
          const cand = pair && (stats.get(pair.localCandidateId) as { candidateType?: string } | undefined);
          local = cand?.candidateType ?? '';
        }
      });
      results.push({ width: v.videoWidth, height: v.videoHeight, t0: t0[i] ?? 0, t1: v.currentTime, local, latencies: i === 0 ? latencies : [], unread, firstUnread });
    }
    return results;
  } catch (e) {
    return String(e);
  } finally {
    for (const pc of pcs) pc.close();
    for (const v of videos) v.remove();
    ws.close();
  }
}
