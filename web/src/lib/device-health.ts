/**
 * A device's health events in words (issue 30), shared by the device page, All Devices
 * and the Issue Center: the kinds as `gemba_shared::api::v1::device::CameraEventKind::
 * describe` words them, and where an event happened (camera '' is the device itself).
 */
import type { CameraEventKind } from '@/api/generated';
import { formatDateTime } from '@/lib/format';

const KIND_WORDS: Record<CameraEventKind, string> = {
  unsure: 'model unsure',
  offline: 'camera offline',
  frozen: 'frozen frames',
  slow: 'frame rate under its floor',
  model: 'model error',
  outbox_filling: 'outbox filling',
  disk_low: 'disk low',
  covered: 'camera covered',
  moved: 'camera moved',
};

/** The kind in words, lower case: 'camera offline'. */
export function kindWords(kind: CameraEventKind): string {
  return KIND_WORDS[kind];
}

/** The kind in words with a capital: 'Camera offline'. */
export function kindTitle(kind: CameraEventKind): string {
  const w = KIND_WORDS[kind];
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/** Where it happened: 'cam0', or 'the device' for the device's own events. */
export function eventPlace(camera: string): string {
  return camera === '' ? 'the device' : camera;
}

/** An open event as a health line: 'Camera offline on cam0 since 02/03/26 04:05:06'. */
export function healthLine(e: { kind: CameraEventKind; camera: string; started_at: number }): string {
  return `${kindTitle(e.kind)} on ${eventPlace(e.camera)} since ${formatDateTime(e.started_at)}`;
}
