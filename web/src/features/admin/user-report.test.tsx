import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { UserReport, UserReportRow } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { localDay } from './api/reports';
import { portalTime } from './components/user-report-screen';
import { ORGS } from './fixtures';

const LAST = new Date(2026, 10, 20, 9, 30, 0).getTime();
const FROM = new Date(2026, 9, 21).getTime();
const TO = new Date(2026, 10, 20).getTime();

const person = (id: number, name: string, extra: Partial<UserReportRow> = {}): UserReportRow => ({
  id,
  name,
  lastname: 'Tester',
  email: `${name.toLowerCase()}@example.test`,
  role: 'org_user',
  is_active: true,
  organizations: ['ACME'],
  sessions: 0,
  sign_ins: 0,
  time_ms: 0,
  last_active: null,
  browsers: [],
  ...extra,
});

let asked: URLSearchParams[];
let csvAsked: URLSearchParams[];
beforeEach(() => {
  const rows = [
    person(1, 'Ann', { role: 'org_admin', organizations: ['ACME', 'Globex'], sessions: 3, sign_ins: 2, time_ms: 7_500_000, last_active: LAST, browsers: ['Chrome 131', 'Firefox 133'] }),
    person(2, 'Bob', { is_active: false }),
  ];
  asked = [];
  csvAsked = [];
  server.use(
    http.get(apiUrl('organization/'), () => HttpResponse.json(ORGS)),
    http.get(apiUrl('admin/user-report/'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      asked.push(q);
      const hits = rows.filter((r) => (q.get('role') ?? r.role) === r.role);
      return HttpResponse.json({ results: hits, count: hits.length, from: FROM, to: TO } satisfies UserReport);
    }),
    http.get(apiUrl('admin/user-report/csv/'), ({ request }) => {
      csvAsked.push(new URL(request.url).searchParams);
      return new HttpResponse('Name,E-mail\r\n', { headers: { 'Content-Type': 'text/csv' } });
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'User report' });

test('times in the portal read in hours and minutes', () => {
  expect(portalTime(0)).toBe('0 min');
  expect(portalTime(59_000)).toBe('< 1 min');
  expect(portalTime(12 * 60_000 + 5)).toBe('12 min');
  expect(portalTime(7_500_000)).toBe('2 h 05 min');
});

test('a period of whole local days: the end date counts to its midnight', () => {
  expect(localDay('2026-06-01')).toBe(new Date(2026, 5, 1).toISOString());
  expect(localDay('2026-06-30', 1)).toBe(new Date(2026, 6, 1).toISOString());
  expect(localDay('')).toBeUndefined();
});

test("each user's sessions, sign-ins, time and browsers over the period; filters and the CSV follow the address", async () => {
  const user = userEvent.setup();
  const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
  URL.createObjectURL = vi.fn(() => 'blob:report');
  URL.revokeObjectURL = vi.fn();
  renderApp('/admin/user-report');
  expect(await screen.findByRole('heading', { level: 1, name: 'User Report' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  const [ann, bob] = tableRows(table());
  expect(ann).toEqual([
    'Ann Tester',
    'ann@example.test',
    'ACME, Globex',
    'Organization Admin',
    '3',
    '2',
    '2 h 05 min',
    formatDateTime(LAST),
    'Chrome 131, Firefox 133',
  ]);
  expect(bob).toEqual(['Bob Tester inactive', 'bob@example.test', 'ACME', 'Organization User', '0', '0', '0 min', 'Never', '—']);
  expect(screen.getByText(`From ${formatDateTime(FROM)} to ${formatDateTime(TO)}`)).toBeInTheDocument();
  // The default period is the server's (the last 30 days).
  expect(asked[0]?.get('from')).toBeNull();

  await user.selectOptions(screen.getByRole('combobox', { name: 'Role' }), 'org_admin');
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  expect(asked.at(-1)?.get('role')).toBe('org_admin');
  await user.selectOptions(await screen.findByRole('combobox', { name: 'Organization' }), 'Globex');
  await waitFor(() => expect(asked.at(-1)?.get('organization')).toBe('2'));
  await user.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), '-time');
  await waitFor(() => expect(asked.at(-1)?.get('ordering')).toBe('-time'));
  await user.type(screen.getByLabelText('From'), '2026-06-01');
  await waitFor(() => expect(asked.at(-1)?.get('from')).toBe(new Date(2026, 5, 1).toISOString()));

  await user.click(screen.getByRole('button', { name: 'Download CSV' }));
  await waitFor(() => expect(clicked).toHaveBeenCalled());
  const q = csvAsked.at(-1);
  expect([q?.get('role'), q?.get('organization'), q?.get('ordering'), q?.get('from')]).toEqual([
    'org_admin',
    '2',
    '-time',
    new Date(2026, 5, 1).toISOString(),
  ]);
  expect(q?.get('page')).toBeNull();
  clicked.mockRestore();
});

test('other roles cannot open the User Report', async () => {
  signInAs('org_admin', 1);
  server.use(http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json([])));
  renderApp('/admin/user-report');
  await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'User Report' })).toBeNull());
  expect(asked).toEqual([]);
});
