import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { ArchivedCycle, Organization } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const org = (id: number, display: string): Organization => ({
  id,
  name: display.toLowerCase().replace(/\s+/g, '-'),
  org_name_to_display: display,
  use_proxy_server: false,
  created_at: 0,
});

const archived = (id: string, organization: number, extra: Partial<ArchivedCycle> = {}): ArchivedCycle => ({
  id,
  organization,
  organization_name: organization === 1 ? 'ACME' : 'Globex',
  task: 4,
  task_name: 'Assemble pump',
  device: 7,
  device_name: 'Bench 7',
  start_datetime: '2026-11-25T09:00:00.000Z',
  end_datetime: '2026-11-25T09:00:42.000Z',
  good: false,
  archived_at_ms: Date.UTC(2026, 10, 25, 12),
  archived_by: 'eng@acme.test',
  reason: 'A trial run',
  ...extra,
});

beforeEach(() => signInAs('admin', null));

test("the super admin lists archived cycles, one organisation's or all, restores one and deletes another after a confirmation", async () => {
  let rows = [archived('c-1', 1), archived('c-2', 2, { reason: 'Camera moved', good: true })];
  const asked: (string | null)[] = [];
  const restored: string[] = [];
  const deleted: string[] = [];
  server.use(
    http.get(apiUrl('organization/'), () => HttpResponse.json([org(1, 'ACME'), org(2, 'Globex')])),
    http.get(apiUrl('telemetry/archive_cycle/'), ({ request }) => {
      const o = new URL(request.url).searchParams.get('organization');
      asked.push(o);
      const hits = rows.filter((r) => o === null || r.organization === Number(o));
      return HttpResponse.json({ results: hits, count: hits.length });
    }),
    http.delete(apiUrl('telemetry/archived_cycle/:id'), ({ params }) => {
      restored.push(String(params.id));
      rows = rows.filter((r) => r.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
    http.delete(apiUrl('telemetry/cycle/:id/'), ({ params }) => {
      deleted.push(String(params.id));
      rows = rows.filter((r) => r.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/admin/archived-cycles');
  const table = await screen.findByRole('table', { name: 'Archived cycles' });
  const shown = tableRows(table);
  expect(shown).toHaveLength(2);
  expect(shown[0]!.slice(0, 3)).toEqual(['ACME', 'Assemble pump', 'Bench 7']);
  expect(shown[0]![3]).toMatch(/, 42\.0 s$/);
  expect(shown[0]![4]).toBe('Bad');
  expect(shown[0]![5]).toContain('by eng@acme.test');
  expect(shown[1]![6]).toBe('Camera moved');
  // One organisation's.
  await user.selectOptions(screen.getByLabelText('Organization'), 'Globex');
  await waitFor(() => expect(asked).toContain('2'));
  await waitFor(() => expect(tableRows(screen.getByRole('table', { name: 'Archived cycles' }))).toHaveLength(1));
  await user.selectOptions(screen.getByLabelText('Organization'), 'All organizations');
  await waitFor(() => expect(tableRows(screen.getByRole('table', { name: 'Archived cycles' }))).toHaveLength(2));
  // Restore: at once.
  await user.click(screen.getAllByRole('button', { name: /^Restore Assemble pump ended/ })[0]!);
  await waitFor(() => expect(restored).toEqual(['c-1']));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(screen.getByRole('table', { name: 'Archived cycles' }))).toHaveLength(1));
  // Delete: only after the confirmation; cancelling deletes nothing.
  await user.click(screen.getByRole('button', { name: /^Delete Assemble pump ended/ }));
  let dialog = await screen.findByRole('dialog', { name: 'Delete the cycle?' });
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(deleted).toEqual([]);
  await user.click(screen.getByRole('button', { name: /^Delete Assemble pump ended/ }));
  dialog = await screen.findByRole('dialog', { name: 'Delete the cycle?' });
  expect(dialog).toHaveTextContent('of Globex is deleted for good');
  await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(deleted).toEqual(['c-2']));
  expect(await screen.findByText('No archived cycles.')).toBeInTheDocument();
});

test('a refused restore says so and keeps the row', async () => {
  server.use(
    http.get(apiUrl('organization/'), () => HttpResponse.json([org(1, 'ACME')])),
    http.get(apiUrl('telemetry/archive_cycle/'), () => HttpResponse.json({ results: [archived('c-1', 1)], count: 1 })),
    http.delete(apiUrl('telemetry/archived_cycle/:id'), () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
  );
  const user = userEvent.setup();
  renderApp('/admin/archived-cycles');
  await user.click(await screen.findByRole('button', { name: /^Restore Assemble pump ended/ }));
  expect(await screen.findByRole('table', { name: 'Archived cycles' })).toBeInTheDocument();
  expect(screen.queryByText('Data updated successfully!')).toBeNull();
  await waitFor(() => expect(document.querySelector('[data-sonner-toast][data-type="error"]')).not.toBeNull());
});
