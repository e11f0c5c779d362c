import type { CameraStatus, Device } from '@/api/generated';
import type { LiveState } from '@/api/live-view';
import { cameraState } from '@/lib/camera-state';

/** A camera's name and device, as tiles and the player title it. */
export const cameraTitle = (camera: string, device: Pick<Device, 'display_name'>) => `${camera} on ${device.display_name}`;

/** The viewer's state in words (`null`: the device is offline, nothing is asked for). */
export function liveText(state: LiveState | null): string {
  if (state === null) return 'Offline: no live video while the device is offline.';
  switch (state.state) {
    case 'connecting':
      return 'Connecting…';
    case 'live':
      return 'Live';
    case 'failed':
      return `Failed: ${state.reason} Trying again in ${Math.round(state.retryInMs / 1000)} s.`;
  }
}

/** The state's class: `live-offline`, `live-connecting`, `live-live`, `live-failed`. */
export const liveClass = (state: LiveState | null) => `live-state live-${state === null ? 'offline' : state.state}`;

/** What the camera itself does, from its device's last status. */
export const cameraText = (c: CameraStatus, device: Device) => `Camera: ${cameraState(c, device)}`;

/**
 * What a remote camera does, from its device's last status (which lists it like any
 * camera once the device applies its configuration).
 */
export function remoteCamState(name: string, device: Device): string {
  if (!device.online) return 'Device offline';
  const c = device.status?.cameras.find((x) => x.camera === name);
  return c ? cameraState(c, device) : 'Not reported by the device yet';
}
