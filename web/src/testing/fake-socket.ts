/**
 * A fake device stream socket for the unit tests of `src/api/stream.ts` and what is
 * built on it (live view, the OPC explorer): `sockets().connect` is a `Connect` that
 * records every socket it opens; the test opens, answers and drops them by hand.
 */
import type { ClientEvent, ServerEvent } from '@/api/generated';
import type { SocketEvents } from '@/api/stream';

export class FakeSocket {
  /** The frames the client sent, in order. */
  sent: ClientEvent[] = [];
  /** Closed by the client. */
  closed = false;
  constructor(readonly events: SocketEvents) {}
  send(text: string) {
    this.sent.push(JSON.parse(text) as ClientEvent);
  }
  close() {
    this.closed = true;
  }
  /** The server took the socket. */
  open() {
    this.events.open();
  }
  /** The server sends `e`. */
  say(e: ServerEvent) {
    this.events.message(JSON.stringify(e));
  }
  /** The socket closes with `code` (1006: dropped). */
  drop(code = 1006) {
    this.events.closed(code);
  }
}

/** A `Connect` handing out fake sockets, and the sockets it handed out. */
export function sockets() {
  const all: FakeSocket[] = [];
  const connect = (events: SocketEvents) => {
    const s = new FakeSocket(events);
    all.push(s);
    return s;
  };
  return { all, connect, last: () => all[all.length - 1]! };
}
