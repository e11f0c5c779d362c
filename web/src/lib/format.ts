/** Display formats of spec section 9. */
import type { TrainStatus } from '@/api/generated';

const two = (n: number) => String(n).padStart(2, '0');

/** The default date format, 'MM/DD/YY, HH:mm:ss', in the browser's time zone. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getMonth() + 1)}/${two(d.getDate())}/${two(d.getFullYear() % 100)}, ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** The training status labels (spec section 4, `TrainStatus::label`). */
export const TRAIN_STATUS_LABEL: Record<TrainStatus, string> = {
  new_task: 'NEW TASK',
  in_annotation: 'IN ANNOTATION',
  training: 'TRAINING',
  failed: 'FAILED',
  trained: 'TRAINED',
};

/** A size in bytes as '1.2 MB' (MiB, one decimal). */
export const megabytes = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;

/** A time in seconds with one decimal: "12.4 s"; a dash for none. */
export const seconds = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`;

/** A time to the millisecond: "12.345 s" (video positions and labelled lengths). */
export const exactSeconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
