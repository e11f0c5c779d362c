/**
 * Where Analytics' cycle time goes and who made the cycles: the cycle-time
 * distribution, each step's average and spread, and each station's figures.
 */
import type { CycleStats } from '@/api/generated';
import { BarChart } from '@/components/charts/charts';
import { palette } from '@/components/charts/palette';
import { EmptyState } from '@/components/ui/empty-state';

import { distributionBars, percent, seconds } from '../api/cycle-stats';

/** How long cycles took: the bins merged to at most 40 bars. */
export function Distribution({ stats }: { stats: CycleStats }) {
  const bars = distributionBars(stats.distribution, 40);
  if (bars.length === 0) return null;
  return (
    <section aria-label="Distribution">
      <h2>Cycle times</h2>
      <figure className="chart wide" aria-label="Cycle-time distribution">
        <BarChart
          data={bars}
          height={220}
          x="label"
          xMinGap={16}
          yIntegers
          series={[{ field: 'cycles', name: 'Cycles', colour: palette.primary }]}
        />
      </figure>
    </section>
  );
}

/** Each step's average time with its spread: where the time goes, and the bottleneck. */
export function Steps({ stats }: { stats: CycleStats }) {
  if (stats.steps.length === 0) return null;
  const many = new Set(stats.steps.map((s) => s.task)).size > 1;
  const names = new Map(stats.stations.map((st) => [st.task, st.task_name ?? `Operation ${st.task}`]));
  const rows = stats.steps.map((s) => ({
    label: `${many ? `${names.get(s.task) ?? s.task}: ` : ''}${s.name ?? `Step ${s.step + 1}`}`,
    avg: s.avg_ms / 1000,
    spread: s.stddev_ms / 1000,
    cycles: s.cycles,
  }));
  const slowest = rows.reduce((a, b) => (b.avg > a.avg ? b : a), rows[0]!);
  return (
    <section aria-label="Steps">
      <h2>Steps</h2>
      <p>
        Slowest step: <strong>{slowest.label}</strong> ({slowest.avg.toFixed(1)} s on average)
      </p>
      <figure className="chart wide" aria-label="Average step times">
        <BarChart
          data={rows}
          height={220}
          x="label"
          yUnit=" s"
          series={[{ field: 'avg', name: 'Average (s)', colour: palette.secondary, spread: 'spread' }]}
        />
      </figure>
      <table className="data-table" aria-label="Step times">
        <thead>
          <tr>
            <th>Step</th>
            <th>Cycles</th>
            <th>Average</th>
            <th>Spread</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label}>
              <td>{r.label}</td>
              <td>{r.cycles}</td>
              <td>{r.avg.toFixed(1)} s</td>
              <td>± {r.spread.toFixed(1)} s</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Stations({ stats }: { stats: CycleStats }) {
  if (stats.stations.length === 0) return <EmptyState title="No cycles in this range." />;
  return (
    <section aria-label="Stations">
      <h2>Stations</h2>
      <table className="data-table" aria-label="Station figures">
        <thead>
          <tr>
            <th>Device</th>
            <th>Operation</th>
            <th>Cycles</th>
            <th>Good</th>
            <th>Average</th>
            <th>Spread</th>
          </tr>
        </thead>
        <tbody>
          {stats.stations.map((st) => (
            <tr key={`${st.task}-${st.device ?? 0}`}>
              <td>{st.device_name ?? 'Deleted device'}</td>
              <td>{st.task_name ?? `Operation ${st.task}`}</td>
              <td>{st.cycles}</td>
              <td>{percent(st.good, st.cycles)}</td>
              <td>{seconds(st.avg_ms)}</td>
              <td>{seconds(st.stddev_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
