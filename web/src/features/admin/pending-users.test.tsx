import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { UserSummary } from '@/api/generated';
import { callsTo, fail, jsonHandler, ok, recordCalls, screenCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { orgsHandler, person, rolesHandler, usersHandler } from './fixtures';

const pendingRow = (id: number, name: string, extra: Partial<UserSummary> = {}) =>
  person(id, name, { role: null, is_active: false, is_approved: false, Organization: null, ...extra });

const table = () => screen.findByRole('table', { name: 'Pending users' });

beforeEach(() => signInAs('admin', null));

test('pending users are the inactive accounts of every organisation, searchable and paged', async () => {
  const seen: URLSearchParams[] = [];
  const rows = [
    person(3, 'Active'),
    pendingRow(8, 'Nina', { is_email_verified: false }),
    ...Array.from({ length: 11 }, (_, i) => pendingRow(30 + i, `Waiting${i}`)),
  ];
  server.use(usersHandler(() => rows, seen));
  const user = userEvent.setup();
  const { router } = renderApp('/admin/pending-users');
  const t = await table();
  expect(within(t).getAllByRole('row')).toHaveLength(11);
  const nina = within(t).getByRole('row', { name: /Nina/ });
  expect(within(nina).getAllByRole('cell').map((c) => c.textContent).slice(0, 4)).toEqual([
    'Nina Tester', 'nina@example.test', 'No', '05/06/26, 07:08:09',
  ]);
  expect(screen.getByText('Page 1 of 2 (12 entries)')).toBeInTheDocument();
  expect(seen[0]?.toString()).toBe('page=1&is_admin=true&is_active=false');

  await user.click(screen.getByRole('button', { name: 'Next' }));
  await screen.findByText('Page 2 of 2 (12 entries)');
  await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'nina');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await screen.findByText('Page 1 of 1 (1 entry)');
  expect(router.state.location.search).toBe('?search=nina');
  expect(seen.map((q) => q.toString())).toEqual([
    'page=1&is_admin=true&is_active=false',
    'page=2&is_admin=true&is_active=false',
    'page=1&is_admin=true&is_active=false&search=nina',
  ]);
});

test('nobody waiting shows an honest empty state', async () => {
  server.use(usersHandler(() => []));
  renderApp('/admin/pending-users');
  expect(await screen.findByText('No user is waiting for approval.')).toBeInTheDocument();
});

test('approval is two steps: a role (approve_user), then an organisation (assign_user_org)', async () => {
  let rows = [pendingRow(8, 'Nina')];
  const approvals: unknown[] = [];
  const assignments: unknown[] = [];
  const rec = recordCalls();
  server.use(
    usersHandler(() => rows),
    rolesHandler(),
    orgsHandler(),
    jsonHandler('put', 'account/approve_user', approvals, () => {
      rows = [];
      return ok({ msg: 'User approved successfully!' });
    }),
    jsonHandler('put', 'account/assign_user_org', assignments, () => ok({ msg: 'Organization assigned successfully!' })),
  );
  const user = userEvent.setup();
  renderApp('/admin/pending-users');
  const t = await table();
  await user.click(within(t).getByRole('button', { name: 'Approve Nina Tester' }));
  const dialog = screen.getByRole('dialog', { name: 'Approve Nina Tester' });
  expect(within(dialog).getByText('1. Role')).toHaveAttribute('aria-current', 'step');

  // Step 1 without a role sends nothing.
  await within(dialog).findByRole('option', { name: 'Organization User' });
  await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
  expect(within(dialog).getByText('Role is required!')).toBeInTheDocument();
  expect(approvals).toEqual([]);

  await user.selectOptions(within(dialog).getByLabelText('Role'), 'Organization User');
  await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
  expect(await screen.findByText('User approved successfully!')).toBeInTheDocument();
  expect(approvals).toEqual([{ email: 'nina@example.test', roleId: 3 }]);

  // Step 2: the organisation; none chosen sends nothing.
  expect(within(dialog).getByText('2. Organization')).toHaveAttribute('aria-current', 'step');
  expect(dialog).toHaveTextContent('Nina Tester is approved as Organization User. They can sign in once an organization is assigned.');
  await within(dialog).findByRole('option', { name: 'Globex' });
  await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
  expect(within(dialog).getByText('Organization is required!')).toBeInTheDocument();
  expect(assignments).toEqual([]);

  await user.selectOptions(within(dialog).getByLabelText('Organization'), 'Globex');
  await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(assignments).toEqual([{ email: 'nina@example.test', organization: 2 }]);
  expect(screen.queryByRole('dialog')).toBeNull();
  // Approved: no longer pending.
  expect(await screen.findByText('No user is waiting for approval.')).toBeInTheDocument();
  const order = screenCalls(rec).filter((c) => c.method === 'PUT').map((c) => c.path);
  expect(order).toEqual(['account/approve_user', 'account/assign_user_org']);
});

test('a failed approval shows "Error in Approving User" with the server\'s message and stays on step 1', async () => {
  server.use(
    usersHandler(() => [pendingRow(8, 'Nina')]),
    rolesHandler(),
    orgsHandler(),
    http.put(apiUrl('account/approve_user'), () => fail(400, { roleId: ['Unknown role.'] })),
  );
  const user = userEvent.setup();
  renderApp('/admin/pending-users');
  await user.click(within(await table()).getByRole('button', { name: 'Approve Nina Tester' }));
  const dialog = screen.getByRole('dialog');
  await within(dialog).findByRole('option', { name: 'Labeler' });
  await user.selectOptions(within(dialog).getByLabelText('Role'), 'Labeler');
  await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
  expect(await screen.findByText('Error in Approving User')).toBeInTheDocument();
  expect(screen.getByText('Unknown role.')).toBeInTheDocument();
  expect(within(dialog).getByText('1. Role')).toHaveAttribute('aria-current', 'step');
  expect(screen.queryByText('User approved successfully!')).toBeNull();
});

test('a failed assignment shows the spec message, stays on step 2, and "Later" closes', async () => {
  const rec = recordCalls();
  server.use(
    usersHandler(() => [pendingRow(8, 'Nina', { is_email_verified: false })]),
    rolesHandler(),
    orgsHandler(),
    http.put(apiUrl('account/approve_user'), () => HttpResponse.json({ msg: 'User approved successfully!' })),
    http.put(apiUrl('account/assign_user_org'), () => fail(400, { organization: ['Unknown organization.'] })),
  );
  const user = userEvent.setup();
  renderApp('/admin/pending-users');
  await user.click(within(await table()).getByRole('button', { name: 'Approve Nina Tester' }));
  const dialog = screen.getByRole('dialog');
  expect(dialog).toHaveTextContent('has not verified this address yet');
  await within(dialog).findByRole('option', { name: 'Super Admin' });
  await user.selectOptions(within(dialog).getByLabelText('Role'), 'Super Admin');
  await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
  expect(await within(dialog).findByText(/This role works without an organization/)).toBeInTheDocument();

  await within(dialog).findByRole('option', { name: 'ACME' });
  await user.selectOptions(within(dialog).getByLabelText('Organization'), 'ACME');
  await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
  expect(await screen.findByText('Error occured while setting the organisation')).toBeInTheDocument();
  expect(screen.getByText('Unknown organization.')).toBeInTheDocument();
  expect(within(dialog).getByText('2. Organization')).toHaveAttribute('aria-current', 'step');

  await user.click(within(dialog).getByRole('button', { name: 'Later' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(callsTo(rec, 'PUT', 'account/assign_user_org')).toHaveLength(1);
});
