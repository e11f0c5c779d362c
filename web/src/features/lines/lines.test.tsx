import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Line, LineStats, LineTrace } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const station = (task: number, device: number, device_name: string) => ({ task, task_name: task === 4 ? 'Assemble pump' : 'Test pump', device, device_name });
const LINE: Line = {
  id: 3,
  name: 'Pump line',
  takt_time_s: 45,
  stations: [station(4, 7, 'Bench 7'), station(5, 8, 'Bench 8')],
  created_at_ms: 0,
  updated_at_ms: 0,
};
const figures = (cycles: number, good: number, avg: number | null) => ({
  cycles,
  good,
  bad: cycles - good,
  avg_ms: avg,
  stddev_ms: avg === null ? null : 1500,
  min_ms: null,
  max_ms: null,
  idle_ms: 0,
});

test('lines are listed with their stations; a new one is made of stations in order, checked first', async () => {
  signInAs('org_user', 1);
  const posted: unknown[] = [];
  server.use(
    http.get(apiUrl('telemetry/trace/line/'), () => HttpResponse.json([LINE])),
    http.get(apiUrl('organization/task/'), () => HttpResponse.json([{ id: 4, taskName: 'Assemble pump' }, { id: 5, taskName: 'Test pump' }])),
    http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json([{ id: 7, display_name: 'Bench 7' }, { id: 8, display_name: 'Bench 8' }])),
    http.post(apiUrl('telemetry/trace/line/'), async ({ request }) => {
      posted.push(await request.json());
      return HttpResponse.json({ ...LINE, id: 4, name: 'Line 2' }, { status: 201 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/line');
  const table = await screen.findByRole('table', { name: 'Lines' });
  expect(tableRows(table)[0]!.slice(0, 3)).toEqual(['Pump line', 'Assemble pump on Bench 7Test pump on Bench 8', '45 s']);
  expect(within(table).getByRole('link', { name: 'Pump line' })).toHaveAttribute('href', '/user/line-analytics?line=3');

  await user.click(screen.getByRole('button', { name: 'Create Line' }));
  const dialog = await screen.findByRole('dialog', { name: 'Create Line' });
  await user.click(within(dialog).getByRole('button', { name: 'Create' }));
  expect(within(dialog).getByText('Name the line in 1 to 100 characters.')).toBeInTheDocument();
  expect(within(dialog).getByText('A line has 1 to 20 stations.')).toBeInTheDocument();
  await user.type(within(dialog).getByLabelText('Line name'), 'Line 2');
  await user.type(within(dialog).getByLabelText('Takt time (s)'), '30');
  await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Add station' })).toBeEnabled());
  await user.click(within(dialog).getByRole('button', { name: 'Add station' }));
  await user.click(within(dialog).getByRole('button', { name: 'Add station' }));
  await user.selectOptions(within(dialog).getByLabelText('Station 1 operation'), 'Test pump');
  await user.selectOptions(within(dialog).getByLabelText('Station 2 device'), 'Bench 8');
  // Moved: the second first.
  await user.click(within(dialog).getByRole('button', { name: 'Move station 2 up' }));
  await user.click(within(dialog).getByRole('button', { name: 'Create' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(posted).toEqual([
    {
      name: 'Line 2',
      takt_time_s: 30,
      stations: [
        { task: 4, device: 8 },
        { task: 5, device: 7 },
      ],
    },
  ]);
});

test("a line's figures: output, balance, the bottleneck named and marked, each station against takt", async () => {
  signInAs('analytics_user', 1);
  const stats: LineStats = {
    line: 3,
    start_ms: 0,
    end_ms: 0,
    takt_time_s: 45,
    stations: [
      { position: 0, ...station(4, 7, 'Bench 7'), figures: figures(10, 9, 40_000) },
      { position: 1, ...station(5, 8, 'Bench 8'), figures: figures(9, 8, 50_000) },
    ],
    bottleneck: 1,
    output: 8,
    capacity_per_hour: 72,
    balance: 0.9,
  };
  const asked: URLSearchParams[] = [];
  server.use(
    http.get(apiUrl('telemetry/trace/line/'), () => HttpResponse.json([LINE])),
    http.get(apiUrl('telemetry/line_stats'), ({ request }) => {
      asked.push(new URL(request.url).searchParams);
      return HttpResponse.json(stats);
    }),
  );
  renderApp('/user/line-analytics?from=2026-11-19&to=2026-11-25');
  expect(await screen.findByText('Test pump on Bench 8 (50.0 s)')).toBeInTheDocument();
  expect(screen.getByText('90%')).toBeInTheDocument();
  expect(screen.getByText('72.0')).toBeInTheDocument();
  expect(screen.getByRole('figure', { name: 'Station cycle times against takt time' })).toBeInTheDocument();
  const rows = tableRows(screen.getByRole('table', { name: 'Stations' }));
  expect(rows[0]!.slice(0, 4)).toEqual(['1', 'Assemble pump on Bench 7', '10', '9']);
  expect(rows[0]![4]).toContain('at or under target');
  expect(rows[1]![1]).toContain('bottleneck');
  expect(rows[1]![4]).toContain('11% over target');
  expect(asked[0]!.get('line')).toBe('3');
  expect(asked[0]!.get('datetime_start')).toBe(new Date(2026, 10, 19).toISOString());
  expect(asked[0]!.get('datetime_end')).toBe(new Date(2026, 10, 26).toISOString());
});

const cycle = (id: string, start: number, good: boolean) => ({ id, task: 4, device: 7, camera: 'cam0', start_ms: start, end_ms: start + 42_000, idle_ms: 0, good, reasons: [], segments: [] });

test("a cycle's line visibility: its lines' stations in order, its own marked, the part's cycle at each", async () => {
  signInAs('analytics_user', 1);
  const other: Line = { ...LINE, id: 9, name: 'Other line', stations: [station(6, 9, 'Bench 9')] };
  const trace: LineTrace = {
    line: 3,
    cycle_id: 'c-1',
    by: 'time',
    barcode: null,
    position: 0,
    stations: [
      { position: 0, ...station(4, 7, 'Bench 7'), cycle: cycle('c-1', new Date(2026, 10, 25, 9).getTime(), true) },
      { position: 1, ...station(5, 8, 'Bench 8'), cycle: null },
    ],
  };
  const traced: string[] = [];
  server.use(
    http.get(apiUrl('telemetry/trace/line/'), () => HttpResponse.json([LINE, other])),
    http.get(apiUrl('telemetry/trace/line_traceability/'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      traced.push(`${q.get('line')}/${q.get('cycle_id')}/${q.get('by')}`);
      return HttpResponse.json(trace);
    }),
    http.get(apiUrl('telemetry/trace/trace_single_cycle_details/'), () =>
      HttpResponse.json({ cycle: cycle('c-1', new Date(2026, 10, 25, 9).getTime(), true), metadata: {}, history: [] }),
    ),
  );
  renderApp('/user/line-visibility?cycleId=c-1&taskId=4');
  const list = await screen.findByRole('list', { name: 'Stations of Pump line' });
  const items = within(list).getAllByRole('listitem');
  expect(items[0]).toHaveAttribute('aria-current', 'step');
  expect(items[0]).toHaveTextContent('1. Assemble pump on Bench 7');
  expect(items[0]).toHaveTextContent('42.0 s');
  expect(items[0]).toHaveTextContent('(this cycle)');
  expect(items[1]).toHaveTextContent('No cycle found for this part.');
  // Only the lines its operation is on.
  expect(screen.queryByRole('region', { name: 'Other line' })).toBeNull();
  expect(traced).toEqual(['3/c-1/time']);
  // Its device read no barcode: only the line's times can follow it.
  expect(screen.queryByLabelText('Trace by')).toBeNull();
});

test('a cycle with a barcode is followed by its barcode when asked', async () => {
  signInAs('analytics_user', 1);
  const traced: string[] = [];
  server.use(
    http.get(apiUrl('telemetry/trace/line/'), () => HttpResponse.json([LINE])),
    http.get(apiUrl('telemetry/trace/line_traceability/'), ({ request }) => {
      const by = new URL(request.url).searchParams.get('by') ?? 'time';
      traced.push(by);
      return HttpResponse.json({ line: 3, cycle_id: 'c-1', by, barcode: by === 'barcode' ? 'P-1' : null, position: 0, stations: [] });
    }),
    http.get(apiUrl('telemetry/trace/trace_single_cycle_details/'), () =>
      HttpResponse.json({ cycle: cycle('c-1', new Date(2026, 10, 25, 9).getTime(), true), metadata: { barcode: 'P-1' }, history: [] }),
    ),
  );
  const user = userEvent.setup();
  const { router } = renderApp('/user/line-visibility?cycleId=c-1&taskId=4');
  const choice = await screen.findByLabelText('Trace by');
  expect(choice).toHaveValue('time');
  await user.selectOptions(choice, 'Barcode P-1');
  await waitFor(() => expect(traced).toEqual(['time', 'barcode']));
  expect(router.state.location.search).toContain('by=barcode');
});

test('as a wall display Line Analytics shows its figures alone: no chrome, no filters, the line and days named', async () => {
  signInAs('analytics_user', 1);
  const stats: LineStats = {
    line: 3,
    start_ms: 0,
    end_ms: 0,
    takt_time_s: null,
    stations: [{ position: 0, ...station(4, 7, 'Bench 7'), figures: figures(10, 9, 40_000) }],
    bottleneck: 0,
    output: 9,
    capacity_per_hour: 90,
    balance: 1,
  };
  server.use(
    http.get(apiUrl('telemetry/trace/line/'), () => HttpResponse.json([LINE])),
    http.get(apiUrl('telemetry/line_stats'), () => HttpResponse.json(stats)),
  );
  renderApp('/user/line-analytics?line=3&from=2026-11-19&to=2026-11-25&display=wall');
  expect(await screen.findByText('90.0')).toBeInTheDocument();
  expect(screen.getByText(`${LINE.name} · 2026-11-19 to 2026-11-25`)).toBeInTheDocument();
  expect(screen.queryByRole('form', { name: 'Line filters' })).toBeNull();
  expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
  expect(screen.getByRole('link', { name: 'Leave wall display' })).toHaveAttribute(
    'href',
    '/user/line-analytics?line=3&from=2026-11-19&to=2026-11-25',
  );
});
