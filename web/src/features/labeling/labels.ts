/**
 * The labeling screen's editing of a video's step segments, kept pure: a segment is
 * marked from a start and an end (in either order), must not overlap another, and the
 * list stays in time order, as the server stores it.
 */
import type { Segment } from '@/api/generated';
import { exactSeconds } from '@/lib/format';

export type Edit = { segments: Segment[] } | { error: string };

/** Adds step `step` from `a` to `b` (ms, either order), refusing an empty or overlapping one. */
export function addSegment(segments: readonly Segment[], step: number, a: number, b: number): Edit {
  const start_ms = Math.round(Math.min(a, b));
  const end_ms = Math.round(Math.max(a, b));
  if (end_ms <= start_ms) return { error: 'Move the video before marking the end: the segment is empty.' };
  const clash = segments.find((s) => s.start_ms < end_ms && start_ms < s.end_ms);
  if (clash) {
    return { error: `It overlaps the segment of step ${clash.step + 1} (${exactSeconds(clash.start_ms)}–${exactSeconds(clash.end_ms)}).` };
  }
  return { segments: [...segments, { step, start_ms, end_ms }].sort((x, y) => x.start_ms - y.start_ms) };
}

export const removeSegment = (segments: readonly Segment[], i: number): Segment[] => segments.filter((_, k) => k !== i);

/** The step performed at `ms`, or null (background). */
export function stepAt(segments: readonly Segment[], ms: number): number | null {
  return segments.find((s) => s.start_ms <= ms && ms < s.end_ms)?.step ?? null;
}

/** The timeline's zoom levels: how many times the whole video the timeline's width is. */
export const ZOOMS = [1, 2, 4, 8, 16, 32] as const;

/**
 * The part of a `duration`-ms video a timeline zoomed `zoom` times shows: `duration /
 * zoom` long, centred on `now` where it can be, never past either end.
 */
export function timelineWindow(duration: number, now: number, zoom: number): { from: number; to: number } {
  const width = duration / Math.max(1, zoom);
  const from = Math.min(Math.max(0, now - width / 2), Math.max(0, duration - width));
  return { from, to: from + width };
}

/** How far (px) a pointer moves along the timeline before it marks (a drag) rather than seeks (a tap). */
export const DRAG_PX = 8;

/** The moment (ms) at `x` px along a `width`-px timeline showing `view`, kept inside it. */
export function timelineMs(view: { from: number; to: number }, width: number, x: number): number {
  if (width <= 0) return view.from;
  return view.from + (Math.min(Math.max(0, x), width) / width) * (view.to - view.from);
}

/** What a press at `x0` and a release at `x1` (px along the timeline) do. */
export type Gesture = { seek: number } | { mark: [number, number] };

/**
 * A press and release on the labeling timeline (mouse, pen or finger): moved
 * `DRAG_PX` or more where marking is allowed, it marks a segment between the two
 * moments (the chosen step's); else it is a tap, going to the moment released at.
 */
export function timelineGesture(view: { from: number; to: number }, width: number, x0: number, x1: number, canMark: boolean): Gesture {
  const at = timelineMs(view, width, x1);
  if (!canMark || Math.abs(x1 - x0) < DRAG_PX) return { seek: at };
  const from = timelineMs(view, width, x0);
  return { mark: [Math.min(from, at), Math.max(from, at)] };
}
