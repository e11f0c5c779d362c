/**
 * Two validation runs side by side: the same figures of each, and for every step the
 * F1 of each, so a new model version can be judged against the one it would replace.
 */
import type { ValidationReport } from '@/api/generated';

export type Row = { figure: string; a: string; b: string; better: 'a' | 'b' | null };

const pct = (x: number | null | undefined) => (x == null ? '—' : `${(x * 100).toFixed(1)}%`);
const secs = (x: number | null | undefined) => (x == null ? '—' : `${x.toFixed(2)} s`);

/** Which of two numbers is better (`higher` is better, or lower); none when equal or
 * either is missing. */
function better(a: number | null | undefined, b: number | null | undefined, higher: boolean): 'a' | 'b' | null {
  if (a == null || b == null || a === b) return null;
  return a > b === higher ? 'a' : 'b';
}

/** The figures of reports `a` and `b` as rows: frame accuracy, cycles found of the
 * true ones, cycle-time error, verdict agreement, then each step's F1 (by label). */
export function compareRows(a: ValidationReport, b: ValidationReport): Row[] {
  const rows: Row[] = [
    { figure: 'Frame accuracy', a: pct(a.frame_accuracy), b: pct(b.frame_accuracy), better: better(a.frame_accuracy, b.frame_accuracy, true) },
    {
      figure: 'Cycles found',
      a: `${a.matched} of ${a.true_cycles}`,
      b: `${b.matched} of ${b.true_cycles}`,
      better: better(a.matched / Math.max(a.true_cycles, 1), b.matched / Math.max(b.true_cycles, 1), true),
    },
    {
      figure: 'Cycle-time error',
      a: secs(a.cycle_time_error_s),
      b: secs(b.cycle_time_error_s),
      better: better(a.cycle_time_error_s, b.cycle_time_error_s, false),
    },
    {
      figure: 'Verdict agreement',
      a: pct(a.verdict_agreement),
      b: pct(b.verdict_agreement),
      better: better(a.verdict_agreement, b.verdict_agreement, true),
    },
  ];
  for (const l of a.per_label) {
    const other = b.per_label.find((x) => x.label === l.label);
    rows.push({ figure: `F1: ${l.label}`, a: pct(l.f1), b: pct(other?.f1), better: better(l.f1, other?.f1, true) });
  }
  return rows;
}

export { pct, secs };
