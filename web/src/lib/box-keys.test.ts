import { describe, expect, it } from 'vitest';

import { type Box, MIN_SIDE, START_BOX, boxKey, describeBox, inside } from './box-keys';

const moved = (b: Box, key: string, mods: { shiftKey?: boolean; altKey?: boolean; ctrlKey?: boolean } = {}) => {
  const a = boxKey(b, { key, ...mods });
  if (a?.kind !== 'move') throw new Error(`${key} did not move the box: ${JSON.stringify(a)}`);
  return a.box;
};

describe('box keys', () => {
  it('arrows move the box by a step, Shift by a big one', () => {
    expect(moved(START_BOX, 'ArrowRight')).toEqual({ ...START_BOX, x: 0.41 });
    expect(moved(START_BOX, 'ArrowLeft')).toEqual({ ...START_BOX, x: 0.39 });
    expect(moved(START_BOX, 'ArrowDown')).toEqual({ ...START_BOX, y: 0.41 });
    expect(moved(START_BOX, 'ArrowUp', { shiftKey: true })).toEqual({ ...START_BOX, y: 0.3 });
  });

  it('keeps the box inside the picture when moved against an edge', () => {
    const corner = { x: 0.75, y: 0.02, width: 0.2, height: 0.2 };
    expect(moved(corner, 'ArrowRight', { shiftKey: true })).toEqual({ ...corner, x: 0.8 });
    expect(moved(corner, 'ArrowUp', { shiftKey: true })).toEqual({ ...corner, y: 0 });
  });

  it('Alt or Ctrl with the arrows resize it, the top-left corner kept', () => {
    expect(moved(START_BOX, 'ArrowRight', { altKey: true })).toEqual({ ...START_BOX, width: 0.21 });
    expect(moved(START_BOX, 'ArrowLeft', { ctrlKey: true })).toEqual({ ...START_BOX, width: 0.19 });
    expect(moved(START_BOX, 'ArrowDown', { altKey: true, shiftKey: true })).toEqual({ ...START_BOX, height: 0.3 });
    expect(moved(START_BOX, 'ArrowUp', { ctrlKey: true })).toEqual({ ...START_BOX, height: 0.19 });
  });

  it('+ and − resize both sides, never past the edge nor below the smallest side', () => {
    expect(moved(START_BOX, '+')).toEqual({ ...START_BOX, width: 0.21, height: 0.21 });
    expect(moved(START_BOX, '-', { shiftKey: true })).toEqual({ ...START_BOX, width: 0.1, height: 0.1 });
    const tiny = { x: 0.5, y: 0.5, width: 0.02, height: 0.02 };
    expect(moved(tiny, '-', { shiftKey: true })).toEqual({ ...tiny, width: MIN_SIDE, height: MIN_SIDE });
    expect(moved({ x: 0.9, y: 0.5, width: 0.05, height: 0.05 }, '+', { shiftKey: true })).toEqual({ x: 0.9, y: 0.5, width: 0.1, height: 0.15 });
  });

  it('steps add up without floating-point drift', () => {
    let b = START_BOX;
    for (let i = 0; i < 7; i++) b = moved(b, 'ArrowRight');
    expect(b.x).toBe(0.47);
    for (let i = 0; i < 40; i++) b = moved(b, 'ArrowRight', { altKey: true });
    expect(b.x + b.width).toBeLessThanOrEqual(1);
    expect(b.width).toBe(0.53);
  });

  it('Enter draws the box, Escape cancels, other keys are left to the page', () => {
    expect(boxKey(START_BOX, { key: 'Enter' })).toEqual({ kind: 'draw', box: START_BOX });
    expect(boxKey(START_BOX, { key: 'Escape' })).toEqual({ kind: 'cancel' });
    expect(boxKey(START_BOX, { key: 'Tab' })).toBeNull();
    expect(boxKey(START_BOX, { key: 'a' })).toBeNull();
    expect(boxKey(START_BOX, { key: 'ArrowRight', metaKey: true })).toBeNull();
    expect(boxKey(START_BOX, { key: '+', ctrlKey: true })).toBeNull();
  });

  it('keeps any box inside and reads it in words', () => {
    expect(inside({ x: 0.95, y: -0.1, width: 0.2, height: 0 })).toEqual({ x: 0.8, y: 0, width: 0.2, height: MIN_SIDE });
    expect(describeBox({ x: 0.4, y: 0.123, width: 0.2, height: 0.05 })).toBe('from 40% across, 12.3% down, 20% wide, 5% high');
  });
});
