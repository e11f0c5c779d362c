import { describe, expect, it } from 'vitest';

import type { RectificationStep } from '@/api/generated';

import { byStep } from './api/rectification';

const r = (id: number, step: number, order: number): RectificationStep => ({
  id,
  task: 1,
  step,
  step_name: null,
  description: `r${id}`,
  order,
  created_at: 0,
});

describe('byStep', () => {
  it('puts each rectification step under its step, in order', () => {
    const { steps, gone } = byStep(['Fit', 'Check'], [r(3, 1, 2), r(1, 0, 1), r(2, 1, 1)]);
    expect(steps.map((s) => [s.name, s.rectification.map((x) => x.id)])).toEqual([
      ['Fit', [1]],
      ['Check', [2, 3]],
    ]);
    expect(gone).toEqual([]);
  });

  it('keeps apart those of a step the operation no longer has', () => {
    const { steps, gone } = byStep(['Fit'], [r(1, 0, 1), r(2, 4, 1)]);
    expect(steps[0]?.rectification.map((x) => x.id)).toEqual([1]);
    expect(gone.map((x) => x.id)).toEqual([2]);
  });
});
