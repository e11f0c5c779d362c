import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Department, Organization, Page } from '@/api/generated';
import { callsTo, fail, firstColumn, jsonHandler, ok, recordCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const org = (id: number, display: string, extra: Partial<Organization> = {}): Organization => ({
  id,
  name: display.toLowerCase().replace(/\s+/g, '-'),
  org_name_to_display: display,
  use_proxy_server: false,
  created_at: new Date(2026, 0, 2, 3, 4, 5).getTime(),
  ...extra,
});

const ORGS = Array.from({ length: 23 }, (_, i) => org(i + 1, i === 0 ? 'ACME' : `Org ${i + 1}`));

/** `get_organizations` over `rows`: 10 a page, the search on both names, as the server. */
function orgsHandler(rows: () => Organization[]) {
  return http.get(apiUrl('organization/get_organizations'), ({ request }) => {
    const q = new URL(request.url).searchParams;
    const page = Number(q.get('page') ?? '1');
    const search = (q.get('search') ?? '').toLowerCase();
    const hits = rows().filter((o) => o.org_name_to_display.toLowerCase().includes(search) || o.name.includes(search));
    return HttpResponse.json({ results: hits.slice((page - 1) * 10, page * 10), count: hits.length } satisfies Page<Organization>);
  });
}

const table = () => screen.findByRole('table', { name: 'Organizations' });

beforeEach(() => signInAs('admin', null));

test('organisations are listed 10 a page, with paging and a search kept in the address', async () => {
  const rec = recordCalls();
  server.use(orgsHandler(() => ORGS));
  const user = userEvent.setup();
  const { router } = renderApp('/admin/organizations');

  const t = await table();
  expect(firstColumn(t)).toEqual(['ACME', 'Org 2', 'Org 3', 'Org 4', 'Org 5', 'Org 6', 'Org 7', 'Org 8', 'Org 9', 'Org 10']);
  const first = within(t).getAllByRole('row')[1]!;
  expect(within(first).getAllByRole('cell').map((c) => c.textContent).slice(0, 4)).toEqual(['ACME', 'acme', 'No', '01/02/26, 03:04:05']);
  expect(screen.getByText('Page 1 of 3 (23 entries)')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();

  await user.click(screen.getByRole('button', { name: 'Next' }));
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Organizations' }))[0]).toBe('Org 11'));
  expect(router.state.location.search).toBe('?page=2');
  await user.click(screen.getByRole('button', { name: 'Next' }));
  await screen.findByText('Page 3 of 3 (23 entries)');
  expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

  await user.type(screen.getByRole('searchbox', { name: 'Search organizations' }), 'org 2');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await screen.findByText('Page 1 of 1 (5 entries)');
  expect(router.state.location.search).toBe('?search=org+2');
  expect(firstColumn(screen.getByRole('table', { name: 'Organizations' }))).toEqual(['Org 2', 'Org 20', 'Org 21', 'Org 22', 'Org 23']);

  const lists = callsTo(rec, 'GET', 'organization/get_organizations').map((c) => c.query.toString());
  expect(lists).toEqual(['page=1', 'page=2', 'page=3', 'page=1&search=org+2']);
  expect(callsTo(rec, 'GET', 'organization/get_organizations')[0]!.headers.get('authorization')).toBe('Bearer tok');
});

test('a search matching nothing says so, and a page past the end moves to the last page', async () => {
  server.use(orgsHandler(() => ORGS));
  const { router } = renderApp('/admin/organizations?page=9');
  await screen.findByText('Page 3 of 3 (23 entries)');
  expect(router.state.location.search).toBe('?page=3');

  const user = userEvent.setup();
  await user.type(screen.getByRole('searchbox', { name: 'Search organizations' }), 'zzz');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  expect(await screen.findByText('No organization matches "zzz".')).toBeInTheDocument();
  expect(screen.queryByRole('table', { name: 'Organizations' })).toBeNull();
});

test('a list the server refuses shows why', async () => {
  server.use(
    http.get(apiUrl('organization/get_organizations'), () =>
      fail(403, { detail: 'You do not have permission to perform this action.', msg: 'You do not have permission to perform this action.' }),
    ),
  );
  renderApp('/admin/organizations');
  expect(await screen.findByRole('alert')).toHaveTextContent(
    'Organizations could not be loaded: You do not have permission to perform this action.',
  );
});

test('create: the display name is checked before sending, then created with a toast and the list reloads', async () => {
  const rows = [ORGS[0]!];
  const bodies: unknown[] = [];
  const rec = recordCalls();
  server.use(
    orgsHandler(() => rows),
    jsonHandler('post', 'organization/', bodies, () => {
      rows.push(org(2, 'Globex'));
      return ok(rows[1], 201);
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/organizations');
  await table();

  await user.click(screen.getByRole('button', { name: 'Create Organization' }));
  const dialog = screen.getByRole('dialog', { name: 'Create Organization' });
  expect(within(dialog).getByLabelText('Display name')).toHaveFocus();
  await user.click(within(dialog).getByRole('button', { name: 'Create' }));
  expect(within(dialog).getByText('Display name is required!')).toBeInTheDocument();
  await user.type(within(dialog).getByLabelText('Display name'), '   ');
  await user.click(within(dialog).getByRole('button', { name: 'Create' }));
  expect(within(dialog).getByText('Display name is required!')).toBeInTheDocument();
  await user.clear(within(dialog).getByLabelText('Display name'));
  // The input stops at the server's limit (the check itself: validate.test.ts).
  await user.type(within(dialog).getByLabelText('Display name'), 'x'.repeat(101));
  expect(within(dialog).getByLabelText('Display name')).toHaveValue('x'.repeat(100));
  expect(bodies).toEqual([]);

  await user.clear(within(dialog).getByLabelText('Display name'));
  await user.type(within(dialog).getByLabelText('Display name'), '  Globex ');
  await user.click(within(dialog).getByRole('button', { name: 'Create' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(bodies).toEqual([{ org_name_to_display: 'Globex', use_proxy_server: false }]);
  expect(screen.queryByRole('dialog')).toBeNull();
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Organizations' }))).toEqual(['ACME', 'Globex']));
  expect(callsTo(rec, 'GET', 'organization/get_organizations')).toHaveLength(2);
});

test('create: a name the server refuses shows its first field message and keeps the dialog', async () => {
  server.use(
    orgsHandler(() => [ORGS[0]!]),
    http.post(apiUrl('organization/'), () => fail(400, { name: ['organization with this name already exists.'] })),
  );
  const user = userEvent.setup();
  renderApp('/admin/organizations');
  await table();
  await user.click(screen.getByRole('button', { name: 'Create Organization' }));
  await user.type(screen.getByLabelText('Display name'), 'ACME');
  await user.click(screen.getByRole('button', { name: 'Create' }));
  expect(await screen.findByText('organization with this name already exists.')).toBeInTheDocument();
  expect(screen.getByRole('dialog', { name: 'Create Organization' })).toBeInTheDocument();
});

test('edit: display name and proxy server are changed; a blank name sends nothing', async () => {
  const rows = [ORGS[0]!];
  const bodies: unknown[] = [];
  server.use(
    orgsHandler(() => rows),
    jsonHandler('patch', 'organization/1/', bodies, () => {
      rows[0] = org(1, 'ACME Works', { name: 'acme', use_proxy_server: true });
      return ok(rows[0]);
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/organizations');
  await table();
  await user.click(screen.getByRole('button', { name: 'Edit ACME' }));
  const dialog = screen.getByRole('dialog', { name: 'Edit ACME' });
  const name = within(dialog).getByLabelText('Display name');
  expect(name).toHaveValue('ACME');
  expect(within(dialog).getByLabelText('Use proxy server')).not.toBeChecked();

  await user.clear(name);
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(within(dialog).getByText('Display name is required!')).toBeInTheDocument();
  expect(bodies).toEqual([]);

  await user.type(name, 'ACME Works');
  await user.click(within(dialog).getByLabelText('Use proxy server'));
  await user.click(within(dialog).getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(bodies).toEqual([{ org_name_to_display: 'ACME Works', use_proxy_server: true }]);
  const t = await table();
  await waitFor(() => expect(firstColumn(t)).toEqual(['ACME Works']));
  expect(within(t).getAllByRole('row')[1]).toHaveTextContent('Yes');
});

test('delete asks first; cancel sends nothing, confirm deletes with a toast', async () => {
  let rows = [ORGS[0]!, ORGS[1]!];
  const rec = recordCalls();
  server.use(
    orgsHandler(() => rows),
    http.delete(apiUrl('organization/1/'), () => {
      rows = rows.slice(1);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/organizations');
  await table();
  await user.click(screen.getByRole('button', { name: 'Delete ACME' }));
  const dialog = screen.getByRole('dialog', { name: 'Delete organization' });
  expect(dialog).toHaveTextContent('Delete ACME?');
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(callsTo(rec, 'DELETE', 'organization/1/')).toEqual([]);

  await user.click(screen.getByRole('button', { name: 'Delete ACME' }));
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'DELETE', 'organization/1/')).toHaveLength(1);
  await waitFor(() => expect(firstColumn(screen.getByRole('table', { name: 'Organizations' }))).toEqual(['Org 2']));
});

test('a failed delete shows the spec message with the server detail', async () => {
  server.use(
    orgsHandler(() => [ORGS[0]!]),
    http.delete(apiUrl('organization/1/'), () => fail(404, { detail: 'Not found.', msg: 'Not found.' })),
  );
  const user = userEvent.setup();
  renderApp('/admin/organizations');
  await table();
  await user.click(screen.getByRole('button', { name: 'Delete ACME' }));
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Error occured while deleting the organization!')).toBeInTheDocument();
  expect(screen.getByText('Not found.')).toBeInTheDocument();
  expect(screen.getByRole('dialog', { name: 'Delete organization' })).toBeInTheDocument();
});

test('departments of an organisation: listed, a blank name sends nothing, a new one is added', async () => {
  const deps: Department[] = [{ id: 1, organization: 1, name: 'Assembly' }];
  const bodies: unknown[] = [];
  server.use(
    orgsHandler(() => [ORGS[0]!]),
    http.get(apiUrl('organization/1/department/'), () => HttpResponse.json(deps)),
    jsonHandler('post', 'organization/1/department/', bodies, () => {
      const name = (bodies[bodies.length - 1] as { name: string }).name;
      if (deps.some((d) => d.name === name)) return fail(400, { name: ['department with this name already exists.'] });
      deps.push({ id: deps.length + 1, organization: 1, name });
      return ok(deps[deps.length - 1], 201);
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/organizations');
  await table();
  await user.click(screen.getByRole('button', { name: 'Departments of ACME' }));
  const dialog = screen.getByRole('dialog', { name: 'Departments of ACME' });
  const list = await within(dialog).findByRole('list', { name: 'Departments' });
  expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Assembly']);

  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(within(dialog).getByText('Department name is required!')).toBeInTheDocument();
  expect(bodies).toEqual([]);

  await user.type(within(dialog).getByLabelText('Department name'), ' Paint shop ');
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(bodies).toEqual([{ name: 'Paint shop' }]);
  await waitFor(() =>
    expect(within(within(dialog).getByRole('list', { name: 'Departments' })).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Assembly',
      'Paint shop',
    ]),
  );
  expect(within(dialog).getByLabelText('Department name')).toHaveValue('');

  await user.type(within(dialog).getByLabelText('Department name'), 'Assembly');
  await user.click(within(dialog).getByRole('button', { name: 'Add' }));
  expect(await screen.findByText('department with this name already exists.')).toBeInTheDocument();

  await user.keyboard('{Escape}');
  expect(screen.queryByRole('dialog')).toBeNull();
});
