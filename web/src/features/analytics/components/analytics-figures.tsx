/**
 * Analytics' figures: those of the range (`Summary`), or beside those of the period
 * before, as long, with the change (`Comparison`).
 */
import type { CycleStats } from '@/api/generated';

import { percent, seconds } from '../api/cycle-stats';

export function Summary({ stats }: { stats: CycleStats }) {
  const t = stats.total;
  return (
    <dl className="summary" aria-label="Figures">
      <dt>Cycles</dt>
      <dd>{t.cycles}</dd>
      <dt>Good</dt>
      <dd>{`${percent(t.good, t.cycles)} (${t.good} good, ${t.bad} bad)`}</dd>
      <dt>Average cycle time</dt>
      <dd>{seconds(t.avg_ms)}</dd>
      <dt>Spread (standard deviation)</dt>
      <dd>{seconds(t.stddev_ms)}</dd>
      <dt>Shortest / longest</dt>
      <dd>
        {seconds(t.min_ms)} / {seconds(t.max_ms)}
      </dd>
    </dl>
  );
}

/** The figures beside those of the period before (as long), with the change. */
export function Comparison({ now, before }: { now: CycleStats; before: CycleStats }) {
  const n = now.total;
  const b = before.total;
  const share = (t: CycleStats['total']) => (t.cycles > 0 ? t.good / t.cycles : null);
  const pts = (x: number | null, y: number | null) => {
    if (x === null || y === null) return '—';
    const d = Math.round((x - y) * 100);
    return `${d >= 0 ? '+' : '−'}${Math.abs(d)} points`;
  };
  const diff = (x: number | null, y: number | null) => (x === null || y === null ? '—' : `${x - y >= 0 ? '+' : '−'}${seconds(Math.abs(x - y))}`);
  const rel = (x: number, y: number) => (y === 0 ? '—' : `${x >= y ? '+' : '−'}${Math.round((Math.abs(x - y) / y) * 100)}%`);
  const day = (ms: number) => new Date(ms).toLocaleDateString();
  return (
    <table className="data-table comparison" aria-label="Comparison">
      <thead>
        <tr>
          <th scope="col">Figure</th>
          <th scope="col">This period</th>
          <th scope="col">
            The period before ({day(before.start_ms)} – {day(before.end_ms - 1)})
          </th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">Cycles</th>
          <td>{n.cycles}</td>
          <td>{b.cycles}</td>
          <td>{rel(n.cycles, b.cycles)}</td>
        </tr>
        <tr>
          <th scope="row">Good</th>
          <td>{percent(n.good, n.cycles)}</td>
          <td>{percent(b.good, b.cycles)}</td>
          <td>{pts(share(n), share(b))}</td>
        </tr>
        <tr>
          <th scope="row">Average cycle time</th>
          <td>{seconds(n.avg_ms)}</td>
          <td>{seconds(b.avg_ms)}</td>
          <td>{diff(n.avg_ms, b.avg_ms)}</td>
        </tr>
        <tr>
          <th scope="row">Spread (standard deviation)</th>
          <td>{seconds(n.stddev_ms)}</td>
          <td>{seconds(b.stddev_ms)}</td>
          <td>{diff(n.stddev_ms, b.stddev_ms)}</td>
        </tr>
      </tbody>
    </table>
  );
}
