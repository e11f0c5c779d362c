import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Page, Task } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { ORGS, adminTask, orgsHandler } from './fixtures';

const [acme, globex] = [ORGS[0]!, ORGS[1]!];
const TASKS: Task[] = [
  ...Array.from({ length: 11 }, (_, i) => adminTask(i + 1, `Pump ${i + 1}`, acme)),
  adminTask(40, 'Weld seam', globex, { train_status: 'trained', stepsCount: 3 }),
];

let seen: URLSearchParams[];
beforeEach(() => {
  seen = [];
  server.use(
    orgsHandler(),
    http.get(apiUrl('organization/tasks/admin'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      seen.push(q);
      const page = Number(q.get('page') ?? '1');
      const search = (q.get('search') ?? '').toLowerCase();
      const org = q.get('organization');
      const hits = TASKS.filter((t) => (org === null || String(t.Organization.id) === org) && t.taskName.toLowerCase().includes(search));
      return HttpResponse.json({ results: hits.slice((page - 1) * 10, page * 10), count: hits.length } satisfies Page<Task>);
    }),
  );
  signInAs('admin', null);
});

test("every organisation's operations, paged, searched, one organisation's, each linking to its videos", async () => {
  const user = userEvent.setup();
  const { router } = renderApp('/admin/tasks');
  const table = await screen.findByRole('table', { name: 'All operations' });
  await waitFor(() => expect(tableRows(table)).toHaveLength(10));
  expect(tableRows(table)[0]).toEqual(['Pump 1', 'ACME', '2', 'NEW TASK', formatDateTime(TASKS[0]!.created_at), 'Videos']);
  expect(screen.getByText('Page 1 of 2 (12 entries)')).toBeInTheDocument();

  await user.click(screen.getByRole('button', { name: 'Next' }));
  await waitFor(() => expect(tableRows(table).map((r) => r[0])).toEqual(['Pump 11', 'Weld seam']));
  expect(seen.at(-1)?.get('page')).toBe('2');

  await user.selectOptions(screen.getByRole('combobox', { name: 'Organization' }), String(globex.id));
  await waitFor(() => expect(tableRows(table)).toEqual([['Weld seam', 'Globex', '3', 'TRAINED', formatDateTime(TASKS[11]!.created_at), 'Videos']]));
  expect(seen.at(-1)?.get('organization')).toBe(String(globex.id));
  expect(seen.at(-1)?.get('page')).toBe('1');

  await user.selectOptions(screen.getByRole('combobox', { name: 'Organization' }), '');
  await user.type(screen.getByRole('searchbox', { name: 'Search operations' }), 'weld');
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(seen.at(-1)?.get('search')).toBe('weld'));
  expect(seen.at(-1)?.get('organization')).toBeNull();

  await user.click(await screen.findByRole('link', { name: 'Videos of Weld seam' }));
  await waitFor(() => expect(router.state.location.pathname).toBe('/admin/task-videos/40/Weld%20seam'));
});
