/**
 * A device's remote (network) cameras, `GET device/remote_cam/{device}/`: shared by
 * Cameras (their list and form) and a device's page (the cameras a schedule may use).
 * Changes invalidate `remoteCamsKey(device)`.
 */
import { queryOptions } from '@tanstack/react-query';

import type { RemoteCam } from '@/api/generated';
import { api } from '@/lib/api-client';

export const remoteCamsKey = (device: number) => ['remote-cams', device] as const;

/** The remote cameras of `device`, in the server's order. */
export const remoteCamsQuery = (device: number) =>
  queryOptions({
    queryKey: remoteCamsKey(device),
    queryFn: () => api.get<RemoteCam[]>(`device/remote_cam/${device}/`),
    staleTime: 0,
  });
