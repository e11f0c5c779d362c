/**
 * The organisation's device list, shared by the screens that show devices (Devices,
 * Cameras): kept under `devicesKey`, so the device stream's events land in it.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Device } from '@/api/generated';
import { devicesKey } from '@/api/device-stream';
import { api } from '@/lib/api-client';

export const deviceListKey = (org: number) => [...devicesKey, 'list', org] as const;

/** The devices of organisation `org`, starred first (the server's order). */
export const deviceListQuery = (org: number) =>
  queryOptions({
    queryKey: deviceListKey(org),
    queryFn: () => api.get<Device[]>(`device/device_org/${org}/`),
    staleTime: 0,
  });
