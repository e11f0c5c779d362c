import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';

import type { CycleFigures, CycleStats, StationFigures } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';
import { WALL_REFRESH_MS } from '@/lib/wall-display';
import { advance, fakeClock } from '@/testing/clock';
import { fakeStream } from '@/testing/stream';

import { createQueryClient } from '@/lib/query-client';
import { NO_HOSTS } from '@/lib/site';

import { statsQueryString, thisWeek, today } from './api/cycle-stats';
import { dashboardQueries, prefetchDashboard } from './api/dashboard';

/** Figures of `good` good and `bad` bad cycles averaging `avg` s. */
const figures = (good: number, bad: number, avg: number): CycleFigures => ({
  cycles: good + bad,
  good,
  bad,
  avg_ms: good + bad > 0 ? avg * 1000 : null,
  stddev_ms: good + bad > 0 ? 1000 : null,
  min_ms: null,
  max_ms: null,
  idle_ms: 0,
});

/** Operation 4, Assemble pump, has a 40 s target; 5, Check valve, none. Device 7 is Bench 7. */
const station = (task: number, device: number | null, f: CycleFigures): StationFigures => ({
  task,
  task_name: task === 4 ? 'Assemble pump' : 'Check valve',
  target_ms: task === 4 ? 40_000 : null,
  device,
  device_name: device === 7 ? 'Bench 7' : null,
  ...f,
});

function stats(total: CycleFigures, stations: StationFigures[], trend = 24): CycleStats {
  return {
    start_ms: 0,
    end_ms: 1,
    bucket: 'hour',
    total,
    stations,
    steps: [],
    distribution: [],
    trend: Array.from({ length: trend }, (_, h) => ({ start_ms: new Date(2026, 10, 25, h).getTime(), ...figures(0, 0, 0) })),
  };
}

/** The server: today's figures (hour buckets) then this week's (day buckets), from `now()`. */
function analyticsApi(now: () => { day: CycleStats; week: CycleStats }) {
  return [
    http.get(apiUrl('telemetry/cycle_stats'), ({ request }) => {
      const bucket = new URL(request.url).searchParams.get('bucket');
      return HttpResponse.json(bucket === 'hour' ? now().day : now().week);
    }),
  ];
}

test("the dashboard shows today's and this week's cycles against the target, and asks again when the stream tells of new cycles", async () => {
  signInAs('org_user', 1);
  let figuresNow = {
    day: stats(figures(2, 1, 44), [station(4, 7, figures(2, 1, 44))]),
    week: stats(figures(9, 1, 38), [station(4, 7, figures(8, 1, 38)), station(5, null, figures(1, 0, 20))], 7),
  };
  server.use(...analyticsApi(() => figuresNow));
  const conns = fakeStream(() => ({ event: 'devices', data: [] }));
  renderApp('/user/home');

  const todayCard = await screen.findByRole('article', { name: 'Today' });
  await waitFor(() => expect(within(todayCard).getByTestId('Today-cycles')).toHaveTextContent('3'));
  expect(todayCard).toHaveTextContent('67% (2 good, 1 bad)');
  // Two operations this week: no single target for the whole.
  expect(todayCard).not.toHaveTextContent('target');
  const week = screen.getByRole('article', { name: 'This week' });
  expect(week).toHaveTextContent('90% (9 good, 1 bad)');
  const table = screen.getByRole('table', { name: 'Stations' });
  expect(tableRows(table)).toEqual([
    ['Bench 7', 'Assemble pump', '3', '9', '89%', '38.0 s at or under target (40.0 s)', '40.0 s'],
    ['Deleted device', 'Check valve', '0', '1', '100%', '20.0 s', '—'],
  ]);
  expect(within(table).getByText(/at or under target/)).toHaveClass('marker-green');
  expect(screen.getByRole('figure', { name: 'Cycles today by hour' })).toBeInTheDocument();

  // New cycles: the stream says so and the figures are asked for again, not reloaded.
  await waitFor(() => expect(conns[0]?.received).toEqual([{ event: 'subscribe', data: {} }]));
  figuresNow = {
    day: stats(figures(2, 2, 45), [station(4, 7, figures(2, 2, 45))]),
    week: stats(figures(10, 2, 45), [station(4, 7, figures(10, 2, 45))], 7),
  };
  conns[0]!.send({ event: 'cycles', data: { id: 7 } });
  await waitFor(() => expect(within(todayCard).getByTestId('Today-cycles')).toHaveTextContent('4'));
  // One operation now: its target stands for the whole; 45 s is 13% over 40 s.
  await waitFor(() => expect(todayCard).toHaveTextContent('45.0 s 13% over target (40.0 s)'));
  expect(within(todayCard).getByText(/over target/)).toHaveClass('marker-red');
  expect(tableRows(screen.getByRole('table', { name: 'Stations' }))).toEqual([
    ['Bench 7', 'Assemble pump', '4', '12', '83%', '45.0 s 13% over target (40.0 s)', '40.0 s'],
  ]);
});

test('the layout is drawn before the figures come, and each figure is asked for once', async () => {
  signInAs('org_user', 1);
  let answer = () => {};
  const answered = new Promise<void>((r) => (answer = r));
  const asked: string[] = [];
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), async ({ request }) => {
      const bucket = new URL(request.url).searchParams.get('bucket') ?? '';
      asked.push(bucket);
      await answered;
      return HttpResponse.json(bucket === 'hour' ? stats(figures(2, 1, 44), [station(4, 7, figures(2, 1, 44))]) : stats(figures(9, 1, 38), [station(4, 7, figures(9, 1, 38))], 7));
    }),
  );
  fakeStream(() => ({ event: 'devices', data: [] }));
  renderApp('/user/home');

  // Before any figure: the cards, the chart's frame and the table with its header.
  const table = await screen.findByRole('table', { name: 'Stations' });
  expect(table).toHaveAttribute('aria-busy', 'true');
  expect(within(table).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['Device', 'Operation', 'Today', 'This week', 'Good', 'Average cycle time', 'Target']);
  expect(tableRows(table)).toEqual([['…', '…', '…', '…', '…', '…', '…']]);
  expect(within(screen.getByRole('article', { name: 'Today' })).getByTestId('Today-cycles')).toHaveTextContent('…');
  expect(screen.getByRole('figure', { name: 'Cycles today by hour' })).toBeInTheDocument();

  answer();
  await waitFor(() => expect(tableRows(screen.getByRole('table', { name: 'Stations' }))[0]?.[0]).toBe('Bench 7'));
  expect(screen.getByRole('table', { name: 'Stations' })).toHaveAttribute('aria-busy', 'false');
  // The route's loader asked; the screen took over its calls instead of asking again.
  expect(asked.sort()).toEqual(['day', 'hour']);
});

test("the route's loader starts the figures' calls only for a session the guard lets in", () => {
  const now = new Date(2026, 10, 25, 15, 20);
  const cached = (client: ReturnType<typeof createQueryClient>) => client.getQueryCache().getAll().map((q) => q.queryKey);
  server.use(http.get(apiUrl('telemetry/cycle_stats'), () => HttpResponse.json(stats(figures(0, 0, 0), []))));

  const signedOut = createQueryClient();
  prefetchDashboard(signedOut, NO_HOSTS.site, now);
  expect(cached(signedOut)).toEqual([]);

  // A labeler may not open the Dashboard.
  signInAs('labeler', 1);
  const labeler = createQueryClient();
  prefetchDashboard(labeler, NO_HOSTS.site, now);
  expect(cached(labeler)).toEqual([]);

  signInAs('org_user', 3);
  const client = createQueryClient();
  prefetchDashboard(client, NO_HOSTS.site, now);
  const q = dashboardQueries(3, now);
  expect(cached(client)).toEqual([q.day.queryKey, q.week.queryKey]);
});

test('a week without cycles says so', async () => {
  signInAs('org_user', 1);
  server.use(...analyticsApi(() => ({ day: stats(figures(0, 0, 0), []), week: stats(figures(0, 0, 0), [], 7) })));
  fakeStream(() => ({ event: 'devices', data: [] }));
  renderApp('/user/home');
  expect(await screen.findByText('No cycles this week yet.')).toBeInTheDocument();
  await waitFor(() => expect(within(screen.getByRole('article', { name: 'Today' })).getByTestId('Today-cycles')).toHaveTextContent('0'));
  expect(screen.getByRole('article', { name: 'Today' })).toHaveTextContent('Average cycle time—');
});

test("today and this week are the browser's, sent as instants with its offset", () => {
  // Wednesday 2026-11-25, 15:20 local.
  const now = new Date(2026, 10, 25, 15, 20);
  const d = today(now);
  expect(d.start).toEqual(new Date(2026, 10, 25));
  expect(d.end).toEqual(new Date(2026, 10, 26));
  const w = thisWeek(now);
  expect(w.start).toEqual(new Date(2026, 10, 23));
  expect(w.end).toEqual(new Date(2026, 10, 30));
  // A Sunday belongs to the week that began the Monday before.
  expect(thisWeek(new Date(2026, 10, 29, 23)).start).toEqual(new Date(2026, 10, 23));
  expect(statsQueryString({ ...d, bucket: 'hour', task: 4, cycleFilter: 'bad_cycles' })).toEqual({
    datetime_start: d.start.toISOString(),
    datetime_end: d.end.toISOString(),
    bucket: 'hour',
    utc_offset_minutes: -d.start.getTimezoneOffset(),
    task: 4,
    cycle_filter: 'bad_cycles',
  });
});

test('as a wall display the dashboard shows alone, large, and reads its figures again on its own', async () => {
  const user = fakeClock();
  signInAs('org_user', 1);
  let calls = 0;
  let cycles = 3;
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), ({ request }) => {
      calls += 1;
      const hours = new URL(request.url).searchParams.get('bucket') === 'hour';
      return HttpResponse.json(hours ? stats(figures(cycles, 0, 40), []) : stats(figures(cycles, 0, 40), [], 7));
    }),
  );
  fakeStream(() => ({ event: 'devices', data: [] }));
  const { router } = renderApp('/user/home?display=wall');
  const todayCard = await screen.findByRole('article', { name: 'Today' });
  await waitFor(() => expect(within(todayCard).getByTestId('Today-cycles')).toHaveTextContent('3'));
  // No chrome: neither the header nor the sidebar.
  expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
  expect(screen.queryByRole('banner')).toBeNull();
  expect(document.querySelector('.app-layout')).toHaveClass('wall');
  const before = calls;

  // Nothing from the stream: the figures are read again all the same.
  cycles = 5;
  advance(WALL_REFRESH_MS);
  await waitFor(() => expect(within(todayCard).getByTestId('Today-cycles')).toHaveTextContent('5'));
  expect(calls).toBeGreaterThanOrEqual(before + 2);

  // Out of it, the screen has its chrome and its way back in.
  await user.click(screen.getByRole('link', { name: 'Leave wall display' }));
  expect(router.state.location.search).toBe('');
  expect(await screen.findByRole('navigation', { name: 'Main' })).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Wall display' })).toHaveAttribute('href', '/user/home?display=wall');
});
