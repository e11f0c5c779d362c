import type { CameraStatus, Device } from '@/api/generated';
import { formatDateTime } from '@/lib/format';

/**
 * What a camera does, in words, from its device's last status: running or starting
 * (with a warning about its source if any), idle, or failed with why, since when and
 * when the agent tries again; "by schedule" while one of the device's schedules runs
 * its task (the device started it, and stops it at the window's end). The device's times are shown on the cloud's clock, by the
 * status's own send time against when it arrived.
 */
export function cameraState(c: CameraStatus, device: Pick<Device, 'status' | 'last_seen'>): string {
  const warning = c.warning ? ` — ${c.warning}` : '';
  const scheduled = c.schedule != null ? ' by schedule' : '';
  switch (c.state) {
    case 'running':
      return `Running${scheduled}${warning}`;
    case 'starting':
      return `Starting${scheduled}${warning}`;
    case 'idle':
      return 'Idle';
    case 'failed': {
      const s = device.status;
      const offset = s !== null && device.last_seen !== null ? device.last_seen - s.ts_ms : 0;
      const since = c.since_ms != null ? ` since ${formatDateTime(c.since_ms + offset)}` : '';
      const retry = c.retry_at_ms != null ? ` (next try ${formatDateTime(c.retry_at_ms + offset)})` : '';
      return `Failed${scheduled}${since}: ${c.error ?? 'no reason given'}${retry}`;
    }
  }
}
