/**
 * What the training areas share: `trainingKey`, under which every query of what
 * training makes (runs, model versions, deployments) and the devices to send work to
 * lives, so one invalidation refreshes them all; and the organisation's devices, among
 * which recording and deploying choose the ones that can take work.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Device } from '@/api/generated';
import { TRAINING_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';

export const trainingKey = ['training'] as const;

/** A device that can be sent work now (deploying and recording choose among these). */
export const canTakeWork = (d: Device) => d.enrolled && d.online;

/** The organisation's devices (deploying and recording choose among the online ones). */
export const orgDevicesQuery = (org: number) =>
  queryOptions({
    queryKey: [...trainingKey, 'devices', org],
    queryFn: () => api.get<Device[]>(`device/device_org/${org}/`),
    staleTime: 0,
    refetchInterval: TRAINING_POLL_MS * 5,
  });
