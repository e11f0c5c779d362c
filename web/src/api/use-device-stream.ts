/**
 * The device stream of a screen that only listens (the Dashboard, Analytics, Devices, a
 * device's page): `stream.ts`'s `DeviceStream` on the browser's socket, greeting each
 * socket it opens with `subscribe` and putting every event into the cached queries
 * (`applyStreamEvent`). So it reopens as live view and the OPC explorer do: after 1, 2,
 * 5, 10, then every 30 s, with the session's token of that moment; not after 4401 (the
 * sign-in ended: the next REST call takes the user to the login); and a `subscribe` the
 * server leaves unanswered for 15 s (it answers at once with `devices`) means a dead
 * connection, closed and opened again.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { browserConnect } from '@/api/browser-socket';
import { applyStreamEvent } from '@/api/device-stream';
import type { ClientEvent } from '@/api/generated';
import { DeviceStream, type StreamState } from '@/api/stream';

/**
 * Keeps the device stream of organisation `org` open while the calling screen is
 * shown, watching `devices` (every device of the organisation when absent).
 */
export function useDeviceStream(org: number | null, devices?: readonly number[]): StreamState {
  const qc = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');
  // A new array of the same ids each render keeps the stream.
  const watched = devices === undefined ? null : devices.join(',');

  useEffect(() => {
    if (org === null) return;
    const ids = watched === null ? undefined : watched.split(',').filter(Boolean).map(Number);
    const subscribe: ClientEvent = { event: 'subscribe', data: ids === undefined ? {} : { devices: ids } };
    const stream = new DeviceStream(browserConnect(org), {
      greeting: () => subscribe,
      onEvent: (e) => applyStreamEvent(qc, e),
      onState: setState,
    });
    stream.start();
    return () => stream.stop();
  }, [org, watched, qc]);

  return state;
}
