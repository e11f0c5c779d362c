/**
 * Analytics' trend: good and bad cycles and the average cycle time per bucket, drawn
 * (merged to at most `MAX_DRAWN`), as a table and as CSV; a bar or a row picks a span.
 */
import { useState } from 'react';

import type { CycleStats, TrendPoint } from '@/api/generated';
import { BarChart, LineChart } from '@/components/charts/charts';
import { palette } from '@/components/charts/palette';

import { bucketLabel, seconds, trendCsv } from '../api/cycle-stats';

/** Trend buckets `from` to `to` (exclusive), as drawn and picked. */
export interface Span {
  from: number;
  to: number;
}

/**
 * The most bars (and line points) a trend chart draws: a chart is about 900 px wide,
 * and drawing 2,000 points took the page past its 1 s render target (bench/render.sh);
 * more buckets are merged, neighbours summed, to at most this many.
 */
const MAX_DRAWN = 500;

/** The trend as drawn: runs of neighbouring buckets merged so there are at most `most`,
 * each with its cycles summed and its mean cycle time weighted by cycles. */
export function drawnTrend(stats: CycleStats, most: number) {
  const n = stats.trend.length;
  const per = Math.max(1, Math.ceil(n / most));
  const out: (Span & { label: string; good: number; bad: number; avg: number | null })[] = [];
  for (let from = 0; from < n; from += per) {
    const part = stats.trend.slice(from, from + per);
    const cycles = part.reduce((k, p) => k + p.cycles, 0);
    const sum = part.reduce((k, p) => k + (p.avg_ms ?? 0) * p.cycles, 0);
    out.push({
      from,
      to: from + part.length,
      label: bucketLabel(part[0]!.start_ms, stats.bucket),
      good: part.reduce((k, p) => k + p.good, 0),
      bad: part.reduce((k, p) => k + p.bad, 0),
      avg: cycles > 0 ? sum / cycles / 1000 : null,
    });
  }
  return out;
}

/** Good and bad cycles per bucket (a bar opens its cycles) and the average cycle time;
 * the same rows as a table, and as CSV. */
export function Trend({ stats, picked, onPick }: { stats: CycleStats; picked: Span | null; onPick: (s: Span) => void }) {
  const rows = drawnTrend(stats, MAX_DRAWN);
  const csv = trendCsv(stats);
  const [tableOpen, setTableOpen] = useState(false);
  return (
    <section aria-label="Trend">
      <h2>Cycles over time</h2>
      <figure className="chart wide" aria-label="Good and bad cycles over time">
        <BarChart
          data={rows}
          height={240}
          x="label"
          xMinGap={16}
          yIntegers
          legend
          series={[
            { field: 'good', name: 'Good', stack: 'c', colour: palette.good, onPick },
            { field: 'bad', name: 'Bad', stack: 'c', colour: palette.bad, hatched: true, onPick },
          ]}
        />
      </figure>
      <figure className="chart wide" aria-label="Average cycle time over time">
        <LineChart
          data={rows}
          height={200}
          x="label"
          xMinGap={16}
          yUnit=" s"
          series={[{ field: 'avg', name: 'Average cycle time (s)', colour: palette.primary }]}
        />
      </figure>
      {/* Drawn once opened: 2,000 rows cost the page a fifth of its render time. */}
      <details open={tableOpen} onToggle={(e) => setTableOpen(e.currentTarget.open)}>
        <summary>The trend as a table</summary>
        {tableOpen ? <TrendTable stats={stats} picked={picked} onPick={onPick} /> : null}
      </details>
      <a
        className="button secondary"
        download={`cycles-${stats.bucket}.csv`}
        href={`data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`}
      >
        Export CSV
      </a>
    </section>
  );
}

function TrendTable({ stats, picked, onPick }: { stats: CycleStats; picked: Span | null; onPick: (s: Span) => void }) {
  return (
    <table className="data-table" aria-label="Trend table">
      <thead>
        <tr>
          <th>Period</th>
          <th>Cycles</th>
          <th>Good</th>
          <th>Bad</th>
          <th>Average</th>
        </tr>
      </thead>
      <tbody>
        {stats.trend.map((p: TrendPoint, i) => (
          <tr key={p.start_ms} aria-selected={picked?.from === i && picked.to === i + 1}>
            <td>
              <button type="button" className="link-button" onClick={() => onPick({ from: i, to: i + 1 })}>
                {bucketLabel(p.start_ms, stats.bucket)}
              </button>
            </td>
            <td>{p.cycles}</td>
            <td>{p.good}</td>
            <td>{p.bad}</td>
            <td>{seconds(p.avg_ms)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
