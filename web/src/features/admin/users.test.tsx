import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { LoginAttempts, UserSummary } from '@/api/generated';
import { callsTo, fail, firstColumn, jsonHandler, ok, recordCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { orgsHandler, person, rolesHandler, usersHandler } from './fixtures';

const USERS: UserSummary[] = [
  person(5, 'Tess', { role: 'admin', Organization: null, email: 'tess@acme.test' }),
  person(6, 'Olga', { role: 'org_admin' }),
  person(7, 'Paul', { Organization: 2, is_email_verified: false }),
  person(8, 'Nina', { role: null, is_active: false, is_approved: false, Organization: null }),
  ...Array.from({ length: 10 }, (_, i) => person(20 + i, `Worker${i}`, { role: 'workstation_user' })),
];

const noLockouts = http.get(apiUrl('account/lockout_list-delete/'), () => HttpResponse.json([]));

const usersTable = () => screen.findByRole('table', { name: 'Users' });
const rowOf = (t: HTMLElement, text: string) => within(t).getByRole('row', { name: new RegExp(text) });

beforeEach(() => signInAs('admin', null));

test('All Users lists every organisation\'s users with filters, search and paging in the address', async () => {
  const seen: URLSearchParams[] = [];
  server.use(usersHandler(() => USERS, seen), rolesHandler(), orgsHandler(), noLockouts);
  const user = userEvent.setup();
  const { router } = renderApp('/admin/users');

  const t = await usersTable();
  expect(firstColumn(t)).toHaveLength(10);
  const paul = rowOf(t, 'Paul Tester');
  await waitFor(() => expect(within(paul).getAllByRole('cell')[3]).toHaveTextContent('Globex'));
  expect(within(paul).getAllByRole('cell').map((c) => c.textContent).slice(0, 5)).toEqual([
    'Paul Tester', 'paul@example.test', 'Organization User', 'Globex', 'Active',
  ]);
  expect(within(rowOf(t, 'Nina')).getAllByRole('cell')[4]).toHaveTextContent('Awaiting approval');
  expect(within(rowOf(t, 'Tess')).getAllByRole('cell')[3]).toHaveTextContent('—');
  expect(screen.getByText('Page 1 of 2 (14 entries)')).toBeInTheDocument();
  expect(seen[0]?.toString()).toBe('page=1&is_admin=true');

  await user.click(screen.getByRole('button', { name: 'Next' }));
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Users' }))).toHaveLength(4));
  expect(router.state.location.search).toBe('?page=2');

  await user.selectOptions(screen.getByLabelText('Role'), 'Organization User');
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Users' }))).toEqual(['Paul Tester']));
  expect(router.state.location.search).toBe('?role__name=org_user');
  await user.selectOptions(screen.getByLabelText('Role'), 'All roles');
  await user.selectOptions(screen.getByLabelText('Status'), 'Inactive');
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Users' }))).toEqual(['Nina Tester']));
  await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'nobody');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  expect(await screen.findByText('No user matches these filters.')).toBeInTheDocument();
  expect(router.state.location.search).toBe('?is_active=false&search=nobody');

  const queries = seen.map((q) => q.toString());
  expect(queries).toContain('page=2&is_admin=true');
  expect(queries).toContain('page=1&is_admin=true&role__name=org_user');
  expect(queries).toContain('page=1&is_admin=true&is_active=false');
  expect(queries[queries.length - 1]).toBe('page=1&is_admin=true&is_active=false&search=nobody');
});

test('the e-mail-verified flag is set from the list', async () => {
  const rows = USERS.slice(0, 4).map((u) => ({ ...u }));
  const bodies: unknown[] = [];
  server.use(
    usersHandler(() => rows),
    rolesHandler(),
    orgsHandler(),
    noLockouts,
    jsonHandler('patch', 'account/admin-verification-email/7/', bodies, () => {
      rows[2]!.is_email_verified = true;
      return ok(rows[2]);
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/users');
  const t = await usersTable();
  const box = within(rowOf(t, 'Paul')).getByRole('checkbox', { name: 'E-mail verified: Paul Tester' });
  expect(box).not.toBeChecked();
  await user.click(box);
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(bodies).toEqual([{ is_email_verified: true }]);
  await waitFor(() => expect(within(rowOf(screen.getByRole('table', { name: 'Users' }), 'Paul')).getByRole('checkbox')).toBeChecked());
});

test('a refused flag change shows the section 8 message and the box stays as it was', async () => {
  server.use(
    usersHandler(() => USERS.slice(0, 4)),
    rolesHandler(),
    orgsHandler(),
    noLockouts,
    http.patch(apiUrl('account/admin-verification-email/7/'), () => fail(404, { detail: 'Not found.', msg: 'Not found.' })),
  );
  const user = userEvent.setup();
  renderApp('/admin/users');
  const t = await usersTable();
  await user.click(within(rowOf(t, 'Paul')).getByRole('checkbox'));
  expect(await screen.findByText('Not found.')).toBeInTheDocument();
  expect(within(rowOf(t, 'Paul')).getByRole('checkbox')).not.toBeChecked();
});

test('an organisation is assigned from the list; none chosen sends nothing; a failure shows the spec message', async () => {
  const bodies: unknown[] = [];
  let answer = () => ok({ msg: 'Organization assigned successfully!' });
  server.use(
    usersHandler(() => USERS.slice(0, 4)),
    rolesHandler(),
    orgsHandler(),
    noLockouts,
    jsonHandler('put', 'account/assign_user_org', bodies, () => answer()),
  );
  const user = userEvent.setup();
  renderApp('/admin/users');
  const t = await usersTable();
  // Not for the super admin, nor for an account not yet approved.
  expect(within(rowOf(t, 'Tess')).queryByRole('button', { name: /Assign/ })).toBeNull();
  expect(within(rowOf(t, 'Nina')).queryByRole('button', { name: /Assign/ })).toBeNull();

  await user.click(within(rowOf(t, 'Paul')).getByRole('button', { name: 'Assign organization to Paul Tester' }));
  const dialog = screen.getByRole('dialog', { name: 'Assign an organization to Paul Tester' });
  await within(dialog).findByRole('option', { name: 'ACME' });
  await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
  expect(within(dialog).getByText('Organization is required!')).toBeInTheDocument();
  expect(bodies).toEqual([]);

  answer = () => fail(500, { detail: 'Internal server error.', msg: 'Internal server error.' });
  await user.selectOptions(within(dialog).getByLabelText('Organization'), 'ACME');
  await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
  expect(await screen.findByText('Error occured while setting the organisation')).toBeInTheDocument();
  expect(screen.getByText('Internal server error.')).toBeInTheDocument();

  answer = () => ok({ msg: 'Organization assigned successfully!' });
  await user.click(within(dialog).getByRole('button', { name: 'Assign' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(bodies).toEqual([
    { email: 'paul@example.test', organization: 1 },
    { email: 'paul@example.test', organization: 1 },
  ]);
  expect(screen.queryByRole('dialog')).toBeNull();
});

test('a user is deleted after confirming; the server\'s detail shows when it refuses; no delete for oneself', async () => {
  const rec = recordCalls();
  let rows = USERS.slice(0, 4);
  server.use(
    usersHandler(() => rows),
    rolesHandler(),
    orgsHandler(),
    noLockouts,
    http.delete(apiUrl('account/update-delete/6/'), () =>
      fail(409, { detail: 'The last super admin cannot be deleted.', msg: 'The last super admin cannot be deleted.' }),
    ),
    http.delete(apiUrl('account/update-delete/7/'), () => {
      rows = rows.filter((u) => u.id !== 7);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/users');
  const t = await usersTable();
  expect(within(rowOf(t, 'Tess')).queryByRole('button', { name: /Delete/ })).toBeNull();

  await user.click(within(rowOf(t, 'Olga')).getByRole('button', { name: 'Delete Olga Tester' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete user' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('The last super admin cannot be deleted.')).toBeInTheDocument();
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }));

  await user.click(within(rowOf(t, 'Paul')).getByRole('button', { name: 'Delete Paul Tester' }));
  expect(screen.getByRole('dialog')).toHaveTextContent('paul@example.test');
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Users' }))).not.toContain('Paul Tester'));
  expect(callsTo(rec, 'DELETE', 'account/update-delete/7/')).toHaveLength(1);
});

test('the lockout list shows locked addresses and lifts a lockout', async () => {
  const until = new Date(2026, 6, 1, 12, 0, 30).getTime();
  let locked: LoginAttempts[] = [{ email: 'eve@example.test', failures: 5, first_failure_at: until - 90_000, locked_until: until }];
  const rec = recordCalls();
  server.use(
    usersHandler(() => USERS.slice(0, 1)),
    rolesHandler(),
    orgsHandler(),
    http.get(apiUrl('account/lockout_list-delete/'), () => HttpResponse.json(locked)),
    http.delete(apiUrl('account/lockout_list-delete/'), () => {
      locked = [];
      return HttpResponse.json({ msg: 'Data deleted successfully!' });
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/users');
  const t = await screen.findByRole('table', { name: 'Locked-out addresses' });
  expect(within(t).getAllByRole('row')[1]!.textContent).toBe('eve@example.test507/01/26, 12:00:30Unlock');
  await user.click(within(t).getByRole('button', { name: 'Unlock eve@example.test' }));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  expect(await screen.findByText('No address is locked out.')).toBeInTheDocument();
  expect(callsTo(rec, 'DELETE', 'account/lockout_list-delete/')[0]!.query.get('user')).toBe('eve@example.test');
});
