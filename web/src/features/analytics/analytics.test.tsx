import { act, screen, waitFor, within } from '@testing-library/react';
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
  // The table is drawn once opened.
  expect(screen.queryByRole('table', { name: 'Trend table' })).toBeNull();
  await user.click(screen.getByText('The trend as a table'));
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

const CYCLE = {
  id: 'c-1',
  task: 4,
  device: 7,
  camera: 'cam0',
  start_ms: at(25, 9),
  end_ms: at(25, 9) + 42_000,
  idle_ms: 0,
  good: true,
  reasons: [],
  segments: [{ step: 0, start_ms: at(25, 9), end_ms: at(25, 9) + 30_000 }],
};

test('an engineer opens a cycle of a period, sees its history and marks it bad with a reason; the figures are asked again', async () => {
  signInAs('org_user', 1);
  let stats = 0;
  const patched: unknown[] = [];
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), () => {
      stats += 1;
      return HttpResponse.json(STATS);
    }),
    http.get(apiUrl('telemetry/fetch_cycles/v2'), () => HttpResponse.json({ results: [CYCLE], count: 1 })),
    http.get(apiUrl('telemetry/trace/trace_single_cycle_details/'), ({ request }) => {
      expect(new URL(request.url).searchParams.get('cycle_id')).toBe('c-1');
      return HttpResponse.json({
        cycle: CYCLE,
        archived_at_ms: null,
        history: [{ id: 1, at_ms: at(25, 10), change: 'good', reason: 'Seen on the video', by: 'lead@a.test' }],
      });
    }),
    http.patch(apiUrl('telemetry/cycle/c-1'), async ({ request }) => {
      patched.push(await request.json());
      return HttpResponse.json({ cycle: { ...CYCLE, good: false }, archived_at_ms: null, history: [] });
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/analytics?from=2026-11-24&to=2026-11-25');
  await user.click(await screen.findByText('The trend as a table'));
  await user.click(within(await screen.findByRole('table', { name: 'Trend table' })).getByRole('button', { name: '11/25' }));
  await user.click(await screen.findByRole('button', { name: /^Change the cycle ended/ }));
  const dialog = await screen.findByRole('dialog');
  expect(await within(dialog).findByText(/Marked good .* by lead@a.test: Seen on the video/)).toBeInTheDocument();
  // A reason is asked for before anything is sent.
  await user.click(within(dialog).getByRole('button', { name: 'Mark bad' }));
  expect(within(dialog).getByRole('alert')).toHaveTextContent('Say why, in 1 to 500 characters.');
  expect(patched).toHaveLength(0);
  const before = stats;
  await user.type(within(dialog).getByLabelText('Reason'), ' Skipped the seal check ');
  await user.click(within(dialog).getByRole('button', { name: 'Mark bad' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(patched).toEqual([{ good: false, reason: 'Skipped the seal check' }]);
  await waitFor(() => expect(stats).toBeGreaterThan(before));
});

test("the server's refusal shows in the cycle's dialog, which stays open", async () => {
  signInAs('org_admin', 1);
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), () => HttpResponse.json(STATS)),
    http.get(apiUrl('telemetry/fetch_cycles/v2'), () => HttpResponse.json({ results: [CYCLE], count: 1 })),
    http.get(apiUrl('telemetry/trace/trace_single_cycle_details/'), () =>
      HttpResponse.json({ cycle: CYCLE, archived_at_ms: null, history: [] }),
    ),
    http.post(apiUrl('telemetry/archive_cycle/'), () =>
      HttpResponse.json({ ids: ['Cycle c-1 is archived: restore it first (Archived Cycles).'] }, { status: 400 }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/user/analytics?from=2026-11-24&to=2026-11-25');
  await user.click(await screen.findByText('The trend as a table'));
  await user.click(within(await screen.findByRole('table', { name: 'Trend table' })).getByRole('button', { name: '11/25' }));
  await user.click(await screen.findByRole('button', { name: /^Change the cycle ended/ }));
  const dialog = await screen.findByRole('dialog');
  expect(await within(dialog).findByText('No one has changed this cycle.')).toBeInTheDocument();
  await user.type(within(dialog).getByLabelText('Reason'), 'trial');
  await user.click(within(dialog).getByRole('button', { name: 'Archive' }));
  expect(await within(dialog).findByText('Cycle c-1 is archived: restore it first (Archived Cycles).')).toBeInTheDocument();
});

test('an analytics user reads the cycles of a period but has nothing to change', async () => {
  signInAs('analytics_user', 1);
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), () => HttpResponse.json(STATS)),
    http.get(apiUrl('telemetry/fetch_cycles/v2'), () => HttpResponse.json({ results: [CYCLE], count: 1 })),
  );
  const user = userEvent.setup();
  renderApp('/user/analytics?from=2026-11-24&to=2026-11-25');
  await user.click(await screen.findByText('The trend as a table'));
  await user.click(within(await screen.findByRole('table', { name: 'Trend table' })).getByRole('button', { name: '11/25' }));
  expect(await screen.findByRole('table', { name: 'Cycles of 11/25' })).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: /^Change the cycle/ })).toBeNull();
});

test('the period before, as long, side by side with the change; the slowest 5% listed', async () => {
  signInAs('analytics_user', 1);
  const ranges: string[] = [];
  const before: CycleStats = {
    ...STATS,
    total: { cycles: 2, good: 2, bad: 0, avg_ms: 40_000, stddev_ms: 1_000, min_ms: 39_000, max_ms: 41_000, idle_ms: 0 },
  };
  server.use(
    http.get(apiUrl('telemetry/cycle_stats'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      ranges.push(`${q.get('datetime_start')}/${q.get('datetime_end')}`);
      return HttpResponse.json(q.get('datetime_start') === new Date(at(24)).toISOString() ? STATS : before);
    }),
    http.get(apiUrl('telemetry/top_five_percentile'), () =>
      HttpResponse.json({ threshold_ms: 45_000, count: 1, cycles: 3, results: [{ ...CYCLE, end_ms: CYCLE.start_ms + 45_000 }] }),
    ),
  );
  renderApp('/user/analytics?from=2026-11-24&to=2026-11-25&compare=previous');
  const table = await screen.findByRole('table', { name: 'Comparison' });
  expect(within(table).getAllByRole('rowheader').map((h) => h.textContent)).toEqual([
    'Cycles',
    'Good',
    'Average cycle time',
    'Spread (standard deviation)',
  ]);
  expect(tableRows(table)).toEqual([
    ['3', '2', '+50%'],
    ['67%', '100%', '−33 points'],
    ['42.0 s', '40.0 s', '+2.0 s'],
    ['2.0 s', '1.0 s', '+1.0 s'],
  ]);
  // The period before: the two days before the 24th.
  expect(ranges).toContain(`${new Date(at(22)).toISOString()}/${new Date(at(24)).toISOString()}`);
  expect(await screen.findByText('1 of 3 cycles took 45.0 s or longer; the slowest:')).toBeInTheDocument();
  expect(tableRows(screen.getByRole('table', { name: 'Slowest cycles' }))).toHaveLength(1);
});

test("a cycle's trace: its station, times, verdict, steps in time, neighbours and history", async () => {
  signInAs('analytics_user', 1);
  const bad = {
    ...CYCLE,
    good: false,
    reasons: [{ reason: 'missed_step' as const, step: 1 }],
    segments: [
      { step: 0, start_ms: CYCLE.start_ms + 2_000, end_ms: CYCLE.start_ms + 30_000 },
    ],
    idle_ms: 2_000,
  };
  server.use(
    http.get(apiUrl('telemetry/trace/trace_single_cycle_details/'), ({ request }) => {
      const id = new URL(request.url).searchParams.get('cycle_id');
      return HttpResponse.json({
        cycle: { ...bad, id },
        task_name: 'Assemble pump',
        steps: ['Fit housing', 'Check seal'],
        device_name: 'Bench 7',
        archived_at_ms: null,
        history: [{ id: 1, at_ms: at(25, 10), change: 'reviewed', reason: 'Retrained', by: 'lead@a.test' }],
        previous: id === 'c-1' ? 'c-0' : null,
        next: id === 'c-1' ? 'c-2' : null,
        clip: null,
      });
    }),
  );
  const user = userEvent.setup();
  renderApp('/cycle-trace/c-1');
  expect(await screen.findByText('Assemble pump')).toBeInTheDocument();
  expect(screen.getByText(/on Bench 7/)).toHaveTextContent('(42.0 s)');
  expect(screen.getByText('Missed Check seal', { exact: false })).toBeInTheDocument();
  expect(tableRows(screen.getByRole('table', { name: 'Step times' }))).toEqual([[' Fit housing', '2.0 s', '28.0 s']]);
  expect(screen.getByText('Idle within the cycle: 2.0 s.')).toBeInTheDocument();
  expect(screen.getByRole('list', { name: 'History' })).toHaveTextContent('Reviewed');
  expect(screen.getByText(/No video clip for this cycle yet/)).toBeInTheDocument();
  expect(screen.queryByLabelText('Cycle clip')).toBeNull();
  // An analytics user changes nothing.
  expect(screen.queryByRole('button', { name: 'Change' })).toBeNull();
  await user.click(screen.getByRole('link', { name: 'Next cycle →' }));
  expect(await screen.findByText('No later cycle')).toBeInTheDocument();
});

test("a cycle's clip: the step shown follows the video, and a step plays from its start", async () => {
  signInAs('analytics_user', 1);
  const start = CYCLE.start_ms;
  server.use(
    http.get(apiUrl('telemetry/trace/trace_single_cycle_details/'), () =>
      HttpResponse.json({
        cycle: {
          ...CYCLE,
          segments: [
            { step: 0, start_ms: start, end_ms: start + 10_000 },
            { step: 1, start_ms: start + 12_000, end_ms: start + 42_000 },
          ],
        },
        task_name: 'Assemble pump',
        steps: ['Fit housing', 'Check seal'],
        device_name: 'Bench 7',
        archived_at_ms: null,
        history: [],
        previous: null,
        next: null,
        clip: { url: '/api/media/clip-token', start_ms: start - 1_500, duration_ms: 45_000 },
        metadata: { barcode: 'P-1' },
      }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/cycle-trace/c-1');
  const video = await screen.findByLabelText<HTMLVideoElement>('Cycle clip');
  expect(video.getAttribute('src')).toBe('/api/media/clip-token');
  // What the device read of the part.
  expect(screen.getByRole('definition')).toHaveTextContent('P-1');
  expect(screen.getByRole('term')).toHaveTextContent('barcode');
  // The browser's player, as far as the screen reads it: where the video is.
  let time = 0;
  Object.defineProperty(video, 'currentTime', {
    get: () => time,
    set: (t: number) => {
      time = t;
      video.dispatchEvent(new Event('seeked'));
    },
  });
  const now = screen.getByRole('status', { name: 'Now playing' });
  const current = () => screen.getByRole('table', { name: 'Step times' }).querySelector('tr[aria-current="step"]')?.textContent ?? null;
  const playAt = (s: number) => act(() => {
    time = s;
    video.dispatchEvent(new Event('timeupdate'));
  });
  playAt(0.5);
  expect(now).toHaveTextContent('Before the cycle · 1.0 s before it starts');
  expect(current()).toBeNull();
  playAt(5);
  expect(now).toHaveTextContent('Fit housing · 3.5 s into the cycle');
  expect(current()).toContain('Fit housing');
  expect(screen.getByRole('button', { name: 'Play Fit housing from 0.0 s' })).toHaveAttribute('aria-current', 'step');
  playAt(12.5);
  expect(now).toHaveTextContent('Between steps');
  playAt(20);
  expect(now).toHaveTextContent('Check seal · 18.5 s into the cycle');
  expect(current()).toContain('Check seal');
  playAt(44);
  expect(now).toHaveTextContent('After the cycle · 0.5 s after it ended');
  // A step from the table, then from the timeline: the video moves to its start.
  const rows = within(screen.getByRole('table', { name: 'Step times' })).getAllByRole('row');
  await user.click(within(rows[2]!).getByRole('button', { name: 'Play from here' }));
  expect(time).toBeCloseTo(13.5);
  expect(now).toHaveTextContent('Check seal · 12.0 s into the cycle');
  await user.click(screen.getByRole('button', { name: 'Play Fit housing from 0.0 s' }));
  expect(time).toBeCloseTo(1.5);
  expect(now).toHaveTextContent('Fit housing · 0.0 s into the cycle');
});

test('Trace lists the cycles of its days, those with a clip marked, each opening its trace', async () => {
  signInAs('analytics_user', 1);
  const asked: string[] = [];
  server.use(
    http.get(apiUrl('telemetry/trace/v2'), ({ request }) => {
      asked.push(new URL(request.url).searchParams.get('cycle_filter') ?? 'all');
      return HttpResponse.json({
        count: 2,
        results: [
          { cycle: CYCLE, clip: { url: '/api/media/t', start_ms: CYCLE.start_ms - 1_000, duration_ms: 44_500 } },
          { cycle: { ...CYCLE, id: 'c-2', end_ms: CYCLE.end_ms - 60_000 }, clip: null },
        ],
      });
    }),
  );
  renderApp('/user/trace?filter=bad_cycles');
  const play = await screen.findAllByRole('link', { name: /^Play clip \(\d+\.\d s\) of the cycle ended/ });
  expect(play).toHaveLength(1);
  expect(play[0]).toHaveTextContent('▶ Play clip (44.5 s)');
  expect(play[0]).toHaveAttribute('href', '/cycle-trace/c-1');
  expect(screen.getAllByRole('link', { name: /^Trace of the cycle ended/ }).map((l) => l.getAttribute('href'))).toEqual(['/cycle-trace/c-1', '/cycle-trace/c-2']);
  expect(asked).toEqual(['bad_cycles']);
});

test('a long trend is drawn merged to at most 500 bars, cycles summed and means weighted', async () => {
  const { drawnTrend } = await import('./components/analytics-screen');
  const trend = Array.from({ length: 1992 }, (_, i) => ({
    start_ms: at(1) + i * 3_600_000,
    ...empty,
    cycles: i % 3,
    good: i % 3 === 2 ? 1 : i % 3,
    bad: i % 3 === 2 ? 1 : 0,
    avg_ms: i % 3 === 0 ? null : 1000 * (i % 5),
  }));
  const stats: CycleStats = { ...STATS, bucket: 'hour', trend };
  const drawn = drawnTrend(stats, 500);
  expect(drawn).toHaveLength(498);
  expect(drawn.reduce((n, d) => n + d.good + d.bad, 0)).toBe(trend.reduce((n, p) => n + p.cycles, 0));
  // Buckets 0-3: cycles 0, 1, 2, 0 with means -, 1 s, 2 s, -: (1·1 + 2·2) / 3.
  expect(drawn[0]).toMatchObject({ from: 0, to: 4, good: 2, bad: 1 });
  expect(drawn[0]!.avg).toBeCloseTo(5 / 3);
  expect(drawn.at(-1)!.to).toBe(1992);
  // A short one is drawn as it is.
  expect(drawnTrend(STATS, 500).map((d) => [d.from, d.to])).toEqual([
    [0, 1],
    [1, 2],
  ]);
});
