/**
 * The device stream as a client of requests (`/api/ws`, `shared/src/api/v1/stream.rs`),
 * pure of I/O: the one piece the live view (`live-view.ts`), the OPC explorer
 * (`features/opc/explorer.ts`) and the screens that only listen (`use-device-stream.ts`)
 * build on.
 *
 * - It keeps a socket open from `start` to `stop`: opened again after a drop after 1,
 *   2, 5, 10, then every 30 s (back to 1 s once one opens); not after 4401, the sign-in
 *   ended, nor when there is no sign-in to open it with.
 * - A `Call` is a frame the server answers with one frame, at once and in the order the
 *   frames came: its answer is the first frame heard that it takes (`answeredBy`), or an
 *   `error`, while it is the oldest waiting. A call made before the socket opens waits
 *   for it. One not answered in `ANSWER_MS` means the socket is stuck (a connection
 *   dead without a close, as a phone changing networks leaves it): the socket is closed,
 *   everything on it fails with `NO_ANSWER`, and a new one is opened.
 * - After its answer, a call's owner may `follow` a key (a live session, an OPC request
 *   id): the later events bearing it (`keyOf`) go to that follower until it leaves.
 * - A socket that drops (or a `stop`) fails every call waiting on it and every follower,
 *   with why in words; the greeting (`subscribe`) is sent again on each new socket.
 *   Every other event (device status, a greeting's answer, an error nothing waits for)
 *   goes to `onEvent`.
 *
 * The socket comes from outside (`Connect`): the tests drive it with a fake
 * (`src/testing/fake-socket.ts`), the screens give it the browser's (`browser-socket.ts`).
 */
import type { ClientEvent, ServerEvent } from '@/api/generated';

/** What the client does with an open socket. */
export interface StreamSocket {
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

/** Opens a socket reporting to `events`; `null` when it cannot be opened (signed out). */
export type Connect = (events: SocketEvents) => StreamSocket | null;

/** Whether the stream is open ('live'), being opened, or down (waiting to retry). */
export type StreamState = 'connecting' | 'live' | 'down';

/** Waits before opening a dropped stream again (ms); the last repeats. */
export const RETRY_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000];
/** The close code of a stream whose sign-in ended. */
export const SIGNED_OUT = 4401;
/** Longest wait for the server's answer to a call (ms); it answers at once. */
export const ANSWER_MS = 15_000;

export const LOST = 'The connection to the server was lost.';
export const SIGN_IN_ENDED = 'The sign-in ended.';
export const NO_ANSWER = 'The server did not answer in time.';

/** A frame the server answers with one frame. */
export interface Call {
  frame: ClientEvent;
  /** Whether `e` is its answer (an `error` always is). */
  answeredBy(e: ServerEvent): boolean;
  /** Its answer: an event `answeredBy` took, or an `error`. */
  answer(e: ServerEvent): void;
  /** No answer will come (the socket dropped or is stuck, the stream stopped), and why. */
  lost(reason: string): void;
}

/** Hears the events bearing its key, until it leaves or the socket goes. */
export interface Follower {
  event(e: ServerEvent): void;
  /** The socket went (or the stream stopped): nothing more comes, and why. */
  lost(reason: string): void;
}

export type StreamOptions = {
  /** Sent first on every opened socket (the screen's `subscribe`); its answer goes to `onEvent`. */
  greeting?: () => ClientEvent | null;
  /** The key of the follower an event is for; `null`: none (it goes to `onEvent`). */
  keyOf?: (e: ServerEvent) => string | null;
  /** Every event that is no call's answer and has no key. */
  onEvent?: (e: ServerEvent) => void;
  onState?: (s: StreamState) => void;
  retryMs?: readonly number[];
  answerMs?: number;
};

type Waiting = { call: Call; timer: ReturnType<typeof setTimeout> };

export class DeviceStream {
  private socket: StreamSocket | null = null;
  private open = false;
  /** `stopped`: calls wait for `start`; `signed-out`: calls fail at once. */
  private phase: 'stopped' | 'running' | 'signed-out' = 'stopped';
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Calls made while the socket was not open. */
  private unsent: Call[] = [];
  /** Calls sent, waiting for their answer, oldest first. */
  private waiting: Waiting[] = [];
  private followers = new Map<string, Follower>();
  private readonly retry: readonly number[];
  private readonly answerMs: number;

  constructor(
    private readonly connect: Connect,
    private readonly options: StreamOptions = {},
  ) {
    this.retry = options.retryMs ?? RETRY_MS;
    this.answerMs = options.answerMs ?? ANSWER_MS;
  }

  /** Opens the stream and keeps it open until `stop`. */
  start(): void {
    if (this.phase === 'running') return;
    this.phase = 'running';
    this.failures = 0;
    this.dial();
  }

  /** Closes the stream: what waits on it fails with `LOST`; later calls wait for `start`. */
  stop(): void {
    this.phase = 'stopped';
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.dropped(LOST);
    this.failUnsent(LOST);
  }

  /** Sends `call` (once the socket is open); it hears its answer or why none comes. */
  call(call: Call): void {
    if (this.phase === 'signed-out') {
      // Told after the caller has what it needs to handle it.
      queueMicrotask(() => call.lost(SIGN_IN_ENDED));
    } else if (this.open) {
      this.sendCall(call);
    } else {
      this.unsent.push(call);
    }
  }

  /** Takes back `call` if not sent yet; answers whether it was not. */
  withdraw(call: Call): boolean {
    const before = this.unsent.length;
    this.unsent = this.unsent.filter((c) => c !== call);
    return this.unsent.length < before;
  }

  /** Sends a frame the server does not answer; dropped when the socket is not open. */
  send(frame: ClientEvent): void {
    if (this.open) this.socket?.send(JSON.stringify(frame));
  }

  /** The events bearing `key` go to `follower` (until `unfollow` or the socket goes). */
  follow(key: string, follower: Follower): void {
    this.followers.set(key, follower);
  }

  /** `key`'s follower leaves; answers whether it was there. */
  unfollow(key: string): boolean {
    return this.followers.delete(key);
  }

  private dial(): void {
    if (this.phase !== 'running') return;
    this.options.onState?.('connecting');
    const socket = this.connect({
      open: () => {
        if (this.socket === socket) this.opened();
      },
      message: (text) => {
        if (this.socket === socket) this.heard(text);
      },
      closed: (code) => {
        if (this.socket !== socket) return;
        this.socket = null;
        this.down(code === SIGNED_OUT ? SIGN_IN_ENDED : LOST);
      },
    });
    this.socket = socket;
    if (socket === null) this.down(SIGN_IN_ENDED);
  }

  /** The socket is gone (`SIGN_IN_ENDED`: for good): what was on it fails; another is opened. */
  private down(reason: string): void {
    this.dropped(reason);
    if (reason === SIGN_IN_ENDED) {
      this.phase = 'signed-out';
      this.failUnsent(reason);
    }
    this.options.onState?.('down');
    if (this.phase !== 'running') return;
    const wait = this.retry[Math.min(this.failures, this.retry.length - 1)] ?? 30_000;
    this.failures += 1;
    this.timer = setTimeout(() => this.dial(), wait);
  }

  private opened(): void {
    this.open = true;
    this.failures = 0;
    this.options.onState?.('live');
    const greeting = this.options.greeting?.();
    if (greeting) {
      const onEvent = (e: ServerEvent) => this.options.onEvent?.(e);
      this.sendCall({ frame: greeting, answeredBy: (e) => e.event === 'devices', answer: onEvent, lost: () => {} });
    }
    const unsent = this.unsent;
    this.unsent = [];
    for (const c of unsent) this.sendCall(c);
  }

  private sendCall(call: Call): void {
    this.waiting.push({ call, timer: setTimeout(() => this.stuck(), this.answerMs) });
    this.socket?.send(JSON.stringify(call.frame));
  }

  /** The oldest call waited too long: the socket is dead or the server stuck. */
  private stuck(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.down(NO_ANSWER);
  }

  /** Every call and follower of the socket that is gone fails. */
  private dropped(reason: string): void {
    this.open = false;
    const waiting = this.waiting;
    const followers = [...this.followers.values()];
    this.waiting = [];
    this.followers.clear();
    for (const w of waiting) {
      clearTimeout(w.timer);
      w.call.lost(reason);
    }
    for (const f of followers) f.lost(reason);
  }

  private failUnsent(reason: string): void {
    const unsent = this.unsent;
    this.unsent = [];
    for (const c of unsent) c.lost(reason);
  }

  private heard(text: string): void {
    let e: ServerEvent;
    try {
      e = JSON.parse(text) as ServerEvent;
    } catch {
      return;
    }
    const oldest = this.waiting[0];
    if (oldest && (e.event === 'error' || oldest.call.answeredBy(e))) {
      this.waiting.shift();
      clearTimeout(oldest.timer);
      oldest.call.answer(e);
      return;
    }
    const key = this.options.keyOf?.(e) ?? null;
    if (key === null) {
      this.options.onEvent?.(e);
      return;
    }
    // An event for a key nobody follows (a session left) is nobody's.
    this.followers.get(key)?.event(e);
  }
}
