/**
 * Live view (issue 29), the portal's side: a camera's picture over WebRTC, signalled on
 * the device stream (`/api/ws`, event `webrtc_stream_offer`, its `type` saying the step;
 * `shared/src/api/v1/stream.rs`).
 *
 * - [`LiveSignalling`] is one screen's stream, however many cameras it shows: it opens
 *   the socket (again after a drop: 1, 2, 5, 10, then every 30 s; not after 4401, the
 *   sign-in ended), sends `request`s and hands each `ready` to its request (the server
 *   answers frames in the order they came, so the n-th answer is the n-th request's),
 *   then routes `answer`, `refused` and `ended` by session. An `error` answers the
 *   oldest frame still waiting for its answer (a request, or a `subscribe`). A dropped
 *   socket ends every session on it (the server tells their devices).
 * - [`watch`] runs one viewer of one camera: request → a peer connection with the
 *   `ready`'s ICE servers, receive-only video, its offer sent once every candidate is
 *   gathered (no trickle) → the device's answer → `live` once a frame shows. A refusal,
 *   an end, a failed connection or no picture in time is `failed` with why, and a new
 *   session follows after 1, 2, 5, 10, then every 30 s (back to 1 s once live: TURN
 *   credentials last an hour, so every new session gets new ones). Stopping it sends
 *   `close` and closes the peer connection.
 *
 * Both take their I/O from outside (the socket, the peer connection, the video), so the
 * tests drive them with fakes; `use-live-view.ts` gives them the browser's.
 */
import type { ClientEvent, LiveEvent, ServerEvent } from '@/api/generated';

/** The session and ICE servers the server made for a request. */
export type LiveReady = Extract<LiveEvent, { type: 'ready' }>;

// ---- The socket ----------------------------------------------------------------------

/** What the client does with an open socket. */
export interface SignalSocket {
  send(text: string): void;
  /** Closes it without a `closed` call back. */
  close(): void;
}

/** What a socket tells the client. */
export interface SocketEvents {
  open(): void;
  message(text: string): void;
  /** It closed (or never opened), with the close code. */
  closed(code: number): void;
}

/** Opens a socket reporting to `events`; `null` when it cannot be opened now (signed out). */
export type Connect = (events: SocketEvents) => SignalSocket | null;

/** Whether the stream is open ('live'), being opened, or down (waiting to retry). */
export type SignalState = 'connecting' | 'live' | 'down';

/** Waits before opening a dropped stream again, or before a new session (ms); the last repeats. */
export const RETRY_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000];
/** The close code of a stream whose sign-in ended. */
export const SIGNED_OUT = 4401;

export const LOST = 'The connection to the server was lost.';

/** What a session's owner hears. */
export interface SessionHandlers {
  ready(r: LiveReady): void;
  answer(sdp: string): void;
  /** It is over (refused, ended, its request refused, or the stream dropped), and why. */
  over(reason: string): void;
}

/** One asked-for session, from its request to its end. */
export interface LiveTicket {
  /** Sends the session's offer (only once `ready` came). */
  offer(sdp: string): void;
  /** Leaves the session: `close` is sent once it has one; nothing more is heard. */
  close(): void;
}

type Ticket = {
  device: number;
  camera: string;
  handlers: SessionHandlers;
  session: string | null;
  /** Left by its owner. */
  closed: boolean;
  /** Over (its owner told). */
  done: boolean;
};

/** A frame sent that the server answers with one frame. */
type Waiting = { kind: 'request'; ticket: Ticket } | { kind: 'subscribe' };

export type SignallingOptions = {
  /** Sent first on every opened socket (the screen's `subscribe`). */
  greeting?: () => ClientEvent | null;
  /** Every server event that is not a live view's (device status and the like). */
  onEvent?: (e: ServerEvent) => void;
  onState?: (s: SignalState) => void;
  retryMs?: readonly number[];
};

export class LiveSignalling {
  private socket: SignalSocket | null = null;
  private open = false;
  private stopped = true;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Requests not yet sent (the socket is not open). */
  private unsent: Ticket[] = [];
  /** Frames sent, waiting for their answer, oldest first. */
  private waiting: Waiting[] = [];
  private sessions = new Map<string, Ticket>();
  private readonly retry: readonly number[];

  constructor(
    private readonly connect: Connect,
    private readonly options: SignallingOptions = {},
  ) {
    this.retry = options.retryMs ?? RETRY_MS;
  }

  /** Opens the stream (and keeps it open until `stop`). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.dial();
  }

  /** Closes the stream: every session ends (the server tells their devices). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.dropped(LOST);
  }

  /** Asks for `camera` of `device`; `handlers` hear the session's steps. */
  request(device: number, camera: string, handlers: SessionHandlers): LiveTicket {
    const t: Ticket = { device, camera, handlers, session: null, closed: false, done: false };
    if (this.open) this.sendRequest(t);
    else this.unsent.push(t);
    return {
      offer: (sdp) => {
        if (t.closed || t.done || t.session === null) return;
        this.send({ event: 'webrtc_stream_offer', data: { type: 'offer', session: t.session, sdp } });
      },
      close: () => {
        if (t.closed) return;
        t.closed = true;
        this.unsent = this.unsent.filter((u) => u !== t);
        if (t.session !== null && this.sessions.delete(t.session)) this.sendClose(t.session);
      },
    };
  }

  /** Sends a `subscribe` or `unsubscribe` (answered `devices`, which goes to `onEvent`). */
  sendEvent(e: ClientEvent): void {
    if (!this.open) return;
    this.waiting.push({ kind: 'subscribe' });
    this.send(e);
  }

  private dial(): void {
    if (this.stopped) return;
    this.options.onState?.('connecting');
    const socket = this.connect({
      open: () => {
        if (this.socket !== socket) return;
        this.opened();
      },
      message: (text) => {
        if (this.socket !== socket) return;
        this.heard(text);
      },
      closed: (code) => {
        if (this.socket !== socket) return;
        this.socket = null;
        this.dropped(code === SIGNED_OUT ? 'The sign-in ended.' : LOST);
        if (code !== SIGNED_OUT) this.redial();
      },
    });
    this.socket = socket;
    if (socket === null) this.options.onState?.('down');
  }

  private redial(): void {
    if (this.stopped) return;
    const wait = this.retry[Math.min(this.failures, this.retry.length - 1)] ?? 30_000;
    this.failures += 1;
    this.timer = setTimeout(() => this.dial(), wait);
  }

  private opened(): void {
    this.open = true;
    this.failures = 0;
    this.options.onState?.('live');
    const greeting = this.options.greeting?.();
    if (greeting) this.sendEvent(greeting);
    const unsent = this.unsent;
    this.unsent = [];
    for (const t of unsent) this.sendRequest(t);
  }

  /** The socket is gone: every session on it is over; requests not sent yet wait. */
  private dropped(reason: string): void {
    this.open = false;
    const over = [
      ...this.waiting.flatMap((w) => (w.kind === 'request' ? [w.ticket] : [])),
      ...this.sessions.values(),
    ];
    this.waiting = [];
    this.sessions.clear();
    for (const t of over) this.finish(t, reason);
    if (!this.stopped) this.options.onState?.('down');
  }

  private sendRequest(t: Ticket): void {
    this.waiting.push({ kind: 'request', ticket: t });
    this.send({ event: 'webrtc_stream_offer', data: { type: 'request', device: t.device, camera: t.camera } });
  }

  private sendClose(session: string): void {
    this.send({ event: 'webrtc_stream_offer', data: { type: 'close', session } });
  }

  private send(frame: ClientEvent): void {
    if (this.open) this.socket?.send(JSON.stringify(frame));
  }

  private finish(t: Ticket, reason: string): void {
    if (t.done || t.closed) {
      t.done = true;
      return;
    }
    t.done = true;
    t.handlers.over(reason);
  }

  private heard(text: string): void {
    let e: ServerEvent;
    try {
      e = JSON.parse(text) as ServerEvent;
    } catch {
      return;
    }
    if (e.event === 'webrtc_stream_offer') {
      this.live(e.data);
      return;
    }
    if (e.event === 'error') {
      const w = this.waiting.shift();
      if (w?.kind === 'request') {
        this.finish(w.ticket, e.data.message);
        return;
      }
    } else if (e.event === 'devices' && this.waiting[0]?.kind === 'subscribe') {
      this.waiting.shift();
    }
    this.options.onEvent?.(e);
  }

  private live(e: LiveEvent): void {
    if (e.type === 'ready') {
      // The oldest request's answer; subscriptions sent before it were answered before it.
      const i = this.waiting.findIndex((w) => w.kind === 'request');
      if (i < 0) return;
      const w = this.waiting[i] as Extract<Waiting, { kind: 'request' }>;
      this.waiting.splice(0, i + 1);
      const t = w.ticket;
      if (t.closed) {
        this.sendClose(e.session);
        return;
      }
      t.session = e.session;
      this.sessions.set(e.session, t);
      t.handlers.ready(e);
      return;
    }
    const t = this.sessions.get(e.session);
    if (!t) return;
    if (e.type === 'answer') {
      t.handlers.answer(e.sdp);
      return;
    }
    this.sessions.delete(e.session);
    this.finish(t, e.message);
  }
}

// ---- One viewer ----------------------------------------------------------------------

/** What a viewer shows. */
export type LiveState =
  | { state: 'connecting' }
  | { state: 'live' }
  /** Why; a new session is asked for in `retryInMs`. */
  | { state: 'failed'; reason: string; retryInMs: number };

/** Where the picture goes (a `<video>`; a fake in the tests). */
export interface LiveView {
  /** Shows `stream` (`null`: nothing). */
  show(stream: MediaStream | null): void;
  /** Calls `picture` whenever a frame of the shown stream is there; answers an undo. */
  onPicture(picture: () => void): () => void;
}

/** What of a peer connection a viewer uses. */
export type LivePeer = Pick<
  RTCPeerConnection,
  | 'addTransceiver'
  | 'createOffer'
  | 'setLocalDescription'
  | 'setRemoteDescription'
  | 'localDescription'
  | 'iceGatheringState'
  | 'connectionState'
  | 'onicegatheringstatechange'
  | 'onconnectionstatechange'
  | 'ontrack'
  | 'close'
>;

export type PeerFactory = (config: RTCConfiguration) => LivePeer;

/** Longest wait for every ICE candidate before the offer goes with those gathered (ms). */
export const GATHER_MS = 5_000;
/** Longest wait for a picture once the device answered (ms). */
export const PICTURE_MS = 20_000;

export type WatchOptions = {
  makePeer: PeerFactory;
  /** `relay`: only through the cloud's TURN relay. */
  iceTransportPolicy?: RTCIceTransportPolicy;
  retryMs?: readonly number[];
};

export const NO_PICTURE = 'No picture came from the camera.';
export const CONNECTION_FAILED = 'The video connection failed.';

/**
 * Shows `camera` of `device` in `view` until the answered stop is called, reporting
 * each change of state to `onState`.
 */
export function watch(
  signal: LiveSignalling,
  target: { device: number; camera: string },
  view: LiveView,
  onState: (s: LiveState) => void,
  options: WatchOptions,
): () => void {
  const retry = options.retryMs ?? RETRY_MS;
  let failures = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let end: (() => void) | null = null;

  const attempt = () => {
    if (stopped) return;
    onState({ state: 'connecting' });
    let over = false;
    let live = false;
    let pc: LivePeer | null = null;
    let noPicture: ReturnType<typeof setTimeout> | undefined;

    const cleanUp = () => {
      over = true;
      clearTimeout(noPicture);
      undoPicture();
      ticket.close();
      if (pc) {
        pc.ontrack = null;
        pc.onconnectionstatechange = null;
        pc.onicegatheringstatechange = null;
        pc.close();
      }
      view.show(null);
    };
    const fail = (reason: string) => {
      if (over || stopped) return;
      cleanUp();
      const wait = retry[Math.min(failures, retry.length - 1)] ?? 30_000;
      failures += 1;
      onState({ state: 'failed', reason, retryInMs: wait });
      timer = setTimeout(attempt, wait);
    };

    const connect = async (ready: LiveReady) => {
      let peer: LivePeer;
      try {
        peer = options.makePeer({
          iceServers: ready.ice_servers,
          ...(options.iceTransportPolicy ? { iceTransportPolicy: options.iceTransportPolicy } : {}),
        });
      } catch (e) {
        fail(why(e));
        return;
      }
      pc = peer;
      peer.addTransceiver('video', { direction: 'recvonly' });
      peer.ontrack = (ev) => {
        if (!over) view.show(ev.streams[0] ?? new MediaStream([ev.track]));
      };
      peer.onconnectionstatechange = () => {
        if (peer.connectionState === 'failed') fail(CONNECTION_FAILED);
      };
      try {
        await peer.setLocalDescription(await peer.createOffer());
        await gathered(peer, GATHER_MS);
      } catch (e) {
        fail(`The browser could not make an offer: ${why(e)}`);
        return;
      }
      const sdp = peer.localDescription?.sdp;
      if (over) return;
      if (!sdp) {
        fail('The browser could not make an offer.');
        return;
      }
      ticket.offer(sdp);
    };

    const ticket = signal.request(target.device, target.camera, {
      ready: (r) => void connect(r),
      answer: (sdp) => {
        if (over || !pc) return;
        pc.setRemoteDescription({ type: 'answer', sdp }).catch((e: unknown) =>
          fail(`The device's answer did not fit: ${why(e)}`),
        );
        noPicture = setTimeout(() => fail(NO_PICTURE), PICTURE_MS);
      },
      over: fail,
    });
    const undoPicture = view.onPicture(() => {
      if (over || live) return;
      live = true;
      failures = 0;
      clearTimeout(noPicture);
      onState({ state: 'live' });
    });
    end = () => {
      if (!over) cleanUp();
    };
  };

  attempt();
  return () => {
    stopped = true;
    clearTimeout(timer);
    end?.();
  };
}

/** Resolves once `pc` has gathered every candidate, or after `ms`. */
function gathered(pc: LivePeer, ms: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((done) => {
    const t = setTimeout(done, ms);
    pc.onicegatheringstatechange = () => {
      if (pc.iceGatheringState === 'complete') {
        clearTimeout(t);
        done();
      }
    };
  });
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
