/**
 * A device's update channel (issue 30): the release environment its agent follows, `dev`
 * or `prod`. Changed by the organisation's `ManageDevices` roles on the device's page
 * and by the super admin on Instances (`PATCH device/{id}/update_channel/`, answered
 * with the device).
 */
import type { Device, UpdateChannel } from '@/api/generated';
import { api } from '@/lib/api-client';

/** The channels, as the server's `gemba_shared::release::ENVIRONMENTS`. */
export const CHANNELS = ['dev', 'prod'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The super admin may change any organisation's device (the server finds it by id alone). */
export const setUpdateChannel = (device: number, channel: Channel) =>
  api.patch<Device>(`device/${device}/update_channel/`, { update_channel: channel } satisfies UpdateChannel);
