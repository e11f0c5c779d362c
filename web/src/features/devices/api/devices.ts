/**
 * Devices, spec section 7 "Devices": the organisation's list (starred first,
 * departmental devices hidden, both by the server), one device with its recent commands,
 * the caller's star, adding a device (answered with its one-time enrolment code), a new
 * code, revoking the credentials, and starting or stopping a camera's task. The tasks a
 * camera may run are the organisation's (`organization/task/`).
 *
 * Every change answers the device after it; callers put it in the cache (`putDevice`),
 * which also marks the lists and the details stale.
 */
import { type QueryClient, queryOptions } from '@tanstack/react-query';

import type {
  Device,
  DeviceCreate,
  DeviceDetails,
  DevicePatch,
  EnrolmentCode,
  FetchAnalytics,
  StartTask,
  StopTask,
  Task,
} from '@/api/generated';
import { deviceKey, devicesKey } from '@/api/device-stream';
import { api } from '@/lib/api-client';

export { deviceKey, devicesKey } from '@/api/device-stream';
export { deviceListKey, deviceListQuery } from '@/api/devices';

/** How often a device's page asks for its live status (ms). */
export const DEVICE_REFRESH_MS = 5_000;

/** One device with its recent commands; asked again every 5 s while shown (live status). */
export const deviceQuery = (id: number) =>
  queryOptions({
    queryKey: deviceKey(id),
    queryFn: () => api.get<DeviceDetails>(`device/${id}/device_details/`),
    staleTime: 0,
    refetchInterval: DEVICE_REFRESH_MS,
  });

/** The organisation's tasks (operations), starred first: what a camera may run. */
export const deviceTasksQuery = () =>
  queryOptions({
    queryKey: [...devicesKey, 'tasks'],
    queryFn: () => api.get<Task[]>('organization/task/'),
    staleTime: 0,
  });

export const createDevice = (body: DeviceCreate) => api.post<EnrolmentCode>('device/', body);

export const patchDevice = (id: number, body: DevicePatch) => api.patch<Device>(`device/${id}/`, body);

export const newEnrolmentCode = (id: number) => api.post<EnrolmentCode>(`device/${id}/enrolment_code/`);

export const revokeDevice = (id: number) => api.post<Device>(`device/${id}/revoke/`);

export const startTask = (id: number, body: StartTask) => api.post<Device>(`device/${id}/start_task/`, body);

export const stopTask = (id: number, body: StopTask) => api.post<Device>(`device/${id}/stop_task/`, body);

/** Whether the device sends its analytics to the cloud now, or keeps them until switched on again. */
export const setFetchAnalytics = (id: number, on: boolean) =>
  api.post<Device>(`device/set_fetch_analytics/${id}/`, { fetch_analytics: on } satisfies FetchAnalytics);

/**
 * After a change: the answered device over the cached details (keeping their commands
 * until the reload brings the new ones), and every device query marked stale.
 */
export async function putDevice(qc: QueryClient, device: Device): Promise<void> {
  qc.setQueryData<DeviceDetails>(deviceKey(device.id), (old) => (old ? { ...old, ...device } : old));
  await qc.invalidateQueries({ queryKey: devicesKey });
}
