/**
 * A camera's privacy blur regions (`device/blur_regions`): read one camera's, and
 * replace them whole (`PUT`, one call: refused whole, nothing written). The server also
 * adds (`POST`) and deletes by id (`device/delete_blur_regions`); the editor saves its
 * result whole instead, so a save never stops half-way between a delete and an add.
 */
import { queryOptions } from '@tanstack/react-query';

import type { BlurRegionsWrite, DeviceBlurRegion } from '@/api/generated';
import { api } from '@/lib/api-client';

export const blurKey = (device: number, camera: string) => ['blur-regions', device, camera] as const;

export const blurRegionsQuery = (device: number, camera: string) =>
  queryOptions({
    queryKey: blurKey(device, camera),
    queryFn: () => api.get<DeviceBlurRegion[]>('device/blur_regions', { query: { device, camera } }),
    staleTime: 0,
  });

/** Replaces the camera's regions with `regions` (none: removes them); answers them. */
export const replaceBlurRegions = (body: BlurRegionsWrite) => api.put<DeviceBlurRegion[]>('device/blur_regions', body);
