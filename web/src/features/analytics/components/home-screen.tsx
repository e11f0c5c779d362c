import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';

import type { CycleFigures, CycleStats, StationFigures } from '@/api/generated';
import { useDeviceStream } from '@/api/use-device-stream';
import { AgainstTarget } from '@/components/ui/against-target';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { StreamBadge } from '@/components/ui/stream-badge';
import { WallDisplayLink } from '@/components/ui/wall-display-link';
import { isoDay } from '@/lib/days';
import { useSession } from '@/lib/session';
import { WALL_REFRESH_MS, useWallClock, useWallDisplay } from '@/lib/wall-display';

import { percent, seconds } from '../api/cycle-stats';
import { FRESH_MS, dashboardQueries } from '../api/dashboard';
import { TodayChart } from './today-chart';

/**
 * `/user/home` (the dashboard): today's and this week's cycles of the organisation,
 * the good share, the average cycle time against the operation's target, today hour by
 * hour, and each station (an operation on a device) this week. Live: the device stream
 * tells of new cycles and the figures are asked for again at once. As a wall display
 * (`?display=wall`) it is also read again every `WALL_REFRESH_MS`, and its day follows
 * the clock. Its layout (the cards, the chart's frame, the table with its header) is
 * drawn at once, the figures filling it in when they come, so nothing moves.
 */
export default function HomeScreen() {
  const s = useSession();
  const org = s.organization;
  const stream = useDeviceStream(org);
  const wall = useWallDisplay();
  // The day and week are fixed while the screen is open past midnight (a reload moves
  // them); a wall display's follow the clock.
  const clock = useWallClock(wall);
  const dayKey = isoDay(clock);
  const queries = useMemo(() => dashboardQueries(org ?? 0, new Date(`${dayKey}T12:00:00`)), [org, dayKey]);
  const on = org !== null;
  const refetchInterval = wall ? WALL_REFRESH_MS : false;
  const dayQ = useQuery({ ...queries.day, enabled: on, refetchInterval, staleTime: FRESH_MS });
  const weekQ = useQuery({ ...queries.week, enabled: on, refetchInterval, staleTime: FRESH_MS });

  if (org === null) {
    return (
      <section>
        <h1>Dashboard</h1>
        <EmptyState title="User is not assigned to any organization" />
      </section>
    );
  }
  // One target when every cycle this week is of one operation.
  const weekStations = weekQ.data?.stations ?? [];
  const target = new Set(weekStations.map((st) => st.task)).size === 1 ? (weekStations[0]?.target_ms ?? null) : null;

  return (
    <section>
      <ScreenHeader title="Dashboard">
        <StreamBadge state={stream} />
        <WallDisplayLink />
      </ScreenHeader>
      {/* No "Loading…" line: the cards show "…" meanwhile, and nothing moves when the figures come. */}
      <QueryStatus pending={false} error={dayQ.error ?? weekQ.error} what="Cycle figures" />
      <div className="figure-cards">
        <PeriodCard title="Today" figures={dayQ.data?.total} target={target} />
        <PeriodCard title="This week" figures={weekQ.data?.total} target={target} />
      </div>
      <ChartFrame stats={dayQ.data} height={wall ? 360 : 220} />
      <h2>Stations this week</h2>
      {weekQ.data && weekQ.data.stations.length === 0 ? (
        <EmptyState title="No cycles this week yet.">
          <p>Cycles appear here as the devices send them.</p>
        </EmptyState>
      ) : (
        <Stations week={weekQ.data ? weekStations : null} day={dayQ.data?.stations ?? []} />
      )}
    </section>
  );
}

/** A period's figures: cycles, good share, average cycle time against the target. */
function PeriodCard({ title, figures, target }: { title: string; figures?: CycleFigures; target: number | null }) {
  const f = figures;
  return (
    <article className="figure-card" aria-label={title}>
      <h2>{title}</h2>
      <dl>
        <dt>Cycles</dt>
        <dd data-testid={`${title}-cycles`}>{f ? f.cycles : '…'}</dd>
        <dt>Good</dt>
        <dd>{f ? `${percent(f.good, f.cycles)} (${f.good} good, ${f.bad} bad)` : '…'}</dd>
        <dt>Average cycle time</dt>
        <dd>
          {f ? seconds(f.avg_ms) : '…'}
          {target !== null && f?.avg_ms != null ? <AgainstTarget avg={f.avg_ms} target={target} /> : null}
        </dd>
      </dl>
    </article>
  );
}

/** Today hour by hour, its frame (axes, grid, legend) drawn at its size at once; the bars
 * come with the figures. */
function ChartFrame({ stats, height }: { stats: CycleStats | undefined; height: number }) {
  return (
    <figure className="chart" aria-label="Cycles today by hour">
      <figcaption>Cycles today by hour</figcaption>
      <TodayChart stats={stats} height={height} />
    </figure>
  );
}

const COLUMNS = ['Device', 'Operation', 'Today', 'This week', 'Good', 'Average cycle time', 'Target'];

/** Each station this week, with today's cycles beside; before the week's figures
 * (`week` null), the table's frame with a row of "…". */
function Stations({ week, day }: { week: StationFigures[] | null; day: StationFigures[] }) {
  return (
    <table className="data-table" aria-label="Stations" aria-busy={week === null}>
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {week === null ? (
          <tr>
            {COLUMNS.map((c) => (
              <td key={c}>…</td>
            ))}
          </tr>
        ) : null}
        {(week ?? []).map((st) => {
          const target = st.target_ms;
          const d = day.find((x) => x.task === st.task && x.device === st.device);
          return (
            <tr key={`${st.task}-${st.device ?? 0}`}>
              <td>{st.device_name ?? 'Deleted device'}</td>
              <td>{st.task_name ?? `Operation ${st.task}`}</td>
              <td>{d?.cycles ?? 0}</td>
              <td>{st.cycles}</td>
              <td>{percent(st.good, st.cycles)}</td>
              <td>
                {seconds(st.avg_ms)}
                {target !== null && st.avg_ms !== null ? <AgainstTarget avg={st.avg_ms} target={target} /> : null}
              </td>
              <td>{seconds(target)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
