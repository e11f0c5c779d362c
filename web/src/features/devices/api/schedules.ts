/**
 * A device's schedules (`device/get_schedules`, `device/add_schedules`,
 * `device/schedules/{id}`): a task run on a camera on weekdays from a time to a later
 * one, in the organisation's time zone; the device keeps them and starts and stops the
 * task itself. Each change answers the schedule (a delete its message); callers
 * invalidate `schedulesKey` (and the device, whose commands list the new configuration).
 */
import { queryOptions } from '@tanstack/react-query';

import type { DeviceSchedule, Msg, ScheduleCreate, SchedulePatch } from '@/api/generated';
import { api } from '@/lib/api-client';

export const schedulesKey = (device: number) => ['schedules', device] as const;

export const schedulesQuery = (device: number) =>
  queryOptions({
    queryKey: schedulesKey(device),
    queryFn: () => api.get<DeviceSchedule[]>('device/get_schedules', { query: { device } }),
    staleTime: 0,
  });

export const createSchedule = (body: ScheduleCreate) => api.post<DeviceSchedule>('device/add_schedules', body);

export const patchSchedule = (id: number, body: SchedulePatch) => api.patch<DeviceSchedule>(`device/schedules/${id}`, body);

export const deleteSchedule = (id: number) => api.delete<Msg>(`device/schedules/${id}`);
