/**
 * The live view's signalling and viewer logic with fakes for the socket, the peer
 * connection and the video (jsdom has no WebRTC): which request a `ready` answers, what
 * a refusal, an end, a failed connection or a dropped socket do, the back-off of new
 * sessions, and leaving cleanly.
 */
import type { LiveEvent } from '@/api/generated';
import { type FakeSocket, sockets } from '@/testing/fake-socket';

import {
  CONNECTION_FAILED,
  GATHER_MS,
  type LivePeer,
  type LiveReady,
  LiveSignalling,
  type LiveState,
  type LiveView,
  NO_PICTURE,
  PICTURE_MS,
  type SessionHandlers,
  watch,
} from './live-view';
import { LOST, SIGNED_OUT } from './stream';

// ---- Fakes ---------------------------------------------------------------------------

/** Sends the live view step `e` on `s`. */
const live = (s: FakeSocket, e: LiveEvent) => s.say({ event: 'webrtc_stream_offer', data: e });
/** The live view steps sent on `s`, in order. */
const steps = (s: FakeSocket) => s.sent.flatMap((f) => (f.event === 'webrtc_stream_offer' ? [f.data] : []));

class FakePeer {
  transceivers: [string, RTCRtpTransceiverInit | undefined][] = [];
  localDescription: { sdp: string; type: RTCSdpType } | null = null;
  remote: RTCSessionDescriptionInit | null = null;
  iceGatheringState: RTCIceGatheringState = 'new';
  connectionState: RTCPeerConnectionState = 'new';
  onicegatheringstatechange: LivePeer['onicegatheringstatechange'] = null;
  onconnectionstatechange: LivePeer['onconnectionstatechange'] = null;
  ontrack: LivePeer['ontrack'] = null;
  closed = false;
  constructor(readonly config: RTCConfiguration) {}
  addTransceiver(kind: string, init?: RTCRtpTransceiverInit) {
    this.transceivers.push([kind, init]);
    return {} as RTCRtpTransceiver;
  }
  createOffer() {
    return Promise.resolve({ type: 'offer' as const, sdp: 'v=0 offer' });
  }
  setLocalDescription(d?: RTCLocalSessionDescriptionInit) {
    this.iceGatheringState = 'gathering';
    this.localDescription = { type: 'offer', sdp: `${d?.sdp ?? ''} candidates:0` };
    return Promise.resolve();
  }
  setRemoteDescription(d: RTCSessionDescriptionInit) {
    this.remote = d;
    return Promise.resolve();
  }
  close() {
    this.closed = true;
    this.connectionState = 'closed';
  }
  private get self() {
    return this as unknown as RTCPeerConnection;
  }
  /** Every candidate gathered. */
  gather(n = 2) {
    this.localDescription = { type: 'offer', sdp: `v=0 offer candidates:${n}` };
    this.iceGatheringState = 'complete';
    this.onicegatheringstatechange?.call(this.self, new Event('icegatheringstatechange'));
  }
  track(stream: MediaStream) {
    this.ontrack?.call(this.self, { streams: [stream], track: {} } as unknown as RTCTrackEvent);
  }
  connection(state: RTCPeerConnectionState) {
    this.connectionState = state;
    this.onconnectionstatechange?.call(this.self, new Event('connectionstatechange'));
  }
}

function peers() {
  const all: FakePeer[] = [];
  const makePeer = (config: RTCConfiguration) => {
    const p = new FakePeer(config);
    all.push(p);
    return p as unknown as LivePeer;
  };
  return { all, makePeer, last: () => all[all.length - 1]! };
}

class FakeView implements LiveView {
  shown: (MediaStream | null)[] = [];
  private pictures = new Set<() => void>();
  show(stream: MediaStream | null) {
    this.shown.push(stream);
  }
  onPicture(picture: () => void) {
    this.pictures.add(picture);
    return () => this.pictures.delete(picture);
  }
  /** A frame is there. */
  paint() {
    for (const p of [...this.pictures]) p();
  }
  get current() {
    return this.shown[this.shown.length - 1] ?? null;
  }
}

const STREAM = { id: 'stream-1' } as unknown as MediaStream;
const ICE = [{ urls: ['turn:127.0.0.1:3478?transport=udp'], username: 'u', credential: 'c' }];

const ready = (session: string, device = 7, camera = 'cam0'): LiveReady => ({
  type: 'ready',
  session,
  device,
  camera,
  ice_servers: ICE,
});

function recorder(): SessionHandlers & { heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    ready: (r) => heard.push(`ready ${r.session}`),
    answer: (sdp) => heard.push(`answer ${sdp}`),
    over: (why) => heard.push(`over ${why}`),
  };
}

/** A started stream on an open fake socket, and a viewer of cam0 on device 7. */
function viewer(opts: { open?: boolean } = {}) {
  const s = sockets();
  const p = peers();
  const signal = new LiveSignalling(s.connect);
  signal.start();
  if (opts.open !== false) s.last().open();
  const view = new FakeView();
  const states: LiveState[] = [];
  const stop = watch(signal, { device: 7, camera: 'cam0' }, view, (st) => states.push(st), { makePeer: p.makePeer });
  return { s, p, signal, view, states, stop, state: () => states[states.length - 1] };
}

/** Lets the viewer's promises run (and `ms` pass). */
const run = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

/** Brings a fresh viewer's session `id` to live. */
async function toLive(v: ReturnType<typeof viewer>, id: string) {
  live(v.s.last(), ready(id));
  await run();
  v.p.last().gather();
  await run();
  live(v.s.last(), { type: 'answer', session: id, sdp: 'v=0 answer' });
  await run();
  v.p.last().track(STREAM);
  v.view.paint();
}

beforeEach(() => {
  vi.useFakeTimers();
});

// ---- The signalling ------------------------------------------------------------------

test('each ready answers the oldest request waiting, whatever camera it names', () => {
  const s = sockets();
  const events: string[] = [];
  const signal = new LiveSignalling(s.connect, {
    greeting: () => ({ event: 'subscribe', data: {} }),
    onEvent: (e) => events.push(e.event),
  });
  signal.start();
  const a = recorder();
  const b = recorder();
  // Asked before the socket opened: sent once it is, after the subscription.
  signal.request(7, 'cam0', a);
  signal.request(7, 'cam1', b);
  expect(s.last().sent).toEqual([]);
  s.last().open();
  expect(s.last().sent).toEqual([
    { event: 'subscribe', data: {} },
    { event: 'webrtc_stream_offer', data: { type: 'request', device: 7, camera: 'cam0' } },
    { event: 'webrtc_stream_offer', data: { type: 'request', device: 7, camera: 'cam1' } },
  ]);
  s.last().say({ event: 'devices', data: [] });
  live(s.last(), ready('s-1', 7, 'cam0'));
  live(s.last(), ready('s-2', 7, 'cam1'));
  expect(a.heard).toEqual(['ready s-1']);
  expect(b.heard).toEqual(['ready s-2']);
  // Steps go to their own session only.
  live(s.last(), { type: 'answer', session: 's-2', sdp: 'B' });
  live(s.last(), { type: 'answer', session: 's-1', sdp: 'A' });
  live(s.last(), { type: 'answer', session: 'someone-else', sdp: 'X' });
  expect(a.heard).toEqual(['ready s-1', 'answer A']);
  expect(b.heard).toEqual(['ready s-2', 'answer B']);
  // The subscription's answer went on to the screen.
  expect(events).toEqual(['devices']);
});

test("an error answers the oldest frame waiting: a request's is that request's end", () => {
  const s = sockets();
  const events: string[] = [];
  const signal = new LiveSignalling(s.connect, {
    greeting: () => ({ event: 'subscribe', data: {} }),
    onEvent: (e) => events.push(e.event === 'error' ? `error ${e.data.message}` : e.event),
  });
  signal.start();
  s.last().open();
  const a = recorder();
  const b = recorder();
  signal.request(5, 'cam0', a);
  signal.request(7, 'cam0', b);
  s.last().say({ event: 'devices', data: [] });
  s.last().say({ event: 'error', data: { message: 'Device 5 not found.' } });
  live(s.last(), ready('s-2'));
  expect(a.heard).toEqual(['over Device 5 not found.']);
  expect(b.heard).toEqual(['ready s-2']);
  // An error nothing waits for goes to the screen.
  s.last().say({ event: 'error', data: { message: 'Send JSON text frames.' } });
  expect(events).toEqual(['devices', 'error Send JSON text frames.']);
});

test('refused and ended end their session; a dropped socket ends them all and is opened again', async () => {
  const s = sockets();
  const states: string[] = [];
  const signal = new LiveSignalling(s.connect, { onState: (st) => states.push(st) });
  signal.start();
  s.last().open();
  const a = recorder();
  const b = recorder();
  const c = recorder();
  signal.request(7, 'cam0', a);
  signal.request(7, 'cam9', b);
  signal.request(7, 'cam1', c);
  live(s.last(), ready('s-1'));
  live(s.last(), ready('s-2', 7, 'cam9'));
  live(s.last(), { type: 'refused', session: 's-2', message: 'this device has no camera cam9' });
  live(s.last(), { type: 'ended', session: 's-1', message: 'The camera stopped.' });
  // Heard once: a later step of a session that is over is nobody's.
  live(s.last(), { type: 'ended', session: 's-1', message: 'again' });
  expect(a.heard).toEqual(['ready s-1', 'over The camera stopped.']);
  expect(b.heard).toEqual(['ready s-2', 'over this device has no camera cam9']);
  // cam1 still waits for its ready: the drop ends it.
  s.last().drop();
  expect(c.heard).toEqual([`over ${LOST}`]);
  expect(states).toEqual(['connecting', 'live', 'down']);
  await run(999);
  expect(s.all).toHaveLength(1);
  await run(1);
  expect(s.all).toHaveLength(2);
  // Every drop waits longer: 1, 2, 5 s…
  s.last().drop();
  await run(1_999);
  expect(s.all).toHaveLength(2);
  await run(1);
  expect(s.all).toHaveLength(3);
  // …until one opens.
  s.last().open();
  s.last().drop();
  await run(1_000);
  expect(s.all).toHaveLength(4);
  // A stream closed because the sign-in ended is not opened again.
  s.last().open();
  const d = recorder();
  signal.request(7, 'cam0', d);
  s.last().drop(SIGNED_OUT);
  expect(d.heard).toEqual(['over The sign-in ended.']);
  await run(60_000);
  expect(s.all).toHaveLength(4);
});

test('leaving before ready closes the session as soon as it is made; stop closes the socket', () => {
  const s = sockets();
  const signal = new LiveSignalling(s.connect);
  signal.start();
  s.last().open();
  const a = recorder();
  const t = signal.request(7, 'cam0', a);
  t.close();
  live(s.last(), ready('s-1'));
  expect(a.heard).toEqual([]);
  expect(steps(s.last())).toEqual([
    { type: 'request', device: 7, camera: 'cam0' },
    { type: 'close', session: 's-1' },
  ]);
  // An offer after leaving is not sent.
  t.offer('v=0');
  expect(steps(s.last())).toHaveLength(2);
  signal.stop();
  expect(s.last().closed).toBe(true);
});

// ---- One viewer ----------------------------------------------------------------------

test('a viewer offers once every candidate is gathered, sets the answer, and is live at the first frame', async () => {
  const v = viewer();
  expect(v.states).toEqual([{ state: 'connecting' }]);
  expect(steps(v.s.last())).toEqual([{ type: 'request', device: 7, camera: 'cam0' }]);
  live(v.s.last(), ready('s-1'));
  await run();
  const pc = v.p.last();
  expect(pc.config).toEqual({ iceServers: ICE });
  expect(pc.transceivers).toEqual([['video', { direction: 'recvonly' }]]);
  // No trickle: nothing is sent while candidates are still being gathered.
  expect(steps(v.s.last())).toHaveLength(1);
  pc.gather(3);
  await run();
  expect(steps(v.s.last())[1]).toEqual({ type: 'offer', session: 's-1', sdp: 'v=0 offer candidates:3' });
  live(v.s.last(), { type: 'answer', session: 's-1', sdp: 'v=0 answer' });
  await run();
  expect(pc.remote).toEqual({ type: 'answer', sdp: 'v=0 answer' });
  pc.track(STREAM);
  expect(v.view.current).toBe(STREAM);
  // Tracks came, but no frame yet.
  expect(v.state()).toEqual({ state: 'connecting' });
  v.view.paint();
  expect(v.state()).toEqual({ state: 'live' });
  v.view.paint();
  expect(v.states).toHaveLength(2);
});

test('gathering that never completes sends the offer with what it has after a while', async () => {
  const v = viewer();
  live(v.s.last(), ready('s-1'));
  await run(GATHER_MS - 1);
  expect(steps(v.s.last())).toHaveLength(1);
  await run(1);
  expect(steps(v.s.last())[1]).toMatchObject({ type: 'offer', session: 's-1' });
});

test('a refused viewer says why and asks again after 1, 2, 5, 10, then every 30 s', async () => {
  const v = viewer();
  const requests = () => steps(v.s.last()).filter((x) => x.type === 'request').length;
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    const id = `s-${i}`;
    live(v.s.last(), ready(id));
    await run();
    v.p.last().gather();
    await run();
    live(v.s.last(), { type: 'refused', session: id, message: 'The device is offline.' });
    const st = v.state();
    expect(st).toMatchObject({ state: 'failed', reason: 'The device is offline.' });
    if (st?.state === 'failed') waits.push(st.retryInMs);
    // The failed session's peer connection is closed and the picture taken away.
    expect(v.p.last().closed).toBe(true);
    expect(v.view.current).toBeNull();
    const before = requests();
    await run(waits[waits.length - 1]! - 1);
    expect(requests()).toBe(before);
    await run(1);
    expect(requests()).toBe(before + 1);
    expect(v.state()).toEqual({ state: 'connecting' });
  }
  expect(waits).toEqual([1_000, 2_000, 5_000, 10_000, 30_000, 30_000, 30_000]);
  // A session that played starts the back-off again from 1 s.
  await toLive(v, 'good');
  expect(v.state()).toEqual({ state: 'live' });
  live(v.s.last(), { type: 'ended', session: 'good', message: 'The camera stopped.' });
  expect(v.state()).toEqual({ state: 'failed', reason: 'The camera stopped.', retryInMs: 1_000 });
});

test('a request the server refuses outright is a failure with its message', async () => {
  const v = viewer();
  v.s.last().say({ event: 'error', data: { message: 'Device 7 not found.' } });
  expect(v.state()).toEqual({ state: 'failed', reason: 'Device 7 not found.', retryInMs: 1_000 });
  await run(1_000);
  expect(steps(v.s.last())).toEqual([
    { type: 'request', device: 7, camera: 'cam0' },
    { type: 'request', device: 7, camera: 'cam0' },
  ]);
});

test('a failed connection or no picture in time fails the session and leaves it', async () => {
  const v = viewer();
  await toLive(v, 's-1');
  v.p.last().connection('failed');
  expect(v.state()).toEqual({ state: 'failed', reason: CONNECTION_FAILED, retryInMs: 1_000 });
  // The server is told the viewer left.
  expect(steps(v.s.last()).at(-1)).toEqual({ type: 'close', session: 's-1' });
  await run(1_000);
  live(v.s.last(), ready('s-2'));
  await run();
  v.p.last().gather();
  await run();
  live(v.s.last(), { type: 'answer', session: 's-2', sdp: 'v=0 answer' });
  await run(PICTURE_MS - 1);
  expect(v.state()).toEqual({ state: 'connecting' });
  await run(1);
  expect(v.state()).toEqual({ state: 'failed', reason: NO_PICTURE, retryInMs: 2_000 });
  expect(steps(v.s.last()).at(-1)).toEqual({ type: 'close', session: 's-2' });
});

test('a dropped socket fails a live viewer; it asks again on the new socket', async () => {
  const v = viewer();
  await toLive(v, 's-1');
  v.s.last().drop();
  expect(v.state()).toEqual({ state: 'failed', reason: LOST, retryInMs: 1_000 });
  expect(v.p.last().closed).toBe(true);
  await run(1_000);
  // The socket is dialled again after 1 s and the viewer asks after 1 s: it waits.
  expect(v.s.all).toHaveLength(2);
  expect(v.s.last().sent).toEqual([]);
  v.s.last().open();
  expect(steps(v.s.last())).toEqual([{ type: 'request', device: 7, camera: 'cam0' }]);
});

test('stopping a viewer sends close, closes its peer connection and asks for nothing more', async () => {
  const v = viewer();
  await toLive(v, 's-1');
  const pc = v.p.last();
  v.stop();
  expect(steps(v.s.last()).at(-1)).toEqual({ type: 'close', session: 's-1' });
  expect(pc.closed).toBe(true);
  expect(v.view.current).toBeNull();
  const sent = v.s.last().sent.length;
  // What comes after is nobody's; no new session is asked for.
  live(v.s.last(), { type: 'ended', session: 's-1', message: 'late' });
  await run(60_000);
  expect(v.s.last().sent).toHaveLength(sent);
  expect(v.state()).toEqual({ state: 'live' });
});

test('a viewer stopped while it gathers candidates never sends its offer', async () => {
  const v = viewer();
  live(v.s.last(), ready('s-1'));
  await run();
  v.stop();
  v.p.last().gather();
  await run();
  expect(steps(v.s.last())).toEqual([
    { type: 'request', device: 7, camera: 'cam0' },
    { type: 'close', session: 's-1' },
  ]);
  expect(v.p.last().closed).toBe(true);
});

test('two viewers of one camera on one stream are two sessions', async () => {
  const s = sockets();
  const p = peers();
  const signal = new LiveSignalling(s.connect);
  signal.start();
  s.last().open();
  const views = [new FakeView(), new FakeView()];
  const states: LiveState[][] = [[], []];
  for (const i of [0, 1]) watch(signal, { device: 7, camera: 'cam0' }, views[i]!, (st) => states[i]!.push(st), { makePeer: p.makePeer });
  live(s.last(), ready('tile'));
  live(s.last(), ready('player'));
  await run();
  for (const pc of p.all) pc.gather();
  await run();
  expect(steps(s.last()).filter((x) => x.type === 'offer').map((x) => (x.type === 'offer' ? x.session : ''))).toEqual(['tile', 'player']);
  expect(s.all).toHaveLength(1);
  live(s.last(), { type: 'refused', session: 'player', message: 'busy' });
  expect(states[0]!.at(-1)).toEqual({ state: 'connecting' });
  expect(states[1]!.at(-1)).toMatchObject({ state: 'failed', reason: 'busy' });
});
