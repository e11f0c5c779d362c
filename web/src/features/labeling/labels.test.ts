import { exactSeconds as seconds } from '@/lib/format';

import { DRAG_PX, addSegment, removeSegment, stepAt, timelineGesture, timelineMs, timelineWindow } from './labels';

test('segments are added in time order from a start and an end in either order', () => {
  let r = addSegment([], 1, 2000, 1000);
  expect(r).toEqual({ segments: [{ step: 1, start_ms: 1000, end_ms: 2000 }] });
  if ('error' in r) throw new Error(r.error);
  r = addSegment(r.segments, 0, 0, 999.6);
  expect(r).toEqual({
    segments: [
      { step: 0, start_ms: 0, end_ms: 1000 },
      { step: 1, start_ms: 1000, end_ms: 2000 },
    ],
  });
  if ('error' in r) throw new Error(r.error);
  expect(stepAt(r.segments, 999)).toBe(0);
  expect(stepAt(r.segments, 1000)).toBe(1);
  expect(stepAt(r.segments, 2000)).toBeNull();
  expect(removeSegment(r.segments, 0)).toEqual([{ step: 1, start_ms: 1000, end_ms: 2000 }]);
});

test('an empty or overlapping segment is refused with its reason', () => {
  const one = [{ step: 0, start_ms: 1000, end_ms: 2000 }];
  expect(addSegment(one, 1, 500, 500)).toEqual({ error: 'Move the video before marking the end: the segment is empty.' });
  expect(addSegment(one, 1, 1500, 2500)).toEqual({ error: 'It overlaps the segment of step 1 (1.000 s–2.000 s).' });
  expect(addSegment(one, 1, 0, 1001)).toHaveProperty('error');
  expect(addSegment(one, 1, 2000, 2500)).toHaveProperty('segments');
  expect(seconds(1234)).toBe('1.234 s');
});

test('a zoomed timeline shows a window around the playhead, inside the video', () => {
  expect(timelineWindow(120_000, 30_000, 1)).toEqual({ from: 0, to: 120_000 });
  expect(timelineWindow(120_000, 30_000, 4)).toEqual({ from: 15_000, to: 45_000 });
  // Near either end the window stops at the end.
  expect(timelineWindow(120_000, 1_000, 4)).toEqual({ from: 0, to: 30_000 });
  expect(timelineWindow(120_000, 119_000, 4)).toEqual({ from: 90_000, to: 120_000 });
  expect(timelineWindow(0, 0, 8)).toEqual({ from: 0, to: 0 });
});

describe('the timeline by pointer', () => {
  const view = { from: 10_000, to: 20_000 };
  test('a tap goes to the moment under it, inside the shown part', () => {
    expect(timelineGesture(view, 500, 250, 252, true)).toEqual({ seek: 15_040 });
    expect(timelineGesture(view, 500, 2, -3, true)).toEqual({ seek: 10_000 });
  });
  test('a drag marks between where it began and ended, either way', () => {
    expect(timelineGesture(view, 500, 100, 300, true)).toEqual({ mark: [12_000, 16_000] });
    expect(timelineGesture(view, 500, 300, 100, true)).toEqual({ mark: [12_000, 16_000] });
    expect(timelineGesture(view, 500, 100, 100 + DRAG_PX, true)).toEqual({ mark: [12_000, 12_000 + DRAG_PX * 20] });
  });
  test('without marking (read only) a drag only seeks', () => {
    expect(timelineGesture(view, 500, 100, 300, false)).toEqual({ seek: 16_000 });
  });
  test('a timeline with no width stays at its start', () => {
    expect(timelineMs(view, 0, 40)).toBe(10_000);
  });
});
