/**
 * The OPC UA explorer's requests on the device stream (`/api/ws`, event
 * `discover_devices_opcua`; `shared/src/api/v1/stream.rs`): `ask` sends a device a
 * request (discover servers, browse a node, read one) and resolves with the device's
 * reply, or rejects with why in words.
 *
 * The server answers each request at once, in the order they came: `sent` (with the
 * request's id) or `error` (refused: the feature, the role, an offline device…); the
 * device's `answer` or `failed` then comes by that id. The stream also watches every
 * device of the organisation (`subscribe`, answered `devices`), whose events go to
 * `onEvent` (the screen puts them in the cached device list: online, offline). A dropped stream fails every
 * request on it and is opened again after 1, 2, 5, 10, then every 30 s (not after
 * 4401, the sign-in ended). The socket comes from outside (`Connect`), so the tests
 * drive it with a fake; the screen gives it the browser's (`browserConnect`).
 */
import type { ClientEvent, OpcuaReply, OpcuaRequest, ServerEvent } from '@/api/generated';
import { type Connect, LOST, RETRY_MS, SIGNED_OUT, type SignalSocket, type SignalState } from '@/api/live-view';

type Ask = {
  device: number;
  request: OpcuaRequest;
  resolve: (r: OpcuaReply) => void;
  reject: (e: Error) => void;
};

/** A frame sent that the server answers with one frame: a request, or the `subscribe`. */
type Waiting = { kind: 'ask'; ask: Ask } | { kind: 'subscribe' };

export type ExplorerOptions = {
  onState?: (s: SignalState) => void;
  /** Every event that is not the explorer's (devices, their status). */
  onEvent?: (e: ServerEvent) => void;
  retryMs?: readonly number[];
};

export class OpcuaExplorer {
  private socket: SignalSocket | null = null;
  private open = false;
  private stopped = true;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Asked before the socket opened. */
  private unsent: Ask[] = [];
  /** Sent, waiting for their first answer, oldest first. */
  private waiting: Waiting[] = [];
  /** Sent to their devices, by request id. */
  private byId = new Map<string, Ask>();
  private readonly retry: readonly number[];

  constructor(
    private readonly connect: Connect,
    private readonly options: ExplorerOptions = {},
  ) {
    this.retry = options.retryMs ?? RETRY_MS;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.dial();
  }

  /** Closes the stream; every request still waiting fails. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.dropped(LOST);
    for (const a of this.unsent.splice(0)) a.reject(new Error(LOST));
  }

  /** Sends `request` to `device`: the device's reply, or why not. */
  ask(device: number, request: OpcuaRequest): Promise<OpcuaReply> {
    return new Promise((resolve, reject) => {
      const a: Ask = { device, request, resolve, reject };
      if (this.open) this.send(a);
      else if (this.stopped) reject(new Error(LOST));
      else this.unsent.push(a);
    });
  }

  private send(a: Ask) {
    const frame: ClientEvent = { event: 'discover_devices_opcua', data: { device: a.device, request: a.request } };
    this.waiting.push({ kind: 'ask', ask: a });
    this.socket?.send(JSON.stringify(frame));
  }

  private dial() {
    if (this.stopped) return;
    this.options.onState?.('connecting');
    const socket = this.connect({
      open: () => {
        if (socket !== this.socket) return;
        this.open = true;
        this.failures = 0;
        this.options.onState?.('live');
        if (this.options.onEvent) {
          const subscribe: ClientEvent = { event: 'subscribe', data: {} };
          this.waiting.push({ kind: 'subscribe' });
          socket?.send(JSON.stringify(subscribe));
        }
        for (const a of this.unsent.splice(0)) this.send(a);
      },
      message: (text) => {
        if (socket === this.socket) this.heard(text);
      },
      closed: (code) => {
        if (socket !== this.socket) return;
        this.socket = null;
        this.open = false;
        this.dropped(LOST);
        this.options.onState?.('down');
        if (code === SIGNED_OUT) {
          this.stopped = true;
          for (const a of this.unsent.splice(0)) a.reject(new Error(LOST));
          return;
        }
        const wait = this.retry[Math.min(this.failures, this.retry.length - 1)] ?? 30_000;
        this.failures += 1;
        this.timer = setTimeout(() => this.dial(), wait);
      },
    });
    this.socket = socket;
    if (!socket) {
      // Signed out: nothing to open.
      this.stopped = true;
      for (const a of this.unsent.splice(0)) a.reject(new Error(LOST));
    }
  }

  /** Fails every request sent on the socket that is gone. */
  private dropped(why: string) {
    for (const w of this.waiting.splice(0)) if (w.kind === 'ask') w.ask.reject(new Error(why));
    for (const a of this.byId.values()) a.reject(new Error(why));
    this.byId.clear();
  }

  private heard(text: string) {
    let e: ServerEvent;
    try {
      e = JSON.parse(text) as ServerEvent;
    } catch {
      return;
    }
    if (e.event === 'error') {
      const w = this.waiting.shift();
      if (w?.kind === 'ask') w.ask.reject(new Error(e.data.message));
      else this.options.onEvent?.(e);
      return;
    }
    if (e.event !== 'discover_devices_opcua') {
      // A `devices` answers the subscribe (the server answers in order).
      if (e.event === 'devices' && this.waiting[0]?.kind === 'subscribe') this.waiting.shift();
      this.options.onEvent?.(e);
      return;
    }
    const d = e.data;
    switch (d.type) {
      case 'sent': {
        const w = this.waiting.shift();
        if (w?.kind === 'ask') this.byId.set(d.id, w.ask);
        break;
      }
      case 'answer': {
        const a = this.byId.get(d.id);
        this.byId.delete(d.id);
        a?.resolve(d.reply);
        break;
      }
      case 'failed': {
        const a = this.byId.get(d.id);
        this.byId.delete(d.id);
        a?.reject(new Error(d.message));
        break;
      }
    }
  }
}

/** The URLs typed for a discovery: split on spaces and commas. */
export function discoveryUrls(text: string): string[] {
  return text.split(/[\s,]+/u).filter((u) => u !== '');
}
