/**
 * Drift on the device page (issue 26): how sure each camera's model is of what it sees
 * and how bright its frames are (the agent's status), the sentence a person acts on
 * while a camera's model is unsure ("The model is unsure on cam0 since 14:05: …"), with
 * the figures now against when it was sure, and the record of past events.
 */
import type { CameraEvent, CameraStatus, DeviceDetails } from '@/api/generated';
import { eventPlace, kindTitle } from '@/lib/device-health';
import { formatDateTime } from '@/lib/format';

const two = (n: number) => String(n).padStart(2, '0');

/** A time as 'HH:mm' in the viewer's time zone, with its date when not today. */
export function formatClock(ms: number, now: number = Date.now()): string {
  const d = new Date(ms);
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return d.toDateString() === new Date(now).toDateString() ? hm : `${formatDateTime(ms).slice(0, 8)}, ${hm}`;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;
const level = (brightness: number) => `${Math.round(brightness)}`;

/** The device's clock to the cloud's: the last status's send time against its arrival. */
export function clockOffset(device: DeviceDetails): number {
  const s = device.status;
  return s !== null && device.last_seen !== null && s.ts_ms > 0 ? device.last_seen - s.ts_ms : 0;
}

/** A camera's figures for its row: '12% unsure, brightness 118', or a dash. */
export function certainty(c: CameraStatus): string {
  if (c.unsure_share == null || c.brightness == null) return '—';
  return `${percent(c.unsure_share)} unsure, brightness ${level(c.brightness)}`;
}

/** A figure now against when it was sure: '9 (118 when it was sure)', with `what` after the first. */
function against(now: number, sure: number | null | undefined, show: (x: number) => string, what = ''): string {
  return sure == null ? `${show(now)}${what}` : `${show(now)}${what} (${show(sure)} when it was sure)`;
}

/**
 * How the light changed from when the model was sure, as the agent judges it (more
 * than a stop, on luma + 8: `edge-agent/src/drift.rs`), else null.
 */
export function lightChange(now: number | null | undefined, sure: number | null | undefined): 'fell' | 'rose' | null {
  if (now == null || sure == null) return null;
  const ratio = (now + 8) / (sure + 8);
  return ratio < 0.5 ? 'fell' : ratio > 2 ? 'rose' : null;
}

/** The sentence for a camera whose model is unsure, else null. */
export function unsureSentence(c: CameraStatus, offset: number, now: number = Date.now()): string | null {
  if (c.unsure_since_ms == null) return null;
  const figures = [
    c.unsure_share != null ? against(c.unsure_share, c.sure_share, percent, ' of its frames unsure') : null,
    c.brightness != null ? `brightness ${against(c.brightness, c.sure_brightness, level)}` : null,
  ].filter((x) => x !== null);
  const what = figures.length > 0 ? `: ${figures.join(', ')}` : '';
  const light = lightChange(c.brightness, c.sure_brightness);
  const why = light !== null ? `; the light ${light}` : '';
  const fix = light !== null ? 'Bring the light back, or add video' : 'Add video';
  return (
    `The model is unsure on ${c.camera} since ${formatClock(c.unsure_since_ms + offset, now)}${what}${why}. ` +
    `${fix} of what it sees now and train it again before cycles go wrong.`
  );
}

/** The sentences of the device's cameras whose model is unsure, as warnings. */
export function UnsureNotices({ device }: { device: DeviceDetails }) {
  const offset = clockOffset(device);
  const sentences = (device.status?.cameras ?? []).map((c) => unsureSentence(c, offset)).filter((s) => s !== null);
  return (
    <>
      {sentences.map((s) => (
        <p key={s} role="status" className="warning">
          {s}
        </p>
      ))}
    </>
  );
}

/**
 * One event as the list says it: 'Model unsure on cam0 from 14:05 to 14:40 (brightness
 * 118 → 9)', 'Camera offline on cam0 from 14:05 to 14:40 — camera cam0 (rtsp://…): Could
 * not open resource', 'Disk low on the device from 14:05, still going'.
 */
export function eventSentence(e: CameraEvent, now: number = Date.now()): string {
  const from = `${kindTitle(e.kind)} on ${eventPlace(e.camera)} from ${formatClock(e.started_at, now)}`;
  if (e.kind === 'unsure') {
    const to = e.ended_at !== null ? ` to ${formatClock(e.ended_at, now)}` : ', still unsure';
    const light =
      e.brightness !== null
        ? ` (brightness ${e.sure_brightness !== null ? `${level(e.sure_brightness)} → ` : ''}${level(e.brightness)})`
        : '';
    return `${from}${to}${light}`;
  }
  const to = e.ended_at !== null ? ` to ${formatClock(e.ended_at, now)}` : ', still going';
  const detail = e.detail != null && e.detail !== '' ? ` — ${e.detail}` : '';
  return `${from}${to}${detail}`;
}

/** The record of the cameras' events, newest first. */
export function CameraEvents({ events }: { events: readonly CameraEvent[] }) {
  if (events.length === 0) return <p className="muted">No camera event yet.</p>;
  return (
    <ul aria-label="Camera events">
      {events.map((e) => (
        <li key={e.id}>{eventSentence(e)}</li>
      ))}
    </ul>
  );
}
