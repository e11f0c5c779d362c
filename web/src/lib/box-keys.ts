/**
 * Drawing a box by keyboard, as plain logic (the surface and its cursor box are
 * `components/ui/keyboard-box.tsx`'s): what a key does to the cursor box. Boxes are
 * fractions 0–1 of the picture from its top-left corner, kept inside it, rounded to
 * 10⁻⁴ (so `x + width` never passes 1). Arrow keys move the box; with Alt or Ctrl they
 * resize it (→ wider, ← narrower, ↓ taller, ↑ shorter), as do + and − (both sides);
 * Shift takes steps ten times bigger; Enter draws it, Escape cancels.
 */
export type Box = { x: number; y: number; width: number; height: number };

/** The keys of a keyboard event that matter here. */
export type BoxKey = { key: string; shiftKey?: boolean; altKey?: boolean; ctrlKey?: boolean; metaKey?: boolean };

export type BoxAction = { kind: 'move'; box: Box } | { kind: 'draw'; box: Box } | { kind: 'cancel' };

/** A step, as a share of the picture's side; Shift takes `BIG_STEP`. */
export const STEP = 0.01;
export const BIG_STEP = 0.1;
/** The smallest side the cursor box has (a step: at least the drawn region's minimum). */
export const MIN_SIDE = STEP;

/** Where the cursor box starts: a fifth of the picture, in its middle. */
export const START_BOX: Box = { x: 0.4, y: 0.4, width: 0.2, height: 0.2 };

const round4 = (v: number) => Math.round(v * 10_000) / 10_000;
const within = (v: number, lo: number, hi: number) => round4(Math.min(hi, Math.max(lo, v)));

/** `b` kept inside the picture, its sides at least `MIN_SIDE`. */
export function inside(b: Box): Box {
  const width = within(b.width, MIN_SIDE, 1);
  const height = within(b.height, MIN_SIDE, 1);
  return { x: within(b.x, 0, round4(1 - width)), y: within(b.y, 0, round4(1 - height)), width, height };
}

const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** What `k` does to the cursor box `b`; `null` for a key that is not ours (left to the page). */
export function boxKey(b: Box, k: BoxKey): BoxAction | null {
  if (k.metaKey) return null;
  const step = k.shiftKey ? BIG_STEP : STEP;
  const arrow = ARROWS[k.key];
  if (arrow) {
    const [dx, dy] = arrow;
    if (k.altKey || k.ctrlKey) {
      const width = within(b.width + dx * step, MIN_SIDE, round4(1 - b.x));
      const height = within(b.height + dy * step, MIN_SIDE, round4(1 - b.y));
      return { kind: 'move', box: { ...b, width, height } };
    }
    return { kind: 'move', box: inside({ ...b, x: b.x + dx * step, y: b.y + dy * step }) };
  }
  if (k.altKey || k.ctrlKey) return null;
  const grow = k.key === '+' || k.key === '=' ? 1 : k.key === '-' || k.key === '_' ? -1 : 0;
  if (grow !== 0) {
    const width = within(b.width + grow * step, MIN_SIDE, round4(1 - b.x));
    const height = within(b.height + grow * step, MIN_SIDE, round4(1 - b.y));
    return { kind: 'move', box: { ...b, width, height } };
  }
  if (k.key === 'Enter') return { kind: 'draw', box: inside(b) };
  if (k.key === 'Escape') return { kind: 'cancel' };
  return null;
}

const whole = (v: number) => `${Math.round(v * 1000) / 10}%`;

/** A box in words, for the screen reader: "from 40% across, 40% down, 20% wide, 20% high". */
export const describeBox = (b: Box) => `from ${whole(b.x)} across, ${whole(b.y)} down, ${whole(b.width)} wide, ${whole(b.height)} high`;
