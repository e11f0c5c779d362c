/**
 * Cycle figures (`GET telemetry/cycle_stats`, ours: the spec names the dashboard and
 * Analytics but no call for their figures): a closed range's figures, each station's
 * and step's, the cycle-time distribution and a trend, computed by the server from
 * roll-ups. Ranges are the browser's days and weeks, sent as UTC instants with the
 * browser's offset so the trend's buckets are local days.
 *
 * The keys start with `cyclesKey`, so the device stream's `cycles` event asks again.
 */
import { queryOptions } from '@tanstack/react-query';

import type { CycleStats, Page, RecentCycle, Task, TimeBin, TopCycles, Trace } from '@/api/generated';
import { cyclesKey } from '@/api/device-stream';
import { api } from '@/lib/api-client';
import { addDays, startOfDay } from '@/lib/days';

export { addDays, dayOf, isoDay, startOfDay } from '@/lib/days';

export type Bucket = 'hour' | 'day' | 'week' | 'month';

export interface StatsParams {
  start: Date;
  end: Date;
  bucket: Bucket;
  task?: number;
  device?: number;
  cycleFilter?: 'all_cycles' | 'good_cycles' | 'bad_cycles';
  /** One issue's cycles (its key, `telemetry/issues`); lists only. */
  reason?: string;
}

/** Minutes east of UTC of the browser's time zone at `d`. */
export const utcOffsetMinutes = (d: Date) => -d.getTimezoneOffset();

/** The query string the call takes. */
export function statsQueryString(p: StatsParams): Record<string, string | number> {
  const q: Record<string, string | number> = {
    datetime_start: p.start.toISOString(),
    datetime_end: p.end.toISOString(),
    bucket: p.bucket,
    utc_offset_minutes: utcOffsetMinutes(p.start),
  };
  if (p.task !== undefined) q.task = p.task;
  if (p.device !== undefined) q.device = p.device;
  if (p.cycleFilter && p.cycleFilter !== 'all_cycles') q.cycle_filter = p.cycleFilter;
  return q;
}

export const cycleStatsQuery = (org: number, p: StatsParams) => {
  const query = statsQueryString(p);
  return queryOptions({
    queryKey: [...cyclesKey, 'stats', org, query],
    queryFn: () => api.get<CycleStats>('telemetry/cycle_stats', { query }),
    staleTime: 0,
    // The stream tells of new cycles at once; this covers a stream that dropped.
    refetchInterval: 30_000,
  });
};

/** Today, local: midnight to midnight. */
export function today(now: Date): { start: Date; end: Date } {
  const start = startOfDay(now);
  return { start, end: addDays(start, 1) };
}

/** This week, local, Monday to the Monday after. */
export function thisWeek(now: Date): { start: Date; end: Date } {
  const start = addDays(startOfDay(now), -((now.getDay() + 6) % 7));
  return { start, end: addDays(start, 7) };
}

export { seconds } from '@/lib/format';

/** A share as a whole percentage: "83%"; a dash for none. */
export const percent = (part: number, whole: number) =>
  whole > 0 ? `${Math.round((part / whole) * 100)}%` : '—';

/** The cycle filters of `p` as `fetch_cycles/v2` and `top_five_percentile` take them. */
function cycleQuery(p: StatsParams): Record<string, string | number> {
  const query: Record<string, string | number> = { datetime_start: p.start.toISOString(), datetime_end: p.end.toISOString() };
  if (p.task !== undefined) query.task = p.task;
  if (p.device !== undefined) query.device = p.device;
  if (p.cycleFilter && p.cycleFilter !== 'all_cycles') query.cycle_filter = p.cycleFilter;
  if (p.reason !== undefined) query.reason = p.reason;
  return query;
}

/** A page of the cycles `p` names, newest first (`telemetry/fetch_cycles/v2`). */
/**
 * A page of the cycles `p` names (`telemetry/fetch_cycles/v2`), or with `clips` each with
 * its video clip when it has one (`telemetry/trace/v2`); as traces either way.
 */
export const cyclesPageQuery = (org: number, p: StatsParams, page: number, clips = false) => {
  const query = { ...cycleQuery(p), page };
  return queryOptions({
    queryKey: [...cyclesKey, clips ? 'traces' : 'page', org, query],
    queryFn: async (): Promise<Page<Trace>> => {
      if (clips) return api.get<Page<Trace>>('telemetry/trace/v2', { query });
      const plain = await api.get<Page<RecentCycle>>('telemetry/fetch_cycles/v2', { query });
      return { count: plain.count, results: plain.results.map((cycle) => ({ cycle, clip: null })) };
    },
    staleTime: 0,
  });
};

/** The slowest 5% of the cycles `p` names, slowest first, the first page
 * (`telemetry/top_five_percentile`). */
export const slowestQuery = (org: number, p: StatsParams) => {
  const query = cycleQuery({ ...p, reason: undefined });
  return queryOptions({
    queryKey: [...cyclesKey, 'slowest', org, query],
    queryFn: () => api.get<TopCycles>('telemetry/top_five_percentile', { query }),
    staleTime: 0,
  });
};

/** The organisation's operations (names and steps, for the cycle lists). */
export const operationsQuery = () =>
  queryOptions({
    queryKey: ['tasks', 'names'],
    queryFn: () => api.get<Task[]>('organization/task/'),
  });

const two = (n: number) => String(n).padStart(2, '0');

/** A trend bucket's name in the browser's time zone: '11/25 14:00' an hour, '11/25' a
 * day or a week (its Monday), '2026-11' a month. */
export function bucketLabel(ms: number, bucket: string): string {
  const d = new Date(ms);
  const day = `${two(d.getMonth() + 1)}/${two(d.getDate())}`;
  switch (bucket) {
    case 'hour':
      return `${day} ${two(d.getHours())}:00`;
    case 'month':
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}`;
    case 'week':
      return `week of ${day}`;
    default:
      return day;
  }
}

/** Seconds for a CSV cell: three decimals, empty for none. */
const csvSeconds = (ms: number | null) => (ms === null ? '' : (ms / 1000).toFixed(3));

/** The trend as CSV: a header, then a row a bucket (its start in ISO 8601, UTC). */
export function trendCsv(stats: CycleStats): string {
  const rows = [['period_start', 'cycles', 'good', 'bad', 'avg_s', 'stddev_s', 'min_s', 'max_s']];
  for (const p of stats.trend) {
    rows.push([
      new Date(p.start_ms).toISOString(),
      String(p.cycles),
      String(p.good),
      String(p.bad),
      csvSeconds(p.avg_ms),
      csvSeconds(p.stddev_ms),
      csvSeconds(p.min_ms),
      csvSeconds(p.max_ms),
    ]);
  }
  return `${rows.map((r) => r.join(',')).join('\n')}\n`;
}

/** The distribution's bins merged, in order, into at most `most` bars named by their
 * range in seconds. */
export function distributionBars(bins: readonly TimeBin[], most: number): { label: string; cycles: number }[] {
  const per = Math.max(1, Math.ceil(bins.length / most));
  const bars: { label: string; cycles: number }[] = [];
  for (let i = 0; i < bins.length; i += per) {
    const group = bins.slice(i, i + per);
    const from = group[0]!.from_ms;
    const to = group[group.length - 1]!.to_ms;
    bars.push({
      label: `${(from / 1000).toFixed(1)}–${to === null ? '…' : (to / 1000).toFixed(1)} s`,
      cycles: group.reduce((n, b) => n + b.cycles, 0),
    });
  }
  return bars;
}
