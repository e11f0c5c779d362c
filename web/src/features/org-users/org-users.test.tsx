import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Page, RoleRecord, UserSummary } from '@/api/generated';
import { ROLES } from '@/lib/access/roles';
import { callsTo, fail, jsonHandler, ok, recordCalls, screenCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const roles: RoleRecord[] = ROLES.map((name, i) => ({ id: i + 1, name }));

const member = (id: number, name: string, role: string, extra: Partial<UserSummary> = {}): UserSummary => ({
  id,
  email: `${name.toLowerCase()}@acme.test`,
  name,
  lastname: 'Acme',
  username: name,
  role,
  is_active: true,
  is_email_verified: true,
  is_approved: true,
  Organization: 1,
  created_at: new Date(2026, 1, 3, 4, 5, 6).getTime(),
  ...extra,
});

const MEMBERS = [
  member(5, 'Tess', 'org_admin'),
  member(6, 'Olga', 'org_user'),
  member(7, 'Wes', 'workstation_user'),
  ...Array.from({ length: 9 }, (_, i) => member(20 + i, `Op${i}`, 'org_user')),
];

function usersHandler(rows: () => UserSummary[], seen: URLSearchParams[] = []) {
  return http.get(apiUrl('account/users_list/v2'), ({ request }) => {
    const q = new URL(request.url).searchParams;
    seen.push(q);
    const page = Number(q.get('page') ?? '1');
    const s = (q.get('search') ?? '').toLowerCase();
    const hits = rows().filter(
      (u) => (q.get('role__name') === null || u.role === q.get('role__name')) && `${u.name} ${u.email}`.toLowerCase().includes(s),
    );
    return HttpResponse.json({ results: hits.slice((page - 1) * 10, page * 10), count: hits.length } satisfies Page<UserSummary>);
  });
}
const rolesHandler = http.get(apiUrl('account/roles/'), () => HttpResponse.json(roles));

const table = () => screen.findByRole('table', { name: 'Users' });
const rowOf = (t: HTMLElement, name: string) => within(t).getByRole('row', { name: new RegExp(name) });

test("an org admin sees their organisation's users, filtered and paged, in the organisation's scope", async () => {
  signInAs('org_admin', 1);
  const seen: URLSearchParams[] = [];
  const rec = recordCalls();
  server.use(usersHandler(() => MEMBERS, seen), rolesHandler);
  const user = userEvent.setup();
  const { router } = renderApp('/user/org-users');
  expect(await screen.findByRole('heading', { name: 'Users' })).toBeInTheDocument();
  const t = await table();
  expect(within(t).getAllByRole('row')).toHaveLength(11);
  expect(within(rowOf(t, 'Olga')).getAllByRole('cell').map((c) => c.textContent).slice(0, 5)).toEqual([
    'Olga Acme', 'olga@acme.test', 'Organization User', 'Active', '02/03/26, 04:05:06',
  ]);
  expect(screen.getByText('Page 1 of 2 (12 entries)')).toBeInTheDocument();
  // The organisation's list: no is_admin; the organisation travels in the header.
  expect(seen[0]?.toString()).toBe('page=1');
  const call = callsTo(rec, 'GET', 'account/users_list/v2')[0]!;
  expect(call.headers.get('organization')).toBe('1');

  await user.selectOptions(screen.getByLabelText('Role'), 'Workstation User');
  await waitFor(() => expect(within(screen.getByRole('table', { name: 'Users' })).getAllByRole('row')).toHaveLength(2));
  expect(router.state.location.search).toBe('?role__name=workstation_user');
  await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'zed');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  expect(await screen.findByText('No user matches these filters.')).toBeInTheDocument();
  expect(seen.at(-1)?.toString()).toBe('page=1&role__name=workstation_user&search=zed');
});

test('an org admin deletes a member after confirming (not themselves); a refusal shows the detail', async () => {
  signInAs('org_admin', 1);
  let rows = MEMBERS.slice(0, 3);
  server.use(
    usersHandler(() => rows),
    rolesHandler,
    http.delete(apiUrl('account/update-delete/6/'), () => {
      rows = rows.filter((u) => u.id !== 6);
      return new HttpResponse(null, { status: 204 });
    }),
    http.delete(apiUrl('account/update-delete/7/'), () =>
      fail(403, { detail: 'You do not have permission to perform this action.', msg: 'You do not have permission to perform this action.' }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/user/org-users');
  const t = await table();
  expect(within(rowOf(t, 'Tess')).queryByRole('button', { name: /Delete/ })).toBeNull();

  await user.click(within(rowOf(t, 'Wes')).getByRole('button', { name: 'Delete Wes Acme' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete user' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('You do not have permission to perform this action.')).toBeInTheDocument();
  await user.keyboard('{Escape}');

  await user.click(within(rowOf(t, 'Olga')).getByRole('button', { name: 'Delete Olga Acme' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete user' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  await waitFor(() => expect(within(screen.getByRole('table', { name: 'Users' })).queryByText('Olga Acme')).toBeNull());
});

test("a workstation user's password: checked before sending, the server's rule shown, then saved", async () => {
  signInAs('support_user', 1);
  const bodies: unknown[] = [];
  let refuse = true;
  server.use(
    usersHandler(() => MEMBERS.slice(0, 3)),
    rolesHandler,
    jsonHandler('patch', 'account/reset_workstation_user_password/', bodies, () =>
      refuse
        ? fail(400, { password: ['This password is entirely numeric.'] })
        : ok({ msg: 'Your changes have been saved!' }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/user/org-users');
  const t = await table();
  // Only workstation users have a password set here.
  expect(within(rowOf(t, 'Olga')).queryByRole('button', { name: /Set password/ })).toBeNull();
  await user.click(within(rowOf(t, 'Wes')).getByRole('button', { name: 'Set password of Wes Acme' }));
  const dialog = screen.getByRole('dialog', { name: 'Set the password of Wes Acme' });

  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(within(dialog).getByText('Password is required!')).toBeInTheDocument();
  await user.type(within(dialog).getByLabelText('New password'), '12345678');
  await user.type(within(dialog).getByLabelText('Repeat the password'), '12345679');
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(within(dialog).getByText('The two passwords do not match.')).toBeInTheDocument();
  expect(bodies).toEqual([]);

  await user.clear(within(dialog).getByLabelText('Repeat the password'));
  await user.type(within(dialog).getByLabelText('Repeat the password'), '12345678');
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('This password is entirely numeric.')).toBeInTheDocument();

  refuse = false;
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Your changes have been saved!')).toBeInTheDocument();
  expect(bodies).toEqual([
    { user: 7, password: '12345678' },
    { user: 7, password: '12345678' },
  ]);
  expect(screen.queryByRole('dialog')).toBeNull();
});

test('roles that may only view (user, docs user) get the list without actions', async () => {
  signInAs('doc_user', 1);
  server.use(usersHandler(() => MEMBERS.slice(0, 3)), rolesHandler);
  renderApp('/user/org-users');
  const t = await table();
  expect(within(t).queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  expect(within(t).queryAllByRole('button')).toEqual([]);
});

test('a list error from the server is shown (section 8: the first message)', async () => {
  signInAs('user', 1);
  server.use(
    http.get(apiUrl('account/users_list/v2'), () => fail(400, { non_field_errors: ['User is not assigned to any organization'] })),
    rolesHandler,
  );
  renderApp('/user/org-users');
  expect(await screen.findByRole('alert')).toHaveTextContent('Users could not be loaded: User is not assigned to any organization');
});

test('roles without the Users screen are sent to their landing and call nothing', async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  const { router } = renderApp('/user/org-users');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
  // Only the dashboard's own figures.
  expect(screenCalls(rec).filter((c) => c.path !== 'telemetry/cycle_stats')).toEqual([]);
});
