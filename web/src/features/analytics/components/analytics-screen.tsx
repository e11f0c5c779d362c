import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import { useDeviceStream } from '@/api/use-device-stream';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { StreamBadge } from '@/components/ui/stream-badge';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';

import { type Bucket, type StatsParams, addDays, cycleStatsQuery, dayOf, isoDay, startOfDay } from '../api/cycle-stats';
import { Distribution, Stations, Steps } from './analytics-breakdown';
import { DrillDown, Slowest } from './analytics-cycles';
import { Comparison, Summary } from './analytics-figures';
import { AnalyticsFilters, type Filter } from './analytics-filters';
import { type Span, Trend } from './analytics-trend';

// Still importable from the screen, where its tests find it.
export { drawnTrend } from './analytics-trend';

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
      <AnalyticsFilters
        from={from}
        to={to}
        task={task}
        device={device}
        filter={filter}
        compare={compare}
        bucket={bucket}
        stats={stats}
        onChange={set}
      />
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
