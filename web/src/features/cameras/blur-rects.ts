/**
 * The blur-region editor's geometry, pure: a pointer's place as fractions of the frame,
 * the rectangle a drag draws (normalised whichever way it went, kept inside the frame,
 * rounded to 10⁻⁴ so `x + width` never passes 1 by more than the server's slack), and
 * how regions read and compare. Rectangles are fractions 0–1 of the frame from its
 * top-left corner, as `Rect` and `gemba_shared::mqtt::v1::BlurRegion` have them.
 */
import type { DeviceBlurRegion, Rect } from '@/api/generated';

export type Point = { x: number; y: number };

/** The smallest side a drawn region may have (a click, or a slip of the finger, draws none). */
export const MIN_SIDE = 0.01;

/** Most blur regions of one device, all its cameras (`MAX_BLUR_REGIONS`). */
export const MAX_BLUR_REGIONS = 64;

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
const round4 = (v: number) => Math.round(v * 10_000) / 10_000;

/** Where `(clientX, clientY)` is in `box` (the frame on screen), as fractions, inside it. */
export function pointIn(clientX: number, clientY: number, box: { left: number; top: number; width: number; height: number }): Point {
  return {
    x: box.width > 0 ? clamp01((clientX - box.left) / box.width) : 0,
    y: box.height > 0 ? clamp01((clientY - box.top) / box.height) : 0,
  };
}

/** The rectangle between two corners, whichever they are, inside the frame. */
export function rectBetween(a: Point, b: Point): Rect {
  const [x0, x1] = [clamp01(Math.min(a.x, b.x)), clamp01(Math.max(a.x, b.x))];
  const [y0, y1] = [clamp01(Math.min(a.y, b.y)), clamp01(Math.max(a.y, b.y))];
  const x = round4(x0);
  const y = round4(y0);
  return { x, y, width: Math.min(round4(x1 - x0), round4(1 - x)), height: Math.min(round4(y1 - y0), round4(1 - y)) };
}

/** Big enough to be a region rather than a click. */
export const drawable = (r: Rect) => r.width >= MIN_SIDE && r.height >= MIN_SIDE;

/** A kept region's rectangle (its numbers as the editor rounds them). */
export const rectOf = (r: Pick<DeviceBlurRegion, 'x' | 'y' | 'width' | 'height'>): Rect => ({
  x: round4(r.x),
  y: round4(r.y),
  width: round4(r.width),
  height: round4(r.height),
});

/** The same rectangles in the same order. */
export function sameRects(a: readonly Rect[], b: readonly Rect[]): boolean {
  const same = (p: Rect, q: Rect) => [p.x - q.x, p.y - q.y, p.width - q.width, p.height - q.height].every((d) => Math.abs(d) < 5e-5);
  return a.length === b.length && a.every((r, i) => same(r, b[i]!));
}

const pct = (v: number) => `${round4(v * 100)}%`;

/** Where a rectangle sits over the frame, as CSS. */
export const rectStyle = (r: Rect) => ({ left: pct(r.x), top: pct(r.y), width: pct(r.width), height: pct(r.height) });

const whole = (v: number) => `${Math.round(v * 1000) / 10}%`;

/** A rectangle in words: "from 10% across, 20% down, 30% wide, 15% high". */
export const describeRect = (r: Rect) => `from ${whole(r.x)} across, ${whole(r.y)} down, ${whole(r.width)} wide, ${whole(r.height)} high`;
