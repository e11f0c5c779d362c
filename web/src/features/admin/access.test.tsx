import { screen } from '@testing-library/react';

import type { Role } from '@/api/generated';
import { recordCalls, screenCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';

const SCREENS = ['/admin/organizations', '/admin/users', '/admin/roles', '/admin/pending-users', '/admin/model-versions', '/admin/model-types'];

/** Role, landing, its heading, and the calls the landing screen itself makes. */
const OTHERS: [Role, string, string, string[]][] = [
  ['org_admin', '/user/home', 'Dashboard', ['telemetry/cycle_stats']],
  ['support_user', '/user/home', 'Dashboard', ['telemetry/cycle_stats']],
  ['org_user', '/user/home', 'Dashboard', ['telemetry/cycle_stats']],
  ['analytics_user', '/user/analytics', 'Analytics', ['telemetry/cycle_stats']],
  ['labeler', '/labeler/tasks', 'Operations Requested', ['labeler/tasks/']],
];

test.each(OTHERS)('%s is refused the admin screens: sent to its landing, no admin call made', async (role, landing, heading, own) => {
  for (const path of SCREENS) {
    signInAs(role, role === 'labeler' ? null : 1);
    const rec = recordCalls();
    const { router, unmount } = renderApp(path);
    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(landing);
    expect(screenCalls(rec).filter((c) => !own.includes(c.path))).toEqual([]);
    unmount();
  }
});

test('signed out, an admin screen asks for the login first', async () => {
  const rec = recordCalls();
  const { router } = renderApp('/admin/pending-users');
  expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/login');
  expect(screenCalls(rec)).toEqual([]);
});
