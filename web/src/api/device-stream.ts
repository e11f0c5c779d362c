/**
 * The device stream's events in the cached queries (`/api/ws`, spec section 7 "Device
 * stream event names"): while a devices or figures screen is shown, one WebSocket
 * (`use-device-stream.ts`) tells it at once when a device goes online or offline, sends
 * a heartbeat, or has its settings changed; the events go straight into the cached
 * device queries, so the screens show them without asking. When a device's new cycles
 * are stored (`cycles`, at most once a second a device), the queries reading cycles
 * (`cyclesKey`) and the device's details are asked for again. The screens keep asking
 * now and then as well (a stream can drop).
 *
 * Small and free of the socket: the first load imports it for its keys (the
 * Dashboard's loader), the socket comes with the screens that open one.
 */
import type { QueryClient } from '@tanstack/react-query';

import type { Device, DeviceDetails, ServerEvent } from '@/api/generated';

/** The device queries' keys: every device query starts with `devicesKey`. */
export const devicesKey = ['devices'] as const;
export const deviceKey = (id: number) => [...devicesKey, 'detail', id] as const;
/** Every query reading cycles starts with this key: a `cycles` event asks them again. */
export const cyclesKey = ['cycles'] as const;

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
