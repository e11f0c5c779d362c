import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { DeviceEvent, Issue, IssueCenter } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { issueText } from './api/issues';

const at = (d: number) => new Date(2026, 10, d).getTime();
const issue = (key: string, extra: Partial<Issue>): Issue => {
  const [reason, step] = key.split(':');
  return {
    task: 4,
    task_name: 'Assemble pump',
    key,
    reason: reason!,
    step: step === undefined ? null : Number(step),
    step_name: step === undefined ? null : 'Check seal',
    cycles: 1,
    open: 1,
    trend: [0, 1],
    ...extra,
  };
};

const CENTER: IssueCenter = {
  start_ms: at(24),
  end_ms: at(26),
  bucket: 'day',
  buckets: [at(24), at(25)],
  bad: 5,
  open: 3,
  issues: [
    issue('missed_step:1', { cycles: 4, open: 2, trend: [1, 3] }),
    issue('too_long', { cycles: 2, open: 1, trend: [0, 2] }),
    issue('marked_bad', { cycles: 1, open: 0, trend: [1, 0] }),
  ],
};

let healthAsked: URLSearchParams[];
beforeEach(() => {
  healthAsked = [];
  server.use(
    http.get(apiUrl('telemetry/device_events'), ({ request }) => {
      healthAsked.push(new URL(request.url).searchParams);
      return HttpResponse.json([]);
    }),
  );
});

test('issues are named in words', () => {
  expect(CENTER.issues.map(issueText)).toEqual(['Missed Check seal', 'Too long', 'Marked bad by a person']);
  expect(issueText(issue('wrong_order:1', {}))).toBe('Check seal out of order');
});

test("an engineer sees the range's issues, opens one's cycles and marks its open ones reviewed with a note", async () => {
  signInAs('org_user', 1);
  const asked: URLSearchParams[] = [];
  const reviews: unknown[] = [];
  server.use(
    http.get(apiUrl('telemetry/issues'), ({ request }) => {
      asked.push(new URL(request.url).searchParams);
      return HttpResponse.json(CENTER);
    }),
    http.get(apiUrl('telemetry/fetch_cycles/v2'), ({ request }) => {
      asked.push(new URL(request.url).searchParams);
      return HttpResponse.json({ results: [], count: 0 });
    }),
    http.post(apiUrl('telemetry/issues/review'), async ({ request }) => {
      reviews.push(await request.json());
      return HttpResponse.json({ reviewed: 2 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/issue-center?from=2026-11-24&to=2026-11-25');
  const table = await screen.findByRole('table', { name: 'Issues' });
  expect(tableRows(table).map((r) => r.slice(0, 4))).toEqual([
    ['Missed Check seal', 'Assemble pump', '4', '2'],
    ['Too long', 'Assemble pump', '2', '1'],
    ['Marked bad by a person', 'Assemble pump', '1', '0'],
  ]);
  expect(screen.getByRole('figure', { name: 'Bad cycles by issue over time' })).toBeInTheDocument();
  expect(asked[0]!.get('datetime_start')).toBe(new Date(at(24)).toISOString());
  expect(asked[0]!.get('datetime_end')).toBe(new Date(at(26)).toISOString());
  // Nothing open: nothing to review.
  expect(screen.queryByRole('button', { name: /^Mark Marked bad by a person/ })).toBeNull();
  // An issue's cycles: its bad cycles of the range.
  await user.click(screen.getByRole('button', { name: 'Cycles of Missed Check seal (Assemble pump)' }));
  expect(await screen.findByRole('region', { name: 'Cycles of Missed Check seal' })).toBeInTheDocument();
  await waitFor(() => expect(asked).toHaveLength(2));
  expect(asked[1]!.get('reason')).toBe('missed_step:1');
  expect(asked[1]!.get('cycle_filter')).toBe('bad_cycles');
  expect(asked[1]!.get('task')).toBe('4');
  // Reviewed, with a note.
  await user.click(screen.getByRole('button', { name: 'Mark reviewed: Missed Check seal (Assemble pump)' }));
  const dialog = await screen.findByRole('dialog', { name: 'Mark Missed Check seal reviewed' });
  expect(dialog).toHaveTextContent('2 bad cycles of Assemble pump in this range, not reviewed yet.');
  await user.type(within(dialog).getByLabelText('Note (optional)'), 'Retrained the shift');
  await user.click(within(dialog).getByRole('button', { name: 'Mark reviewed' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(reviews).toEqual([
    {
      task: 4,
      key: 'missed_step:1',
      device: null,
      datetime_start: new Date(at(24)).toISOString(),
      datetime_end: new Date(at(26)).toISOString(),
      note: 'Retrained the shift',
    },
  ]);
  expect(await screen.findByText('2 cycles marked reviewed.')).toBeInTheDocument();
});

test('an analytics user reads the issues and reviews none; an empty range says so', async () => {
  signInAs('analytics_user', 1);
  let empty = false;
  server.use(http.get(apiUrl('telemetry/issues'), () => HttpResponse.json(empty ? { ...CENTER, bad: 0, open: 0, issues: [] } : CENTER)));
  const user = userEvent.setup();
  renderApp('/user/issue-center?from=2026-11-24&to=2026-11-25');
  await screen.findByRole('table', { name: 'Issues' });
  expect(screen.queryByRole('button', { name: /reviewed$/ })).toBeNull();
  empty = true;
  await user.selectOptions(screen.getByLabelText('By'), 'week');
  expect(await screen.findByText('No bad cycles in this range.')).toBeInTheDocument();
});

test("an analyst sees the range's device health events, open ones first, with device, camera, kind, start, end and detail", async () => {
  signInAs('analytics_user', 1);
  const ev = (id: number, kind: DeviceEvent['kind'], camera: string, from: number, to: number | null, detail?: string): DeviceEvent => ({
    device: 7,
    device_name: 'Bench 7',
    id,
    camera,
    kind,
    started_at: from,
    ended_at: to,
    unsure_share: null,
    brightness: null,
    sure_share: null,
    sure_brightness: null,
    ...(detail !== undefined ? { detail } : {}),
  });
  server.use(
    http.get(apiUrl('telemetry/issues'), () => HttpResponse.json({ ...CENTER, issues: [], bad: 0, open: 0 })),
    http.get(apiUrl('telemetry/device_events'), ({ request }) => {
      healthAsked.push(new URL(request.url).searchParams);
      return HttpResponse.json([
        ev(2, 'disk_low', '', at(25), null, '2% free'),
        ev(1, 'offline', 'cam0', at(24), at(24) + 35 * 60_000, 'camera cam0 (rtsp://…): Could not open resource'),
      ] satisfies DeviceEvent[]);
    }),
  );
  renderApp('/user/issue-center?from=2026-11-24&to=2026-11-25');
  const table = await screen.findByRole('table', { name: 'Device health' });
  expect(tableRows(table)).toEqual([
    ['Bench 7', 'the device', 'Disk low', formatDateTime(at(25)), 'still going', '2% free'],
    [
      'Bench 7',
      'cam0',
      'Camera offline',
      formatDateTime(at(24)),
      formatDateTime(at(24) + 35 * 60_000),
      'camera cam0 (rtsp://…): Could not open resource',
    ],
  ]);
  expect(healthAsked.at(-1)?.get('datetime_start')).toBe(new Date(at(24)).toISOString());
  expect(healthAsked.at(-1)?.get('datetime_end')).toBe(new Date(at(26)).toISOString());
  expect(screen.getByText('No bad cycles in this range.')).toBeInTheDocument();
});

test('a range without device events says so', async () => {
  signInAs('org_user', 1);
  server.use(http.get(apiUrl('telemetry/issues'), () => HttpResponse.json(CENTER)));
  renderApp('/user/issue-center?from=2026-11-24&to=2026-11-25');
  expect(await screen.findByText('No device events in this range.')).toBeInTheDocument();
});
