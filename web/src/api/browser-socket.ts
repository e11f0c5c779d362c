/**
 * The browser's WebSocket to the device stream for `stream.ts`: `/api/ws` of the
 * organisation, with the session's token of the moment as the sub-protocol
 * `bearer.{token}` beside `gemba.v1` (a browser cannot send an `Authorization` header
 * with a WebSocket).
 */
import type { Connect } from '@/api/stream';
import { readSession } from '@/lib/session';

export const STREAM_PROTOCOL = 'gemba.v1';

/** `ws(s)://{host}/api/ws?organization={org}`. */
export function streamUrl(org: number): string {
  const u = new URL('/api/ws', window.location.origin);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.searchParams.set('organization', String(org));
  return u.toString();
}

/** Opens `/api/ws` of `org`; `null` when there is no sign-in to open it with. */
export function browserConnect(org: number): Connect {
  return (events) => {
    const token = readSession().token;
    if (!token) return null;
    const ws = new WebSocket(streamUrl(org), [STREAM_PROTOCOL, `bearer.${token}`]);
    ws.onopen = () => events.open();
    ws.onmessage = (m: MessageEvent) => {
      if (typeof m.data === 'string') events.message(m.data);
    };
    ws.onclose = (c: CloseEvent) => events.closed(c.code);
    return {
      send: (text) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
      },
      close: () => {
        ws.onclose = null;
        ws.onmessage = null;
        ws.close();
      },
    };
  };
}
