import { MIN_SIDE, describeRect, drawable, pointIn, rectBetween, rectOf, rectStyle, sameRects } from './blur-rects';

const BOX = { left: 100, top: 50, width: 400, height: 300 };

test("a pointer's place is a fraction of the frame, kept inside it", () => {
  expect(pointIn(100, 50, BOX)).toEqual({ x: 0, y: 0 });
  expect(pointIn(300, 125, BOX)).toEqual({ x: 0.5, y: 0.25 });
  expect(pointIn(900, -20, BOX)).toEqual({ x: 1, y: 0 });
  // A frame not laid out yet (no size) gives the corner, not NaN.
  expect(pointIn(10, 10, { left: 0, top: 0, width: 0, height: 0 })).toEqual({ x: 0, y: 0 });
});

test('a drag draws the same rectangle whichever way it goes', () => {
  const r = { x: 0.1, y: 0.2, width: 0.3, height: 0.4 };
  expect(rectBetween({ x: 0.1, y: 0.2 }, { x: 0.4, y: 0.6 })).toEqual(r);
  expect(rectBetween({ x: 0.4, y: 0.6 }, { x: 0.1, y: 0.2 })).toEqual(r);
  expect(rectBetween({ x: 0.4, y: 0.2 }, { x: 0.1, y: 0.6 })).toEqual(r);
});

test('a rectangle stays inside the frame, rounded so x + width never passes 1', () => {
  expect(rectBetween({ x: -0.5, y: 0.5 }, { x: 1.5, y: 2 })).toEqual({ x: 0, y: 0.5, width: 1, height: 0.5 });
  const r = rectBetween({ x: 0.333333, y: 0.666666 }, { x: 1, y: 1 });
  expect(r).toEqual({ x: 0.3333, y: 0.6667, width: 0.6667, height: 0.3333 });
  expect(r.x + r.width).toBeLessThanOrEqual(1 + 1e-4);
  for (let i = 0; i < 200; i++) {
    const a = { x: Math.random(), y: Math.random() };
    const b = { x: Math.random(), y: Math.random() };
    const q = rectBetween(a, b);
    expect(q.x).toBeGreaterThanOrEqual(0);
    expect(q.x + q.width).toBeLessThanOrEqual(1 + 1e-4);
    expect(q.y + q.height).toBeLessThanOrEqual(1 + 1e-4);
  }
});

test('a click or a slip draws nothing', () => {
  expect(drawable(rectBetween({ x: 0.5, y: 0.5 }, { x: 0.5, y: 0.5 }))).toBe(false);
  expect(drawable({ x: 0, y: 0, width: MIN_SIDE / 2, height: 0.5 })).toBe(false);
  expect(drawable({ x: 0, y: 0, width: MIN_SIDE, height: MIN_SIDE })).toBe(true);
});

test('regions compare by their rounded numbers, in order', () => {
  const kept = rectOf({ x: 0.10000000149011612, y: 0.2, width: 0.30000001192092896, height: 0.4 });
  expect(kept).toEqual({ x: 0.1, y: 0.2, width: 0.3, height: 0.4 });
  expect(sameRects([kept], [{ x: 0.1, y: 0.2, width: 0.3, height: 0.4 }])).toBe(true);
  expect(sameRects([kept], [])).toBe(false);
  expect(sameRects([kept, { ...kept, x: 0.5 }], [{ ...kept, x: 0.5 }, kept])).toBe(false);
});

test('a rectangle as CSS and in words', () => {
  const r = { x: 0.1, y: 0.2, width: 0.3333, height: 0.15 };
  expect(rectStyle(r)).toEqual({ left: '10%', top: '20%', width: '33.33%', height: '15%' });
  expect(describeRect(r)).toBe('from 10% across, 20% down, 33.3% wide, 15% high');
});
