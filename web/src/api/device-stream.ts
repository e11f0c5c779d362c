/**
 * The device stream (`/api/ws`, spec section 7 "Device stream event names"): while a
 * devices screen is shown, one WebSocket tells it at once when a device goes online or
 * offline, sends a heartbeat, or has its settings changed; the events go straight into
 * the cached device queries, so the screens show them without asking. When a device's
 * new cycles are stored (`cycles`, at most once a second a device), the queries reading
 * cycles (`cyclesKey`) and the device's details are asked for again. The screens keep
 * asking now and then as well (a stream can drop).
 *
 * A browser cannot send an `Authorization` header with a WebSocket: the access token
 * goes as the sub-protocol `bearer.{token}` beside `gemba.v1`, and the organisation in
 * the query. A dropped stream is opened again after 1, 2, 5, 10, then every 30 s, with
 * the session's token of that moment; one closed because the sign-in ended (4401) is
 * not (the next REST call takes the user to the login).
 */
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import type { ClientEvent, Device, DeviceDetails, ServerEvent } from '@/api/generated';
import { readSession } from '@/lib/session';

/** The device queries' keys: every device query starts with `devicesKey`. */
export const devicesKey = ['devices'] as const;
export const deviceKey = (id: number) => [...devicesKey, 'detail', id] as const;
/** Every query reading cycles starts with this key: a `cycles` event asks them again. */
export const cyclesKey = ['cycles'] as const;

export const STREAM_PROTOCOL = 'gemba.v1';
/** The close code of a stream whose sign-in ended. */
export const SIGNED_OUT = 4401;
/** Waits before opening a dropped stream again (ms); the last one repeats. */
export const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

/** `ws(s)://{host}/api/ws?organization={org}`. */
export function streamUrl(org: number): string {
  const u = new URL('/api/ws', window.location.origin);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.searchParams.set('organization', String(org));
  return u.toString();
}

/** Puts one event from the server into the cached device lists and details. */
export function applyStreamEvent(qc: QueryClient, e: ServerEvent): void {
  const merge = (id: number, change: Partial<Device>) => {
    qc.setQueryData<DeviceDetails>(deviceKey(id), (old) => (old ? { ...old, ...change } : old));
    qc.setQueriesData<Device[]>({ queryKey: [...devicesKey, 'list'] }, (list) =>
      list?.map((d) => (d.id === id ? { ...d, ...change } : d)),
    );
  };
  switch (e.event) {
    case 'devices':
      for (const d of e.data) merge(d.id, d);
      break;
    case 'device_status':
      merge(e.data.id, { online: e.data.online, last_seen: e.data.last_seen, status: e.data.status });
      break;
    case 'device_settings':
      merge(e.data.id, { settings: e.data.settings });
      break;
    case 'cycles':
      void qc.invalidateQueries({ queryKey: cyclesKey });
      void qc.invalidateQueries({ queryKey: deviceKey(e.data.id) });
      break;
    case 'error':
      // The portal sends only frames the server takes; say so if one was not.
      console.warn(`device stream: ${e.data.message}`);
      break;
  }
}

/** Whether the stream is open ('live'), being opened, or down (waiting to retry). */
export type StreamState = 'connecting' | 'live' | 'down';

/**
 * Keeps the device stream of organisation `org` open while the calling screen is
 * shown, watching `devices` (every device of the organisation when absent).
 */
export function useDeviceStream(org: number | null, devices?: readonly number[]): StreamState {
  const qc = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');
  const watched = devices === undefined ? null : devices.join(',');

  useEffect(() => {
    if (org === null) return;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;

    const open = () => {
      const token = readSession().token;
      if (stopped || !token) return;
      setState('connecting');
      const ws = new WebSocket(streamUrl(org), [STREAM_PROTOCOL, `bearer.${token}`]);
      socket = ws;
      ws.onopen = () => {
        failures = 0;
        setState('live');
        const ids = watched === null ? undefined : watched.split(',').filter(Boolean).map(Number);
        const subscribe: ClientEvent = { event: 'subscribe', data: ids === undefined ? {} : { devices: ids } };
        ws.send(JSON.stringify(subscribe));
      };
      ws.onmessage = (m: MessageEvent) => {
        if (typeof m.data !== 'string') return;
        try {
          applyStreamEvent(qc, JSON.parse(m.data) as ServerEvent);
        } catch {
          // Not JSON: nothing to apply.
        }
      };
      ws.onclose = (c: CloseEvent) => {
        socket = null;
        setState('down');
        if (stopped || c.code === SIGNED_OUT) return;
        const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
        failures += 1;
        timer = setTimeout(open, wait);
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      if (socket) {
        socket.onclose = null;
        socket.close();
      }
    };
  }, [org, watched, qc]);

  return state;
}
