/**
 * The schedule editor's rules and layout, pure (the server's are
 * `gemba_shared::mqtt::v1::{minute_of_day, time_range, check_days}`): weekdays 0 =
 * Monday … 6 = Sunday; times `HH:MM`, `24:00` the end of the day, the end after the
 * start on the same day. What the form checks before sending (a missing or inverted
 * range is the spec's 'Schedule time is not properly selected!'), what it sends (a
 * change only with what changed), and where each schedule sits on the weekly grid:
 * one block per weekday, side by side where two cameras' schedules share a time.
 */
import type { DeviceSchedule, ScheduleCreate, SchedulePatch } from '@/api/generated';
import { SCHEDULE_TIME_MESSAGE } from '@/config/messages';
import { requiredMessage } from '@/lib/validate';

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export const SHORT_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
/** `24:00`, the latest end. */
export const DAY_MINUTES = 24 * 60;
/** The steps the time choices go in (minutes). */
export const TIME_STEP = 15;
/** The server's message for no weekday. */
export const NO_DAY_MESSAGE = 'A schedule needs at least one weekday.';

/** The minute of the day of `HH:MM` (`24:00` = 1440), else null. */
export function minuteOfDay(s: string): number | null {
  const m = /^(\d\d):(\d\d)$/.exec(s);
  if (!m) return null;
  const [h, min] = [Number(m[1]), Number(m[2])];
  if (h === 24 && min === 0) return DAY_MINUTES;
  return h <= 23 && min <= 59 ? h * 60 + min : null;
}

/** The minutes a schedule covers, `[start, end)`, when it is a range. */
export function timeRange(start: string, end: string): [number, number] | null {
  const [s, e] = [minuteOfDay(start), minuteOfDay(end)];
  return s !== null && e !== null && s < e && s < DAY_MINUTES ? [s, e] : null;
}

/** `HH:MM` of a minute of the day. */
export const hhmm = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/**
 * The times to choose from: starts `00:00`–`23:45`, ends `00:15`–`24:00`, every
 * `TIME_STEP` minutes, with `keep` (a schedule's own time off the steps) in its place.
 */
export function timeChoices(kind: 'start' | 'end', keep = ''): string[] {
  const out: string[] = [];
  const [from, to] = kind === 'start' ? [0, DAY_MINUTES - TIME_STEP] : [TIME_STEP, DAY_MINUTES];
  for (let m = from; m <= to; m += TIME_STEP) out.push(hhmm(m));
  const k = minuteOfDay(keep);
  if (k !== null && !out.includes(keep)) {
    const at = out.findIndex((t) => (minuteOfDay(t) ?? 0) > k);
    out.splice(at < 0 ? out.length : at, 0, keep);
  }
  return out;
}

/** Weekdays as the server names them: "Mon, Tue, Wed". */
export const daysText = (days: readonly number[]) =>
  [...days]
    .sort((a, b) => a - b)
    .map((d) => SHORT_DAYS[d] ?? `Day ${d}`)
    .join(', ');

/** The form's values (the task as the select holds it, its id as text). */
export type ScheduleValues = { camera: string; task: string; days: number[]; start: string; end: string };
export type ScheduleField = 'camera' | 'task' | 'days' | 'start';

export function initialValues(s: DeviceSchedule | null, camera = ''): ScheduleValues {
  return s
    ? { camera: s.camera, task: String(s.task), days: [...s.days], start: s.start, end: s.end }
    : { camera, task: '', days: [], start: '', end: '' };
}

/** The messages of the wrong fields (none: fine to send). Overlaps are the server's to find. */
export function checkSchedule(v: ScheduleValues): Partial<Record<ScheduleField, string>> {
  const out: Partial<Record<ScheduleField, string>> = {};
  if (v.camera === '') out.camera = requiredMessage('Camera');
  if (v.task === '') out.task = requiredMessage('Task');
  if (v.days.length === 0) out.days = NO_DAY_MESSAGE;
  if (timeRange(v.start, v.end) === null) out.start = SCHEDULE_TIME_MESSAGE;
  return out;
}

const sorted = (days: readonly number[]) => [...new Set(days)].sort((a, b) => a - b);

export function createBody(device: number, v: ScheduleValues): ScheduleCreate {
  return { device, camera: v.camera, task: Number(v.task), days: sorted(v.days), start: v.start, end: v.end };
}

/** What changing `s` sends: each field that changed (`{}`: nothing to send). */
export function patchBody(s: DeviceSchedule, v: ScheduleValues): SchedulePatch {
  const out: SchedulePatch = {};
  if (v.camera !== s.camera) out.camera = v.camera;
  if (Number(v.task) !== s.task) out.task = Number(v.task);
  const days = sorted(v.days);
  if (days.join() !== sorted(s.days).join()) out.days = days;
  if (v.start !== s.start) out.start = v.start;
  if (v.end !== s.end) out.end = v.end;
  return out;
}

/** A schedule on one weekday of the grid: its minutes, and its lane of `lanes` side by side. */
export type Block = { schedule: DeviceSchedule; start: number; end: number; lane: number; lanes: number };

/**
 * The week as the grid draws it: for each weekday (0 = Monday), its schedules' blocks,
 * earliest first. Blocks whose times meet share the width, each in the first lane free
 * at its start; a schedule that is not a range is left out.
 */
export function weekLayout(schedules: readonly DeviceSchedule[]): Block[][] {
  return WEEKDAYS.map((_, day) => {
    const blocks: Block[] = schedules
      .filter((s) => s.days.includes(day))
      .flatMap((schedule) => {
        const r = timeRange(schedule.start, schedule.end);
        return r ? [{ schedule, start: r[0], end: r[1], lane: 0, lanes: 1 }] : [];
      })
      .sort((a, b) => a.start - b.start || a.end - b.end || a.schedule.id - b.schedule.id);
    let group: Block[] = [];
    let laneEnds: number[] = [];
    const close = () => {
      for (const b of group) b.lanes = laneEnds.length;
      group = [];
      laneEnds = [];
    };
    for (const b of blocks) {
      if (group.length > 0 && b.start >= Math.max(...laneEnds)) close();
      const free = laneEnds.findIndex((end) => end <= b.start);
      b.lane = free < 0 ? laneEnds.length : free;
      laneEnds[b.lane] = b.end;
      group.push(b);
    }
    close();
    return blocks;
  });
}
