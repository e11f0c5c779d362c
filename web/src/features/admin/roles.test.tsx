import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { RoleRecord } from '@/api/generated';
import { fail, jsonHandler, ok, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { ROLE_ROWS } from './fixtures';

beforeEach(() => signInAs('admin', null));

test('roles are listed with their labels', async () => {
  server.use(http.get(apiUrl('account/roles/'), () => HttpResponse.json(ROLE_ROWS.slice(0, 3))));
  renderApp('/admin/roles');
  const t = await screen.findByRole('table', { name: 'Roles' });
  expect(tableRows(t)).toEqual([
    ['1', 'admin', 'Super Admin'],
    ['2', 'org_admin', 'Organization Admin'],
    ['3', 'org_user', 'Organization User'],
  ]);
});

test('a role name is checked before sending: blank, unknown, already there', async () => {
  const bodies: unknown[] = [];
  server.use(
    http.get(apiUrl('account/roles/'), () => HttpResponse.json(ROLE_ROWS)),
    jsonHandler('post', 'account/roles/', bodies, () => ok({ id: 99, name: 'x' }, 201)),
  );
  const user = userEvent.setup();
  renderApp('/admin/roles');
  await screen.findByRole('table', { name: 'Roles' });
  const form = screen.getByRole('form', { name: 'Create Role' });
  const create = within(form).getByRole('button', { name: 'Create Role' });

  await user.click(create);
  expect(within(form).getByText('Role name is required!')).toBeInTheDocument();
  await user.type(within(form).getByLabelText('Role name'), 'boss');
  await user.click(create);
  expect(within(form).getByText(/^Unknown role "boss"\. A role is one of: admin, org_admin/)).toBeInTheDocument();
  await user.clear(within(form).getByLabelText('Role name'));
  await user.type(within(form).getByLabelText('Role name'), 'labeler');
  await user.click(create);
  expect(within(form).getByText('role with this name already exists.')).toBeInTheDocument();
  expect(within(form).getByLabelText('Role name')).toHaveAttribute('aria-invalid', 'true');
  expect(bodies).toEqual([]);
});

test('a missing role is restored with a toast and the list reloads; a server refusal shows its message', async () => {
  let rows: RoleRecord[] = ROLE_ROWS.filter((r) => r.name !== 'doc_user');
  const bodies: unknown[] = [];
  let refuse = true;
  server.use(
    http.get(apiUrl('account/roles/'), () => HttpResponse.json(rows)),
    jsonHandler('post', 'account/roles/', bodies, () => {
      if (refuse) return fail(400, { name: ['role with this name already exists.'] });
      rows = [...rows, { id: 10, name: 'doc_user' }];
      return ok(rows[rows.length - 1], 201);
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/roles');
  await screen.findByRole('table', { name: 'Roles' });
  await user.type(screen.getByLabelText('Role name'), ' doc_user ');
  await user.click(screen.getByRole('button', { name: 'Create Role' }));
  expect(await screen.findByText('role with this name already exists.')).toBeInTheDocument();

  refuse = false;
  await user.click(screen.getByRole('button', { name: 'Create Role' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(bodies).toEqual([{ name: 'doc_user' }, { name: 'doc_user' }]);
  await waitFor(() => expect(tableRows(screen.getByRole('table', { name: 'Roles' })).at(-1)).toEqual(['10', 'doc_user', 'Docs User']));
  expect(screen.getByLabelText('Role name')).toHaveValue('');
});
