import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import type { LineStats } from '@/api/generated';
import { BarChart } from '@/components/charts/charts';
import { palette } from '@/components/charts/palette';
import { AgainstTarget } from '@/components/ui/against-target';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { DayRange } from '@/components/ui/range-fields';
import { WallDisplayLink } from '@/components/ui/wall-display-link';
import { addDays, dayOf, isoDay, startOfDay } from '@/lib/days';
import { seconds } from '@/lib/format';
import { useWallClock, useWallDisplay } from '@/lib/wall-display';

import { lineStatsQuery, linesQuery, stationText } from '../api/lines';


/**
 * `/user/line-analytics` (Line Analytics): a line's stations over a range of days (the
 * last 7 by default): the parts it finished (the last station's good cycles), its pace
 * (parts an hour at the bottleneck's mean cycle time), the balance of the work (1 when spread evenly), the bottleneck (the slowest
 * station), and a balance chart of each station's mean cycle time against the takt
 * time. The line and the days live in the address. As a wall display (`?display=wall`)
 * the filters step aside and the default days follow the clock (the figures are read
 * again every 30 s either way).
 */
export default function LineAnalyticsScreen() {
  const [params, setParams] = useSearchParams();
  const lines = useQuery(linesQuery());
  const wall = useWallDisplay();
  const today = startOfDay(useWallClock(wall));
  const from = params.get('from') ?? isoDay(addDays(today, -6));
  const to = params.get('to') ?? isoDay(today);
  const chosen = Number(params.get('line')) || lines.data?.[0]?.id || null;
  const start = dayOf(from);
  const end = addDays(dayOf(to), 1);
  const badRange = !(end > start);
  const q = useQuery({ ...lineStatsQuery(chosen ?? 0, start, end), enabled: chosen !== null && !badRange });
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    next.set(k, v);
    setParams(next, { replace: true });
  };
  return (
    <section>
      <ScreenHeader title="Line Analytics">
        <WallDisplayLink />
      </ScreenHeader>
      <QueryStatus pending={lines.isPending} error={lines.error} what="Lines" />
      {lines.data && lines.data.length === 0 ? <EmptyState title="No lines yet: define one on Line." /> : null}
      {lines.data && lines.data.length > 0 && !wall ? (
        <form className="filters" aria-label="Line filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Line{' '}
            <select aria-label="Line" value={chosen ?? ''} onChange={(e) => set('line', e.target.value)}>
              {lines.data.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
          </label>
          <DayRange from={from} to={to} onChange={set} />
        </form>
      ) : null}
      {badRange ? <p role="alert">The end must come after the start.</p> : null}
      {chosen !== null ? <QueryStatus pending={q.isPending && !badRange} error={q.error} what="Line figures" /> : null}
      {wall && chosen !== null ? (
        <p className="muted">
          {lines.data?.find((l) => l.id === chosen)?.name} · {from} to {to}
        </p>
      ) : null}
      {q.data ? <Figures stats={q.data} chartHeight={wall ? 400 : 260} /> : null}
    </section>
  );
}

function Figures({ stats, chartHeight }: { stats: LineStats; chartHeight: number }) {
  const takt = stats.takt_time_s === null ? null : stats.takt_time_s * 1000;
  const slowest = stats.bottleneck === null ? null : stats.stations[stats.bottleneck];
  const bars = stats.stations.map((s) => ({
    name: `${s.position + 1}. ${s.device_name ?? `Device ${s.device}`}`,
    seconds: s.figures.avg_ms === null ? 0 : s.figures.avg_ms / 1000,
    bottleneck: s.position === stats.bottleneck,
  }));
  return (
    <>
      <dl className="summary" aria-label="Line figures">
        <dt>Parts finished</dt>
        <dd>{stats.output}</dd>
        <dt>Pace (parts an hour at the bottleneck)</dt>
        <dd>{stats.capacity_per_hour === null ? '—' : stats.capacity_per_hour.toFixed(1)}</dd>
        <dt>Balance</dt>
        <dd>{stats.balance === null ? '—' : `${Math.round(stats.balance * 100)}%`}</dd>
        <dt>Bottleneck</dt>
        <dd>{slowest ? `${stationText(slowest)} (${seconds(slowest.figures.avg_ms)})` : '—'}</dd>
        <dt>Takt time</dt>
        <dd>{takt === null ? '—' : seconds(takt)}</dd>
      </dl>
      <figure className="chart wide" aria-label="Station cycle times against takt time">
        <BarChart
          data={bars}
          height={chartHeight}
          x="name"
          yUnit=" s"
          tooltipValue={(v) => `${v.toFixed(1)} s`}
          series={[
            {
              field: 'seconds',
              name: 'Mean cycle time',
              colour: palette.primary,
              colourOf: (b) => (b.bottleneck ? palette.bad : palette.primary),
              hatched: (b) => b.bottleneck,
            },
          ]}
          target={takt !== null ? { y: takt / 1000, label: 'Takt', colour: palette.good } : undefined}
        />
      </figure>
      <table className="data-table" aria-label="Stations">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Station</th>
            <th scope="col">Cycles</th>
            <th scope="col">Good</th>
            <th scope="col">Mean cycle time</th>
            <th scope="col">Spread</th>
          </tr>
        </thead>
        <tbody>
          {stats.stations.map((s) => (
            <tr key={s.position} className={s.position === stats.bottleneck ? 'bottleneck' : undefined}>
              <td>{s.position + 1}</td>
              <td>
                {stationText(s)}
                {s.position === stats.bottleneck ? <span className="badge status-bad"> bottleneck</span> : null}
              </td>
              <td>{s.figures.cycles}</td>
              <td>{s.figures.good}</td>
              <td>
                {seconds(s.figures.avg_ms)}
                {takt !== null && s.figures.avg_ms !== null ? <AgainstTarget avg={s.figures.avg_ms} target={takt} /> : null}
              </td>
              <td>{s.figures.stddev_ms === null ? '—' : `± ${seconds(s.figures.stddev_ms)}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
