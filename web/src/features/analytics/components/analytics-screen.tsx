import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { CycleStats, TrendPoint } from '@/api/generated';
import { useDeviceStream } from '@/api/device-stream';
import { BarChart, LineChart } from '@/components/charts/charts';
import { palette } from '@/components/charts/palette';
import { RecentCycles } from '@/components/cycles/recent-cycles';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { StreamBadge } from '@/components/ui/stream-badge';
import { BucketChoice, CycleFilterChoice, DayRange } from '@/components/ui/range-fields';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';

import {
  type Bucket,
  type StatsParams,
  addDays,
  bucketLabel,
  cycleStatsQuery,
  dayOf,
  slowestQuery,
  distributionBars,
  isoDay,
  percent,
  seconds,
  startOfDay,
  trendCsv,
} from '../api/cycle-stats';
import { CyclesPage } from './cycles-page';

type Filter = NonNullable<StatsParams['cycleFilter']>;

/** Trend buckets `from` to `to` (exclusive), as drawn and picked. */
interface Span {
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


/**
 * `/user/analytics` (Analytics): the cycles of a range of days (the last 30 by default),
 * of one operation or device or all, all, good or bad ones (spec section 9's cycle
 * filter): their figures, good and bad cycles over time and the average cycle time
 * (hours, days, weeks or months), the cycle-time distribution, each step's average and
 * spread, and each station. A bar of the trend opens the cycles behind it; the trend
 * is exported as CSV, the same rows as its table. The choices live in the address, so
 * a view can be shared. Live, as the dashboard.
 */
export default function AnalyticsScreen() {
  const s = useSession();
  const org = s.organization;
  // The stream is for those who see devices; the others' figures are asked for every 10 s.
  const live = s.role !== null && can(s.role, 'ViewDevices');
  const stream = useDeviceStream(live ? org : null);
  const [params, setParams] = useSearchParams();
  const today = startOfDay(new Date());
  const from = params.get('from') ?? isoDay(addDays(today, -29));
  const to = params.get('to') ?? isoDay(today);
  const bucket = (params.get('bucket') ?? 'day') as Bucket;
  const filter = (params.get('filter') ?? 'all_cycles') as Filter;
  const num = (k: string) => (params.get(k) ? Number(params.get(k)) : undefined);
  const task = num('task');
  const device = num('device');
  const compare = params.get('compare') === 'previous';
  const [picked, setPicked] = useState<Span | null>(null);
  const set = (k: string, v: string | undefined) => {
    const next = new URLSearchParams(params);
    if (v === undefined || v === '') next.delete(k);
    else next.set(k, v);
    setParams(next, { replace: true });
    setPicked(null);
  };
  const range: StatsParams = {
    start: dayOf(from),
    end: addDays(dayOf(to), 1),
    bucket,
    task,
    device,
    cycleFilter: filter,
  };
  const badRange = !(range.end > range.start);
  const q = useQuery({
    ...cycleStatsQuery(org ?? 0, range),
    enabled: org !== null && !badRange,
    refetchInterval: live ? 30_000 : 10_000,
  });
  const stats = q.data;
  // The period just before, as long, for the comparison.
  const days = Math.round((range.end.getTime() - range.start.getTime()) / 86_400_000);
  const previous: StatsParams = { ...range, start: addDays(range.start, -days), end: range.start };
  const before = useQuery({
    ...cycleStatsQuery(org ?? 0, previous),
    enabled: org !== null && !badRange && compare,
    refetchInterval: live ? 30_000 : 10_000,
  });

  if (org === null) {
    return (
      <section>
        <h1>Analytics</h1>
        <EmptyState title="User is not assigned to any organization" />
      </section>
    );
  }
  return (
    <section>
      <ScreenHeader title="Analytics">{live ? <StreamBadge state={stream} /> : null}</ScreenHeader>
      <form className="filters" aria-label="Analytics filters" onSubmit={(e) => e.preventDefault()}>
        <DayRange from={from} to={to} onChange={set} />
        <IdChoice label="Operation" all="All operations" value={task} options={options(stats, 'task')} onChange={(v) => set('task', v)} />
        <IdChoice label="Device" all="All devices" value={device} options={options(stats, 'device')} onChange={(v) => set('device', v)} />
        <CycleFilterChoice value={filter} onChange={(f) => set('filter', f === 'all_cycles' ? undefined : f)} />
        <label>
          Compare with{' '}
          <select aria-label="Compare with" value={compare ? 'previous' : ''} onChange={(e) => set('compare', e.target.value)}>
            <option value="">Nothing</option>
            <option value="previous">The period before</option>
          </select>
        </label>
        <BucketChoice value={bucket} onChange={(b) => set('bucket', b === 'day' ? undefined : b)} />
      </form>
      {badRange ? <p role="alert">The end must come after the start.</p> : null}
      <QueryStatus pending={q.isPending && !badRange} error={q.error} what="Cycle figures" />
      {stats ? (
        <>
          {compare && before.data ? <Comparison now={stats} before={before.data} /> : <Summary stats={stats} />}
          <Trend stats={stats} picked={picked} onPick={setPicked} />
          {picked !== null && stats.trend[picked.from] ? (
            <DrillDown org={org} stats={stats} range={range} span={picked} onClose={() => setPicked(null)} />
          ) : null}
          <Distribution stats={stats} />
          <Steps stats={stats} />
          <Stations stats={stats} />
          <Slowest org={org} range={range} steps={stats} />
        </>
      ) : null}
    </section>
  );
}

/** One of some ids by name, or all of them (''). */
function IdChoice({
  label,
  all,
  value,
  options,
  onChange,
}: {
  label: string;
  all: string;
  value: number | undefined;
  options: [number, string][];
  onChange: (v: string) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">{all}</option>
        {options.map(([id, name]) => (
          <option key={id} value={id}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The operations or devices with cycles in the range, by name. */
function options(stats: CycleStats | undefined, what: 'task' | 'device'): [number, string][] {
  const m = new Map<number, string>();
  for (const st of stats?.stations ?? []) {
    if (what === 'task') m.set(st.task, st.task_name ?? `Operation ${st.task}`);
    else if (st.device !== null) m.set(st.device, st.device_name ?? `Device ${st.device}`);
  }
  return [...m].sort((a, b) => a[1].localeCompare(b[1]));
}

function Summary({ stats }: { stats: CycleStats }) {
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
function Comparison({ now, before }: { now: CycleStats; before: CycleStats }) {
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

/** The slowest 5% of the cycles shown (`top_five_percentile`): the time they all took at
 * least, and the slowest of them. */
function Slowest({ org, range, steps }: { org: number; range: StatsParams; steps: CycleStats }) {
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

/** Good and bad cycles per bucket (a bar opens its cycles) and the average cycle time;
 * the same rows as a table, and as CSV. */
function Trend({ stats, picked, onPick }: { stats: CycleStats; picked: Span | null; onPick: (s: Span) => void }) {
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
            { field: 'bad', name: 'Bad', stack: 'c', colour: palette.bad, onPick },
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

/** The cycles behind trend buckets `span` ([`CyclesPage`]). */
function DrillDown({
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

/** How long cycles took: the bins merged to at most 40 bars. */
function Distribution({ stats }: { stats: CycleStats }) {
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
function Steps({ stats }: { stats: CycleStats }) {
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

function Stations({ stats }: { stats: CycleStats }) {
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
