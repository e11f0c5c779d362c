import { expect, test } from 'vitest';

import type { ValidationReport } from '@/api/generated';

import { compareRows } from './compare';

const report = (over: Partial<ValidationReport>): ValidationReport => ({
  videos: 2,
  frames: 100,
  frame_accuracy: 0.9,
  true_cycles: 4,
  found_cycles: 4,
  matched: 4,
  cycle_time_error_s: 0.5,
  cycle_time_error_share: 0.05,
  verdict_agreement: 1,
  per_label: [
    { label: 'Fit', precision: 1, recall: 0.8, f1: 0.8, support: 10 },
    { label: 'background', precision: 0.9, recall: 1, f1: 0.95, support: 20 },
  ],
  ...over,
});

test('the better run of each figure is marked: higher accuracy, lower error', () => {
  const rows = compareRows(report({ frame_accuracy: 0.95, cycle_time_error_s: 0.8 }), report({}));
  const by = Object.fromEntries(rows.map((r) => [r.figure, r]));
  expect(by['Frame accuracy']).toEqual({ figure: 'Frame accuracy', a: '95.0%', b: '90.0%', better: 'a' });
  expect(by['Cycle-time error']).toMatchObject({ a: '0.80 s', b: '0.50 s', better: 'b' });
  expect(by['Cycles found']).toMatchObject({ a: '4 of 4', better: null });
  expect(by['F1: Fit']).toMatchObject({ a: '80.0%', better: null });
});

test('a figure one run could not measure is a dash and neither is better', () => {
  const rows = compareRows(report({ cycle_time_error_s: null, verdict_agreement: null, matched: 0 }), report({}));
  const by = Object.fromEntries(rows.map((r) => [r.figure, r]));
  expect(by['Cycle-time error']).toMatchObject({ a: '—', better: null });
  expect(by['Verdict agreement']).toMatchObject({ a: '—', b: '100.0%', better: null });
  expect(by['Cycles found']).toMatchObject({ a: '0 of 4', better: 'b' });
});
