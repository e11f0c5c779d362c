import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { CycleStats, TimeBin } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { bucketLabel, distributionBars, trendCsv } from './api/cycle-stats';

const at = (d: number, h = 0) => new Date(2026, 10, d, h).getTime();
const empty = { cycles: 0, good: 0, bad: 0, avg_ms: null, stddev_ms: null, min_ms: null, max_ms: null, idle_ms: 0 };

const STATS: CycleStats = {
  start_ms: at(24),
  end_ms: at(26),
  bucket: 'day',
  total: { cycles: 3, good: 2, bad: 1, avg_ms: 42_000, stddev_ms: 2_000, min_ms: 40_000, max_ms: 45_000, idle_ms: 0 },
  stations: [
    { task: 4, task_name: 'Assemble pump', target_ms: null, device: 7, device_name: 'Bench 7', cycles: 3, good: 2, bad: 1, avg_ms: 42_000, stddev_ms: 2_000, min_ms: 40_000, max_ms: 45_000, idle_ms: 0 },
  ],
  steps: [
    { task: 4, step: 0, name: 'Fit housing', cycles: 3, avg_ms: 30_000, stddev_ms: 1_000 },
    { task: 4, step: 1, name: 'Check seal', cycles: 2, avg_ms: 12_500, stddev_ms: 500 },
  ],
  distribution: [
    { from_ms: 39_564, to_ms: 40_426, cycles: 1 },
    { from_ms: 44_840, to_ms: 45_817, cycles: 2 },
  ],
  trend: [
    { start_ms: at(24), ...empty },
    { start_ms: at(25), cycles: 3, good: 2, bad: 1, avg_ms: 42_000, stddev_ms: 2_000, min_ms: 40_000, max_ms: 45_000, idle_ms: 0 },
  ],
};

test('the figures, the trend table, the slowest step and a drill-down to the cycles of a period', async () => {
  signInAs('analytics_user', 1);
  const asked: URLSearchParams[] = [];
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), () => HttpResponse.json(STATS)),
    http.get(apiUrl('telemetry/fetch_cycles/v2'), ({ request }) => {
      asked.push(new URL(request.url).searchParams);
      return HttpResponse.json({ results: [], count: 0 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/analytics?from=2026-11-24&to=2026-11-25&task=4');
  expect(await screen.findByText('67% (2 good, 1 bad)')).toBeInTheDocument();
  expect(screen.getByText(/^Slowest step:/)).toHaveTextContent('Slowest step: Fit housing (30.0 s on average)');
  expect(tableRows(screen.getByRole('table', { name: 'Step times' }))).toEqual([
    ['Fit housing', '3', '30.0 s', '± 1.0 s'],
    ['Check seal', '2', '12.5 s', '± 0.5 s'],
  ]);
  expect(tableRows(screen.getByRole('table', { name: 'Trend table' }))).toEqual([
    ['11/24', '0', '0', '0', '—'],
    ['11/25', '3', '2', '1', '42.0 s'],
  ]);
  // An analytics user does not see devices: no stream, the figures are asked for now and then.
  expect(screen.queryByRole('status', { name: 'Live updates' })).toBeNull();
  // A period opens its cycles, with the screen's choices.
  await user.click(within(screen.getByRole('table', { name: 'Trend table' })).getByRole('button', { name: '11/25' }));
  expect(await screen.findByRole('heading', { name: 'Cycles of 11/25 (3)' })).toBeInTheDocument();
  await waitFor(() => expect(asked).toHaveLength(1));
  expect(asked[0]!.get('datetime_start')).toBe(new Date(at(25)).toISOString());
  expect(asked[0]!.get('datetime_end')).toBe(new Date(at(26)).toISOString());
  expect(asked[0]!.get('task')).toBe('4');
});

test('the CSV is the trend a row a period; bins merge into bars; periods are named', () => {
  expect(trendCsv(STATS).split('\n')).toEqual([
    'period_start,cycles,good,bad,avg_s,stddev_s,min_s,max_s',
    `${new Date(at(24)).toISOString()},0,0,0,,,,`,
    `${new Date(at(25)).toISOString()},3,2,1,42.000,2.000,40.000,45.000`,
    '',
  ]);
  const bins: TimeBin[] = Array.from({ length: 90 }, (_, i) => ({ from_ms: 1000 + i * 100, to_ms: 1100 + i * 100, cycles: 1 }));
  const bars = distributionBars(bins, 40);
  expect(bars).toHaveLength(30);
  expect(bars[0]).toEqual({ label: '1.0–1.3 s', cycles: 3 });
  expect(bars.reduce((n, b) => n + b.cycles, 0)).toBe(90);
  expect(distributionBars([{ from_ms: 5000, to_ms: null, cycles: 2 }], 40)).toEqual([{ label: '5.0–… s', cycles: 2 }]);
  expect(bucketLabel(at(25, 14), 'hour')).toBe('11/25 14:00');
  expect(bucketLabel(at(23), 'week')).toBe('week of 11/23');
  expect(bucketLabel(at(1), 'month')).toBe('2026-11');
});
