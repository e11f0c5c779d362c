/**
 * Device monitoring (spec section 7 "Devices": two GETs for device status and
 * monitoring, keyed by organisation): the cloud's own `monitoring/{org}/device_status/`
 * and `monitoring/{org}/device_monitoring/`, read by the Temporary screen.
 */
import { queryOptions } from '@tanstack/react-query';

import type { DeviceHealth, DeviceMonitoring, MonitoringStatus } from '@/api/generated';
import { api } from '@/lib/api-client';
import { healthLine } from '@/lib/device-health';

export const monitoringKey = ['monitoring'] as const;

/** How often the screen reads them again (a device says its status about every 30 s). */
export const REFRESH_MS = 30_000;

export const deviceStatusQuery = (org: number) =>
  queryOptions({
    queryKey: [...monitoringKey, 'status', org],
    queryFn: () => api.get<MonitoringStatus>(`monitoring/${org}/device_status/`),
    refetchInterval: REFRESH_MS,
  });

export const deviceMonitoringQuery = (org: number) =>
  queryOptions({
    queryKey: [...monitoringKey, 'monitoring', org],
    queryFn: () => api.get<DeviceMonitoring>(`monitoring/${org}/device_monitoring/`),
    refetchInterval: REFRESH_MS,
  });

/** A device's health in one line: 'Healthy', 'Offline', or its open events. */
export function healthSummary(d: Pick<DeviceHealth, 'online' | 'open_events'>): string {
  const events = d.open_events.map(healthLine);
  if (!d.online) events.unshift('Offline');
  return events.length === 0 ? 'Healthy' : events.join('; ');
}

/** '2 of 3 online' */
export function onlineLine(s: Pick<MonitoringStatus, 'online' | 'total'>): string {
  return `${s.online} of ${s.total} online`;
}
