/**
 * Live view (issue 29), the portal's side: a camera's picture over WebRTC, signalled on
 * the device stream (`/api/ws`, event `webrtc_stream_offer`, its `type` saying the step;
 * `shared/src/api/v1/stream.rs`).
 *
 * - [`LiveSignalling`] is one screen's stream (`stream.ts`'s `DeviceStream`: opened
 *   again after a drop, calls answered in order), however many cameras it shows: each
 *   `request` is a call answered `ready` (or an `error`: refused), after which the
 *   session's `answer`, `refused` and `ended` come by its id. A dropped socket ends
 *   every session on it (the server tells their devices).
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
import { type Call, type Connect, DeviceStream, RETRY_MS, type StreamState } from '@/api/stream';

/** The session and ICE servers the server made for a request. */
export type LiveReady = Extract<LiveEvent, { type: 'ready' }>;

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

export type SignallingOptions = {
  /** Sent first on every opened socket (the screen's `subscribe`). */
  greeting?: () => ClientEvent | null;
  /** Every server event that is not a live view's (device status and the like). */
  onEvent?: (e: ServerEvent) => void;
  onState?: (s: StreamState) => void;
  retryMs?: readonly number[];
  answerMs?: number;
};

const liveStep = (e: ServerEvent): LiveEvent | null => (e.event === 'webrtc_stream_offer' ? e.data : null);

export class LiveSignalling {
  private readonly stream: DeviceStream;

  constructor(connect: Connect, options: SignallingOptions = {}) {
    this.stream = new DeviceStream(connect, { ...options, keyOf: (e) => liveStep(e)?.session ?? null });
  }

  /** Opens the stream (and keeps it open until `stop`). */
  start(): void {
    this.stream.start();
  }

  /** Closes the stream: every session ends (the server tells their devices). */
  stop(): void {
    this.stream.stop();
  }

  /** Asks for `camera` of `device`; `handlers` hear the session's steps. */
  request(device: number, camera: string, handlers: SessionHandlers): LiveTicket {
    const stream = this.stream;
    let session: string | null = null;
    /** Left by its owner. */
    let closed = false;
    /** Over (its owner told). */
    let done = false;
    const finish = (reason: string) => {
      if (done) return;
      done = true;
      if (!closed) handlers.over(reason);
    };
    const close = (id: string) => stream.send({ event: 'webrtc_stream_offer', data: { type: 'close', session: id } });
    const call: Call = {
      frame: { event: 'webrtc_stream_offer', data: { type: 'request', device, camera } },
      answeredBy: (e) => liveStep(e)?.type === 'ready',
      answer: (e) => {
        if (e.event === 'error') return finish(e.data.message);
        const ready = liveStep(e);
        if (ready?.type !== 'ready') return;
        if (closed) return close(ready.session);
        const id = ready.session;
        session = id;
        stream.follow(id, {
          event: (ev) => {
            const step = liveStep(ev);
            if (step?.type === 'answer') handlers.answer(step.sdp);
            else if (step?.type === 'refused' || step?.type === 'ended') {
              stream.unfollow(id);
              finish(step.message);
            }
          },
          lost: finish,
        });
        handlers.ready(ready);
      },
      lost: finish,
    };
    stream.call(call);
    return {
      offer: (sdp) => {
        if (closed || done || session === null) return;
        stream.send({ event: 'webrtc_stream_offer', data: { type: 'offer', session, sdp } });
      },
      close: () => {
        if (closed) return;
        closed = true;
        stream.withdraw(call);
        if (session !== null && stream.unfollow(session)) close(session);
      },
    };
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
