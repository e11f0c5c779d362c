import { exactSeconds as seconds } from '@/lib/format';

import { addSegment, removeSegment, stepAt, timelineWindow } from './labels';

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
