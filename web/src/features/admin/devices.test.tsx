import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { AdminDevice, CameraEvent, Page } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { orgsHandler } from './fixtures';

const SINCE = new Date(2026, 10, 27, 14, 5, 0).getTime();

const open = (id: number, kind: CameraEvent['kind'], camera: string, detail?: string): CameraEvent => ({
  id,
  camera,
  kind,
  started_at: SINCE,
  ended_at: null,
  unsure_share: null,
  brightness: null,
  sure_share: null,
  sure_brightness: null,
  ...(detail !== undefined ? { detail } : {}),
});

const device = (id: number, name: string, health: CameraEvent[], extra: Partial<AdminDevice> = {}): AdminDevice => ({
  id,
  display_name: name,
  Serial_number: `SN-${id}`,
  Type: 'workstation',
  starred: false,
  active: true,
  is_archived: false,
  organization: id === 7 ? 1 : 2,
  department: null,
  enrolled: true,
  online: true,
  last_seen: null,
  status: null,
  settings: {},
  tasks: [],
  created_at: SINCE,
  update_channel: 'prod',
  fetch_analytics: true,
  health,
  ...extra,
});

let asked: URLSearchParams[];
beforeEach(() => {
  const rows = [
    device(7, 'Bench 7', [open(1, 'offline', 'cam0', 'Could not open resource'), open(2, 'disk_low', '')]),
    device(9, 'Press 9', [], { online: false }),
  ];
  asked = [];
  server.use(
    orgsHandler(),
    http.get(apiUrl('device/devicelistadminview'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      asked.push(q);
      const s = (q.get('query') ?? '').toLowerCase();
      const hits = q.get('archived') === 'true' ? [] : rows.filter((r) => r.display_name.toLowerCase().includes(s));
      return HttpResponse.json({ results: hits, count: hits.length } satisfies Page<AdminDevice>);
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'All devices' });

test("every organisation's devices with their health: open events in words, OK when none; searched; archived apart", async () => {
  const user = userEvent.setup();
  renderApp('/admin/devices');
  expect(await screen.findByRole('heading', { level: 1, name: 'All Devices' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table()).map((r) => r[2])).toEqual(['ACME', 'Globex']));
  const since = formatDateTime(SINCE);
  const [bench, press] = tableRows(table());
  expect(bench).toEqual([
    'Bench 7',
    'SN-7',
    'ACME',
    'Online',
    `Camera offline on cam0 since ${since} — Could not open resourceDisk low on the device since ${since}`,
  ]);
  expect(press).toEqual(['Press 9', 'SN-9', 'Globex', 'Offline', 'OK']);
  expect(screen.getByRole('list', { name: 'Health of Bench 7' }).children).toHaveLength(2);

  await user.type(screen.getByRole('searchbox', { name: 'Search devices' }), 'press');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  expect(asked.at(-1)?.get('query')).toBe('press');

  await user.click(screen.getByRole('checkbox', { name: 'Archived' }));
  expect(await screen.findByText('No device matches "press".')).toBeInTheDocument();
  expect(asked.at(-1)?.get('archived')).toBe('true');
});

test('other roles cannot open All Devices', async () => {
  signInAs('org_admin', 1);
  server.use(http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json([])));
  renderApp('/admin/devices');
  await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'All Devices' })).toBeNull());
  expect(asked).toEqual([]);
});
