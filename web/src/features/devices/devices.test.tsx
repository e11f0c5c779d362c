import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Device, DevicePatch } from '@/api/generated';
import { callsTo, fail, recordCalls, screenCalls, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { SEEN, device, devicesFeature } from './fixtures';

/** The server's list: starred first, then by name. */
function devicesApi(rows: Device[]) {
  const list = () => [...rows].sort((a, b) => Number(b.starred) - Number(a.starred) || a.display_name.localeCompare(b.display_name));
  return [
    http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json(list())),
    http.patch(apiUrl('device/:id/'), async ({ request, params }) => {
      const body = (await request.json()) as DevicePatch;
      const d = rows.find((r) => r.id === Number(params.id));
      if (!d) return fail(404, { detail: 'Not found.', msg: 'Not found.' });
      if (typeof body.starred === 'boolean') d.starred = body.starred;
      return HttpResponse.json(d);
    }),
  ];
}

const table = () => screen.findByRole('table', { name: 'Devices' });
/** The rows' star buttons, in order. */
const stars = (t: HTMLElement) => within(t).getAllByRole('button').map((b) => b.getAttribute('aria-label'));

test('the devices are listed starred first with a star mark; a star toggles and reorders', async () => {
  signInAs('org_user', 1);
  const rows = [
    device(1, 'Bench 1', {
      online: true,
      last_seen: SEEN,
      tasks: [
        { camera: 'cam0', task: 4, task_name: 'Assemble pump', running: true, refused: null, refused_at: null },
        { camera: 'cam1', task: 5, task_name: 'Check valve', running: false, refused: null, refused_at: null },
      ],
    }),
    device(2, 'Bench 2', { starred: true, enrolled: false, Serial_number: '' }),
    device(3, 'Bench 3'),
  ];
  server.use(devicesFeature(), ...devicesApi(rows));
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/devices');

  expect(await screen.findByRole('heading', { level: 1, name: 'Devices' })).toBeInTheDocument();
  const t = await table();
  expect(tableRows(t)).toEqual([
    ['★', 'Bench 2', '—', 'Offline', 'Not enrolled', 'Nothing'],
    ['☆', 'Bench 1', 'SN-1', 'Online', 'Enrolled', 'cam0: Assemble pump (running)cam1: Check valve (stopped)'],
    ['☆', 'Bench 3', 'SN-3', 'Offline', 'Enrolled', 'Nothing'],
  ]);
  expect(stars(t)).toEqual(['Unstar Bench 2', 'Star Bench 1', 'Star Bench 3']);
  expect(within(t).getByRole('button', { name: 'Unstar Bench 2' })).toHaveAttribute('aria-pressed', 'true');
  expect(within(t).getByRole('link', { name: 'Bench 1' })).toHaveAttribute('href', '/user/devices/1');
  // The organisation of the session, in the path and the header.
  expect(callsTo(rec, 'GET', 'device/device_org/1/')[0]!.headers.get('organization')).toBe('1');
  // An org user does not add devices.
  expect(screen.queryByRole('link', { name: 'Add device' })).toBeNull();

  await user.click(within(t).getByRole('button', { name: 'Star Bench 3' }));
  await waitFor(() => expect(stars(t)).toEqual(['Unstar Bench 2', 'Unstar Bench 3', 'Star Bench 1']));
  expect(within(t).getAllByRole('row')[2]).toHaveTextContent('★Bench 3');
  await user.click(within(t).getByRole('button', { name: 'Unstar Bench 2' }));
  await waitFor(() => expect(stars(t)).toEqual(['Unstar Bench 3', 'Star Bench 1', 'Star Bench 2']));
  expect(callsTo(rec, 'PATCH', 'device/3/').map((c) => c.body)).toEqual([{ starred: true }]);
  expect(callsTo(rec, 'PATCH', 'device/2/').map((c) => c.body)).toEqual([{ starred: false }]);
});

test('no devices: an empty state with Add device for the roles that add them', async () => {
  signInAs('org_admin', 1);
  server.use(devicesFeature(), ...devicesApi([]));
  const user = userEvent.setup();
  const { router } = renderApp('/user/devices');
  expect(await screen.findByText('No devices yet.')).toBeInTheDocument();
  expect(screen.queryByRole('table')).toBeNull();
  await user.click(screen.getByRole('link', { name: 'Add a device' }));
  expect(await screen.findByRole('heading', { level: 1, name: 'Add Device' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/add-device');
});

test('no devices, for a role that does not add them: the empty state without the link', async () => {
  signInAs('user', 1);
  server.use(devicesFeature(), ...devicesApi([]));
  renderApp('/user/devices');
  expect(await screen.findByText('No devices yet.')).toBeInTheDocument();
  expect(screen.queryByRole('link', { name: 'Add a device' })).toBeNull();
  expect(screen.getByText('An organisation admin or support user adds them.')).toBeInTheDocument();
});

test('a list error shows its message', async () => {
  signInAs('org_user', 1);
  server.use(
    devicesFeature(),
    http.get(apiUrl('device/device_org/1/'), () => fail(400, { non_field_errors: ['User is not assigned to any organization'] })),
  );
  renderApp('/user/devices');
  expect(await screen.findByRole('alert')).toHaveTextContent('Devices could not be loaded: User is not assigned to any organization');
});

test('a refused star shows the answer as a toast and keeps the mark', async () => {
  signInAs('org_user', 1);
  server.use(
    devicesFeature(),
    http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json([device(1, 'Bench 1')])),
    http.patch(apiUrl('device/1/'), () => fail(403, { detail: 'No.', msg: 'You do not have permission to perform this action.' })),
  );
  const user = userEvent.setup();
  renderApp('/user/devices');
  const t = await table();
  await user.click(within(t).getByRole('button', { name: 'Star Bench 1' }));
  expect(await screen.findByText('You do not have permission to perform this action.')).toBeInTheDocument();
  expect(within(t).getByRole('button', { name: 'Star Bench 1' })).toHaveAttribute('aria-pressed', 'false');
});

test('without the Devices subscription the list is not opened and nothing is asked', async () => {
  signInAs('org_admin', 1);
  const rec = recordCalls();
  const { router } = renderApp('/user/devices');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
  // The dashboard asks for its figures; nothing of the devices.
  expect(screenCalls(rec).filter((c) => c.path.startsWith('device'))).toEqual([]);
});
