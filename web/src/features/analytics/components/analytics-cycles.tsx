/**
 * The cycles behind Analytics' figures, listed: those of picked trend buckets
 * (`DrillDown`) and the slowest 5% (`Slowest`).
 */
import { useQuery } from '@tanstack/react-query';

import type { CycleStats } from '@/api/generated';
import { RecentCycles } from '@/components/cycles/recent-cycles';
import { QueryStatus } from '@/components/ui/query-status';

import { type StatsParams, bucketLabel, seconds, slowestQuery } from '../api/cycle-stats';
import type { Span } from './analytics-trend';
import { CyclesPage } from './cycles-page';

/** The cycles behind trend buckets `span` ([`CyclesPage`]). */
export function DrillDown({
  org,
  stats,
  range,
  span,
  onClose,
}: {
  org: number;
  stats: CycleStats;
  range: StatsParams;
  span: Span;
  onClose: () => void;
}) {
  const point = stats.trend[span.from]!;
  const last = stats.trend[span.to - 1] ?? point;
  const start = new Date(Math.max(point.start_ms, range.start.getTime()));
  const end = new Date(Math.min(stats.trend[span.to]?.start_ms ?? range.end.getTime(), range.end.getTime()));
  const cycles = stats.trend.slice(span.from, span.to).reduce((n, p) => n + p.cycles, 0);
  const label =
    span.to - span.from > 1 ? `${bucketLabel(point.start_ms, stats.bucket)} – ${bucketLabel(last.start_ms, stats.bucket)}` : bucketLabel(point.start_ms, stats.bucket);
  const taskSteps: { [task: number]: string[] } = {};
  for (const st of stats.steps) (taskSteps[st.task] ??= [])[st.step] = st.name ?? `Step ${st.step + 1}`;
  const names = new Map(stats.stations.map((st) => [st.task, st.task_name ?? `Operation ${st.task}`]));
  return (
    <section aria-label={`Cycles of ${label}`} className="drill-down">
      <h3>
        Cycles of {label} ({cycles})
      </h3>
      <button type="button" className="secondary" onClick={onClose}>
        Close
      </button>
      <CyclesPage
        org={org}
        params={{ ...range, start, end }}
        label={`Cycles of ${label}`}
        taskSteps={taskSteps}
        taskName={(id) => (id === null ? '—' : (names.get(id) ?? `Operation ${id}`))}
      />
    </section>
  );
}

/** The slowest 5% of the cycles shown (`top_five_percentile`): the time they all took at
 * least, and the slowest of them. */
export function Slowest({ org, range, steps }: { org: number; range: StatsParams; steps: CycleStats }) {
  const q = useQuery(slowestQuery(org, range));
  const taskSteps: { [task: number]: string[] } = {};
  for (const st of steps.steps) (taskSteps[st.task] ??= [])[st.step] = st.name ?? `Step ${st.step + 1}`;
  const names = new Map(steps.stations.map((st) => [st.task, st.task_name ?? `Operation ${st.task}`]));
  return (
    <section aria-label="Slowest cycles">
      <h2>The slowest 5%</h2>
      <QueryStatus pending={q.isPending} error={q.error} what="The slowest cycles" />
      {q.data && q.data.threshold_ms !== null ? (
        <>
          <p>
            {q.data.count} of {q.data.cycles} cycles took {seconds(q.data.threshold_ms)} or longer; the slowest:
          </p>
          <RecentCycles
            label="Slowest cycles"
            cycles={q.data.results}
            taskSteps={taskSteps}
            taskName={(id) => (id === null ? '—' : (names.get(id) ?? `Operation ${id}`))}
          />
        </>
      ) : null}
    </section>
  );
}
