/**
 * Changing a device's remote cameras (`device/remote_cam/{id}/`; the list is shared,
 * `@/api/remote-cams`): `POST` takes the device's id, `PATCH` and `DELETE` the camera's.
 * Each answers the camera (a delete its message); callers invalidate `remoteCamsKey`.
 */
import type { Msg, RemoteCam, RemoteCamCreate, RemoteCamPatch } from '@/api/generated';
import { api } from '@/lib/api-client';

export const createRemoteCam = (device: number, body: RemoteCamCreate) => api.post<RemoteCam>(`device/remote_cam/${device}/`, body);

export const patchRemoteCam = (id: number, body: RemoteCamPatch) => api.patch<RemoteCam>(`device/remote_cam/${id}/`, body);

export const deleteRemoteCam = (id: number) => api.delete<Msg>(`device/remote_cam/${id}/`);
