import { describe, expect, it } from 'vitest';

import { asWrites, cssBox, dragBox, iou, iouWithSaved, pointIn } from './boxes';

const saved = (id: number, task_object: number, x: number, y: number, width: number, height: number) => ({
  id,
  task_object,
  x,
  y,
  width,
  height,
  confidence: null,
});

describe('object boxes', () => {
  it('reads a pointer as a point of the image, inside it', () => {
    const r = { left: 100, top: 50, width: 200, height: 100 };
    expect(pointIn(r, 200, 100)).toEqual({ x: 0.5, y: 0.5 });
    expect(pointIn(r, 0, 500)).toEqual({ x: 0, y: 1 });
    expect(pointIn({ ...r, width: 0 }, 200, 100)).toEqual({ x: 0, y: 0.5 });
  });

  it('makes a box from a drag in either direction and drops slips', () => {
    const b = dragBox({ x: 0.6, y: 0.8 }, { x: 0.2, y: 0.3 });
    expect(b?.x).toBe(0.2);
    expect(b?.y).toBe(0.3);
    expect(b?.width).toBeCloseTo(0.4);
    expect(b?.height).toBeCloseTo(0.5);
    expect(dragBox({ x: 0.2, y: 0.2 }, { x: 0.205, y: 0.6 })).toBeNull();
    expect(dragBox({ x: -1, y: 0 }, { x: 2, y: 1 })).toEqual({ x: 0, y: 0, width: 1, height: 1 });
  });

  it('measures the overlap of two boxes', () => {
    const a = { x: 0, y: 0, width: 0.5, height: 0.5 };
    expect(iou(a, a)).toBe(1);
    expect(iou(a, { x: 0.5, y: 0.5, width: 0.5, height: 0.5 })).toBe(0);
    expect(iou(a, { x: 0.25, y: 0, width: 0.5, height: 0.5 })).toBeCloseTo(1 / 3);
  });

  it('compares a drawn box with the saved boxes of its object only', () => {
    const boxes = [saved(1, 7, 0, 0, 0.5, 0.5), saved(2, 8, 0.25, 0, 0.5, 0.5)];
    const drawn = { task_object: 7, x: 0.25, y: 0, width: 0.5, height: 0.5 };
    expect(iouWithSaved(drawn, boxes)).toBeCloseTo(1 / 3);
    expect(iouWithSaved({ ...drawn, task_object: 9 }, boxes)).toBeNull();
    expect(asWrites(boxes)[1]).toEqual({ task_object: 8, x: 0.25, y: 0, width: 0.5, height: 0.5, confidence: null });
    expect(cssBox({ x: 0.1, y: 0.2, width: 0.3, height: 0.4 })).toEqual({ left: '10.000%', top: '20.000%', width: '30.000%', height: '40.000%' });
  });
});
