import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { type RouteObject, RouterProvider, createMemoryRouter } from 'react-router';

import { ErrorScreen } from '@/components/ui/error-screen';
import { lazyScreen } from '@/lib/lazy';
import { getRedirectUrl } from '@/lib/session';
import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';



test('a signed-out visit to a protected screen shows the login and remembers the address', async () => {
  const { router } = renderApp('/user/devices?x=1');
  expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/login');
  expect(getRedirectUrl()).toBe('/user/devices?x=1');
});

test('a role opening a screen outside its list lands on its landing screen, with its sidebar', async () => {
  signInAs('analytics_user');
  const { router } = renderApp('/admin/organizations');
  expect(await screen.findByRole('heading', { name: 'Analytics' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/analytics');
  const nav = screen.getByRole('navigation', { name: 'Main' });
  expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual([
    'Analytics', 'Line Analytics', 'Trace', 'Cycle Trace', 'Line Visibility', 'Issue Center', 'Kaizen Assistant',
  ]);
  expect(within(nav).getByRole('heading', { name: 'LEAN' })).toBeInTheDocument();
});

test('OPC, with its feature, opens the explorer', async () => {
  server.use(
    http.get(apiUrl('feature_control/subscribed_feature/'), () =>
      HttpResponse.json([{ id: 1, Feature: 4, Organization: 1, feature_name: 'OPCUA Explorer', is_suppressed: false }]),
    ),
  );
  signInAs('org_user');
  renderApp('/user/opc');
  expect(await screen.findByRole('heading', { name: 'OPC' })).toBeInTheDocument();
  expect(screen.getByRole('combobox', { name: 'Device' })).toBeInTheDocument();
  expect(screen.queryByText(/is not enabled for this organization/)).toBeNull();
});

test('the sidebar shows gated entries only with an unsuppressed subscription', async () => {
  server.use(
    http.get(apiUrl('feature_control/subscribed_feature/'), ({ request }) => {
      expect(new URL(request.url).searchParams.get('organization')).toBe('1');
      return HttpResponse.json([
        { id: 1, Feature: 3, Organization: 1, feature_name: 'Devices', is_suppressed: false },
        { id: 2, Feature: 6, Organization: 1, feature_name: 'Pathfinder', is_suppressed: true },
      ]);
    }),
  );
  signInAs('org_admin');
  renderApp('/user/home');
  const nav = await screen.findByRole('navigation', { name: 'Main' });
  await within(nav).findByRole('link', { name: 'Devices' });
  expect(within(nav).queryByRole('link', { name: 'OPC' })).toBeNull();
  expect(within(nav).queryByText('Pathfinder')).toBeNull();
  expect(within(nav).getByRole('link', { name: 'Users' })).toBeInTheDocument();
});

test('a direct visit to a subscription-gated screen needs the feature (section 6)', async () => {
  server.use(
    http.get(apiUrl('feature_control/subscribed_feature/'), () =>
      HttpResponse.json([
        { id: 1, Feature: 3, Organization: 1, feature_name: 'Devices', is_suppressed: false },
        { id: 2, Feature: 5, Organization: 1, feature_name: 'OPCUA Explorer', is_suppressed: true },
      ]),
    ),
    http.get(apiUrl('device/7/device_details/'), () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
  );
  signInAs('org_admin');
  // As in the browser build (StrictMode runs effects twice): told once why.
  const opc = renderApp('/user/opc', undefined, { strict: true });
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(opc.router.state.location.pathname).toBe('/user/home');
  expect(await screen.findByText('OPCUA Explorer is not enabled for this organization.')).toBeInTheDocument();
  expect(screen.getAllByText('OPCUA Explorer is not enabled for this organization.')).toHaveLength(1);
  expect(screen.getByText('Its screens open once the organisation subscribes to it.')).toBeInTheDocument();
  opc.unmount();

  const device = renderApp('/user/devices/7');
  expect(await screen.findByRole('heading', { name: /Device/ })).toBeInTheDocument();
  expect(device.router.state.location.pathname).toBe('/user/devices/7');
});

test('a failed subscription lookup refuses the gated screen', async () => {
  server.use(http.get(apiUrl('feature_control/subscribed_feature/'), () => HttpResponse.json({ detail: 'You do not have permission to perform this action.' }, { status: 403 })));
  signInAs('org_user');
  const { router } = renderApp('/user/process');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
});

test('the workstation user sees no landing page and no menu', async () => {
  signInAs('workstation_user');
  const { router } = renderApp('/user/home');
  expect(await screen.findByRole('heading', { name: 'Tess' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/');
  expect(screen.queryByRole('navigation')).toBeNull();
  expect(screen.getByRole('button', { name: 'Log out' })).toBeInTheDocument();
});

test('trace/{traceId} opens the cycle-trace screen, keeping the query', async () => {
  signInAs('org_user');
  const { router } = renderApp('/user/trace/T-9?from=1&to=2');
  expect(await screen.findByRole('heading', { name: 'Cycle Trace' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/cycle-trace/T-9');
  expect(router.state.location.search).toBe('?from=1&to=2');
});

test('a signed-in user is bounced from the login page to the landing screen', async () => {
  signInAs('doc_user');
  const { router } = renderApp('/login');
  expect(await screen.findByRole('heading', { name: 'User Manuals' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/user-manual');
});

test('unknown paths show the not-found screen', async () => {
  renderApp('/no/such/page');
  expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
});

test('a screen whose chunk fails to load shows the error screen', async () => {
  const routes: RouteObject[] = [
    {
      path: '/',
      errorElement: <ErrorScreen />,
      lazy: lazyScreen(() => new Promise((_, reject) => setTimeout(() => reject(new Error('net::ERR_FAILED')), 5)), 50),
    },
  ];
  render(<RouterProvider router={createMemoryRouter(routes)} />);
  await waitFor(() => expect(screen.getByRole('heading', { name: 'This screen could not be loaded' })).toBeInTheDocument());
  expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
});

test('logout from a screen clears local storage and shows the login, remembering nothing', async () => {
  server.use(http.patch(apiUrl('account/logout/'), () => HttpResponse.json({ msg: 'Logged out successfully.' })));
  signInAs('org_admin');
  const { router } = renderApp('/user/devices');
  await userEvent.setup().click(await screen.findByRole('button', { name: 'Log out' }));
  expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/login');
  expect(localStorage.length).toBe(0);
  expect(getRedirectUrl()).toBeNull();
});
