import { screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';

import type { DeviceMonitoring, MonitoringStatus } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { healthSummary, onlineLine } from './api/monitoring';

const STATUS: MonitoringStatus = {
  organization: 1,
  total: 2,
  online: 1,
  offline: 1,
  devices: [
    { id: 7, display_name: 'Bench', online: true, last_seen: 1_700_000_000_000 },
    { id: 8, display_name: 'Press', online: false, last_seen: null },
  ],
};

const event = (kind: 'offline' | 'disk_low', camera: string) => ({
  id: 1,
  camera,
  kind,
  started_at: new Date(2026, 2, 4, 5, 6, 7).getTime(),
  ended_at: null,
  unsure_share: null,
  brightness: null,
  sure_share: null,
  sure_brightness: null,
});

const HEALTH: DeviceMonitoring = {
  organization: 1,
  unhealthy: 2,
  devices: [
    { id: 8, display_name: 'Press', online: false, last_seen: null, healthy: false, open_events: [] },
    { id: 9, display_name: 'Line 2', online: true, last_seen: 1_700_000_000_000, healthy: false, open_events: [event('offline', 'cam0')] },
    { id: 7, display_name: 'Bench', online: true, last_seen: 1_700_000_000_000, healthy: true, open_events: [] },
  ],
};

test("a device's health in one line", () => {
  expect(healthSummary({ online: true, open_events: [] })).toBe('Healthy');
  expect(healthSummary({ online: false, open_events: [] })).toBe('Offline');
  expect(healthSummary({ online: false, open_events: [event('disk_low', '')] })).toBe(
    'Offline; Disk low on the device since 03/04/26, 05:06:07',
  );
  expect(onlineLine({ online: 1, total: 2 })).toBe('1 of 2 online');
});

test('the Temporary screen shows the organisation’s devices from the monitoring calls', async () => {
  const asked: string[] = [];
  server.use(
    http.get(apiUrl('monitoring/1/device_status/'), ({ request }) => {
      asked.push(new URL(request.url).pathname);
      return HttpResponse.json(STATUS);
    }),
    http.get(apiUrl('monitoring/1/device_monitoring/'), ({ request }) => {
      asked.push(new URL(request.url).pathname);
      return HttpResponse.json(HEALTH);
    }),
  );
  signInAs('org_user');
  renderApp('/user/temp');
  expect(await screen.findByRole('heading', { level: 1, name: 'Temporary' })).toBeInTheDocument();
  const facts = await screen.findByLabelText('Device status');
  expect(await within(facts).findByText('1 of 2 online')).toBeInTheDocument();
  expect(within(facts).getByText('2')).toBeInTheDocument();
  const table = await screen.findByRole('table', { name: 'Device health' });
  expect(tableRows(table)).toEqual([
    ['Press', 'Offline', 'Never'],
    ['Line 2', 'Camera offline on cam0 since 03/04/26, 05:06:07', expect.any(String) as string],
    ['Bench', 'Healthy', expect.any(String) as string],
  ]);
  expect(within(table).getByRole('link', { name: 'Line 2' })).toHaveAttribute('href', '/user/devices/9');
  expect(asked.sort()).toEqual(['/api/monitoring/1/device_monitoring/', '/api/monitoring/1/device_status/']);
});

test('the Temporary screen is for the user and the org user only', async () => {
  signInAs('org_admin');
  const { router } = renderApp('/user/temp');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
});
