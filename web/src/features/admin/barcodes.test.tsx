import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Barcode, Page, Task } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { valueProblem } from './components/barcodes-screen';
import { ORGS, orgsHandler } from './fixtures';

/** The server as the tests need it: barcodes of organisation 1, one task "Pump" (7). */
let rows: Barcode[];
let calls: string[];
let nextId: number;
beforeEach(() => {
  nextId = 3;
  calls = [];
  rows = [
    { id: 1, barcode_value: 'LOT-42', organization: 1, tasks: [{ id: 9, task: 7, task_name: 'Pump' }] },
    { id: 2, barcode_value: 'KIT-7', organization: 1, tasks: [] },
  ];
  const barcode = (id: number) => rows.find((r) => r.id === id);
  server.use(
    orgsHandler(),
    http.get(apiUrl('account/barcode/:org'), ({ params }) => HttpResponse.json(rows.filter((r) => String(r.organization) === params.org))),
    http.post(apiUrl('account/barcode/:org'), ({ params }) => {
      calls.push(`generate ${String(params.org)}`);
      const b = { id: nextId++, barcode_value: 'GB-ABCD2345', organization: Number(params.org), tasks: [] };
      rows = [...rows, b];
      return HttpResponse.json(b, { status: 201 });
    }),
    http.put(apiUrl('account/create_custom_barcode/'), async ({ request }) => {
      const body = (await request.json()) as { barcode_value: string; organization: number };
      calls.push(`create ${body.barcode_value} in ${body.organization}`);
      if (rows.some((r) => r.barcode_value === body.barcode_value))
        return HttpResponse.json({ barcode_value: ['This organization already has a barcode with this value.'] }, { status: 400 });
      const b = { id: nextId++, barcode_value: body.barcode_value, organization: body.organization, tasks: [] };
      rows = [...rows, b];
      return HttpResponse.json(b, { status: 201 });
    }),
    http.patch(apiUrl('account/update_barcode_value/'), async ({ request }) => {
      const body = (await request.json()) as { id: number; barcode_value: string };
      calls.push(`value ${body.id} ${body.barcode_value}`);
      rows = rows.map((r) => (r.id === body.id ? { ...r, barcode_value: body.barcode_value } : r));
      return HttpResponse.json(barcode(body.id));
    }),
    http.delete(apiUrl('account/barcode/:id'), ({ params }) => {
      calls.push(`delete ${String(params.id)}`);
      if (params.id === '1') return HttpResponse.json({ detail: 'Not found.', msg: 'Not found.' }, { status: 404 });
      rows = rows.filter((r) => String(r.id) !== params.id);
      return HttpResponse.json({ msg: 'Barcode deleted successfully' });
    }),
    http.get(apiUrl('organization/tasks/admin'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      calls.push(`tasks of ${q.get('organization')} ${q.get('search') ?? ''}`.trim());
      const all = [{ id: 7, taskName: 'Pump' }, { id: 8, taskName: 'Valve' }] as Task[];
      const results = all.filter((t) => t.taskName.toLowerCase().includes((q.get('search') ?? '').toLowerCase()));
      return HttpResponse.json({ results, count: results.length } satisfies Page<Task>);
    }),
    http.post(apiUrl('account/associate_barcode/'), async ({ request }) => {
      const body = (await request.json()) as { task: number; barcode_id: number };
      calls.push(`associate ${body.barcode_id} with ${body.task}`);
      if (body.task === 7 && body.barcode_id === 2)
        return HttpResponse.json({ barcode_id: ['This barcode already starts the operation Pump.'] }, { status: 400 });
      rows = rows.map((r) => (r.id === body.barcode_id ? { ...r, tasks: [{ id: 10, task: body.task, task_name: 'Valve' }] } : r));
      return HttpResponse.json({ id: 10, task: body.task, barcode: barcode(body.barcode_id)!.barcode_value, barcode_id: body.barcode_id }, { status: 201 });
    }),
    http.delete(apiUrl('account/associate_barcode/:id/'), ({ params }) => {
      calls.push(`unlink ${String(params.id)}`);
      rows = rows.map((r) => ({ ...r, tasks: r.tasks.filter((t) => String(t.id) !== params.id) }));
      return HttpResponse.json({ msg: 'Barcode removed successfully' });
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Barcodes' });

test('an organisation is chosen first; its barcodes show with the operation each starts', async () => {
  const user = userEvent.setup();
  renderApp('/admin/barcode');
  expect(await screen.findByText('Choose an organization to see its barcodes.')).toBeInTheDocument();
  await user.selectOptions(await screen.findByRole('combobox', { name: 'Organization' }), String(ORGS[0]!.id));
  await waitFor(() =>
    expect(tableRows(table())).toEqual([
      ['LOT-42', 'Pump', 'Edit Remove from operation Delete'],
      ['KIT-7', '—', 'Edit Associate Delete'],
    ]),
  );
});

test('adding: checked before sending, the server refusal under its title, a made-up value', async () => {
  const user = userEvent.setup();
  renderApp('/admin/barcode?organization=1');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  const field = screen.getByRole('textbox', { name: 'Barcode value' });

  await user.click(screen.getByRole('button', { name: 'Add' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Barcode value is required!');
  expect(calls).toEqual([]);

  await user.type(field, 'LOT-42');
  await user.click(screen.getByRole('button', { name: 'Add' }));
  expect(await screen.findByText('Unable to add barcode')).toBeInTheDocument();
  expect(screen.getAllByText('This organization already has a barcode with this value.').length).toBeGreaterThan(0);

  await user.clear(field);
  await user.type(field, '  BOX-1 ');
  await user.click(screen.getByRole('button', { name: 'Add' }));
  expect(await screen.findByText('Barcode added successfully')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(3));
  expect(field).toHaveValue('');

  await user.click(screen.getByRole('button', { name: 'Generate a barcode' }));
  await waitFor(() => expect(tableRows(table())).toHaveLength(4));
  expect(tableRows(table())[3]![0]).toBe('GB-ABCD2345');
  expect(calls).toEqual(['create LOT-42 in 1', 'create BOX-1 in 1', 'generate 1']);
});

test('a value is changed in place; a barcode is deleted after confirming, its failure said', async () => {
  const user = userEvent.setup();
  renderApp('/admin/barcode?organization=1');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));

  await user.click(screen.getByRole('button', { name: 'Edit KIT-7' }));
  const box = screen.getByRole('textbox', { name: 'Value of KIT-7' });
  await user.clear(box);
  await user.click(screen.getByRole('button', { name: 'Save KIT-7' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Barcode value is required!');
  await user.type(box, 'KIT-8');
  await user.click(screen.getByRole('button', { name: 'Save KIT-7' }));
  await waitFor(() => expect(tableRows(table())[1]![0]).toBe('KIT-8'));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();

  await user.click(screen.getByRole('button', { name: 'Delete KIT-8' }));
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Barcode deleted successfully')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));

  await user.click(screen.getByRole('button', { name: 'Delete LOT-42' }));
  await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Unable to delete barcode')).toBeInTheDocument();
  expect(calls).toEqual(['value 2 KIT-8', 'delete 2', 'delete 1']);
});

test('a barcode is associated with an operation found by name, and removed from it', async () => {
  const user = userEvent.setup();
  renderApp('/admin/barcode?organization=1');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));

  await user.click(screen.getByRole('button', { name: 'Associate KIT-7' }));
  const dialog = screen.getByRole('dialog', { name: 'Associate KIT-7' });
  await user.click(within(dialog).getByRole('button', { name: 'Associate' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('Operation is required!');
  // The server's refusal stays in the dialog.
  await user.selectOptions(await within(dialog).findByRole('combobox', { name: 'Operation' }), '7');
  await user.click(within(dialog).getByRole('button', { name: 'Associate' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('This barcode already starts the operation Pump.');
  expect(await screen.findByText('Unable to add barcode')).toBeInTheDocument();

  await user.type(within(dialog).getByRole('textbox', { name: 'Operation name' }), 'val');
  await user.click(within(dialog).getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(within(dialog).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose an operation…', 'Valve']));
  await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Operation' }), '8');
  await user.click(within(dialog).getByRole('button', { name: 'Associate' }));
  expect(await screen.findByText('Barcode added successfully')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())[1]).toEqual(['KIT-7', 'Valve', 'Edit Remove from operation Delete']));
  expect(screen.queryByRole('dialog')).toBeNull();

  await user.click(screen.getByRole('button', { name: 'Remove LOT-42 from Pump' }));
  expect(await screen.findByText('Barcode removed successfully')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())[0]).toEqual(['LOT-42', '—', 'Edit Associate Delete']));
  expect(calls.filter((c) => !c.startsWith('tasks'))).toEqual(['associate 2 with 7', 'associate 2 with 8', 'unlink 9']);
});

test('a value is 1 to 100 characters without control characters', () => {
  expect(valueProblem('  ')).toBe('Barcode value is required!');
  expect(valueProblem('x'.repeat(101))).toBe('Barcode value must be at most 100 characters.');
  expect(valueProblem('a\tb')).toBe('A barcode value cannot contain control characters (line breaks, tabs).');
  expect(valueProblem(' LOT-42 ')).toBeNull();
});
