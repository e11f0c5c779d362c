/** The device stream (`/api/ws`) as the tests' server keeps it. */
import type { ClientEvent, ServerEvent } from '@/api/generated';

import { deviceStream, server } from './server';

/** A connection: what it was opened with, what it sent, and how to answer it. */
export type Connection = {
  url: URL;
  protocols: string[];
  received: ClientEvent[];
  send: (e: ServerEvent) => void;
  close: (code: number) => void;
};

/** Opens the fake stream; each frame a client sends is answered with `answer`'s event
 * (`null`: left unanswered, as a dead connection leaves it). Answers the connections,
 * in the order they were opened. */
export function fakeStream(answer: (e: ClientEvent) => ServerEvent | null): Connection[] {
  const connections: Connection[] = [];
  server.use(
    deviceStream.addEventListener('connection', ({ client, info }) => {
      const p = info.protocols;
      const c: Connection = {
        url: client.url,
        protocols: p === undefined ? [] : Array.isArray(p) ? p : [p],
        received: [],
        send: (e) => client.send(JSON.stringify(e)),
        close: (code) => client.close(code),
      };
      connections.push(c);
      client.addEventListener('message', (m) => {
        const e = JSON.parse(typeof m.data === 'string' ? m.data : 'null') as ClientEvent;
        c.received.push(e);
        const reply = answer(e);
        if (reply !== null) c.send(reply);
      });
    }),
  );
  return connections;
}
