import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { AdminLabeler, AnnotationProgress, Page } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { callsTo, fail, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { ORGS } from './fixtures';

const SAVED = new Date(2026, 10, 25, 16, 0, 0).getTime();

const op = (task: number, name: string, organization: number): AnnotationProgress => ({
  task,
  taskName: name,
  organization,
  org_name_to_display: organization === 1 ? 'ACME' : 'Globex',
  videos: 3,
  labelled_videos: 1,
  reviewed_videos: 0,
  to_review: 0,
  segments: 2,
  labelers: 0,
  last_change: null,
});

let labelers: AdminLabeler[];
beforeEach(() => {
  labelers = [
    {
      id: 11,
      name: 'Lab',
      lastname: 'One',
      email: 'lab@x.test',
      is_active: true,
      last_label_at: SAVED,
      assignments: [
        {
          task: 7,
          taskName: 'Pump',
          organization: 1,
          org_name_to_display: 'ACME',
          requested_at: SAVED,
          ready_videos: 3,
          labelled_videos: 2,
          labelled_by_labeler: 1,
        },
      ],
    },
    { id: 12, name: 'Idle', lastname: 'Two', email: 'idle@x.test', is_active: true, last_label_at: null, assignments: [] },
  ];
  server.use(
    http.get(apiUrl('organization/'), () => HttpResponse.json(ORGS)),
    http.get(apiUrl('admin/labelers/'), () => HttpResponse.json({ results: labelers, count: labelers.length } satisfies Page<AdminLabeler>)),
    http.get(apiUrl('admin/annotations/'), ({ request }) => {
      const org = Number(new URL(request.url).searchParams.get('organization'));
      const all = [op(7, 'Pump', 1), op(8, 'Valve', 2), op(9, 'Seal', 2)];
      const hits = all.filter((t) => t.organization === org);
      return HttpResponse.json({ results: hits, count: hits.length } satisfies Page<AnnotationProgress>);
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Labelers' });

test('every labeler with the operations requested of them and their progress', async () => {
  renderApp('/admin/labelers');
  expect(await screen.findByRole('heading', { level: 1, name: 'Labelers' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  const [lab, idle] = tableRows(table());
  expect(lab).toEqual([
    'Lab One',
    'lab@x.test',
    'Pump (ACME): 2 of 3 videos labelled (1 by them) Withdraw',
    formatDateTime(SAVED),
    'Request operation',
  ]);
  expect(idle).toEqual(['Idle Two', 'idle@x.test', 'None', 'Never', 'Request operation']);
});

test("the super admin asks a labeler for another organisation's operation, in that organisation", async () => {
  const user = userEvent.setup();
  const calls = recordCalls();
  server.use(
    http.post(apiUrl('organization/task/:id/labelers/'), () => {
      labelers[1] = { ...labelers[1]!, assignments: [{ ...labelers[0]!.assignments[0]!, task: 9, taskName: 'Seal' }] };
      return HttpResponse.json([], { status: 201 });
    }),
  );
  renderApp('/admin/labelers');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  const idleRow = within(table()).getAllByRole('row')[2]!;
  await user.click(within(idleRow).getByRole('button', { name: 'Request operation' }));
  const dialog = await screen.findByRole('dialog', { name: 'Request an operation from Idle Two' });
  expect(within(dialog).getByRole('button', { name: 'Request' })).toBeDisabled();
  await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Organization' }), 'Globex');
  const operation = await within(dialog).findByRole('combobox', { name: 'Operation' });
  await waitFor(() => expect(within(operation).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose an operation…', 'Valve', 'Seal']));
  await user.selectOptions(operation, 'Seal');
  await user.click(within(dialog).getByRole('button', { name: 'Request' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  const [post] = callsTo(calls, 'POST', 'organization/task/9/labelers/');
  expect(post?.body).toEqual({ email: 'idle@x.test' });
  expect(post?.headers.get('Organization')).toBe('2');
  expect(await screen.findByText('Seal')).toBeInTheDocument();
});

test("a refused request shows the server's message in the dialog", async () => {
  const user = userEvent.setup();
  server.use(
    http.post(apiUrl('organization/task/:id/labelers/'), () =>
      fail(400, { email: ['Labeling of this task is already requested of this labeler.'] }),
    ),
  );
  renderApp('/admin/labelers');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  await user.click(within(within(table()).getAllByRole('row')[2]!).getByRole('button', { name: 'Request operation' }));
  const dialog = await screen.findByRole('dialog');
  await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Organization' }), 'ACME');
  await user.selectOptions(await within(dialog).findByRole('combobox', { name: 'Operation' }), 'Pump');
  await user.click(within(dialog).getByRole('button', { name: 'Request' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('Labeling of this task is already requested of this labeler.');
});

test('withdrawing a request is confirmed and sent in the operation’s organisation', async () => {
  const user = userEvent.setup();
  const calls = recordCalls();
  server.use(
    http.delete(apiUrl('organization/task/:id/labelers/:labeler/'), () => {
      labelers[0] = { ...labelers[0]!, assignments: [] };
      return new HttpResponse(null, { status: 204 });
    }),
  );
  renderApp('/admin/labelers');
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  await user.click(screen.getByRole('button', { name: 'Withdraw' }));
  const dialog = await screen.findByRole('dialog', { name: 'Withdraw the request?' });
  expect(dialog).toHaveTextContent('Lab One will no longer reach Pump of ACME.');
  await user.click(within(dialog).getByRole('button', { name: 'Withdraw' }));
  await waitFor(() => expect(tableRows(table())[0]?.[2]).toBe('None'));
  const [del] = callsTo(calls, 'DELETE', 'organization/task/7/labelers/11/');
  expect(del?.headers.get('Organization')).toBe('1');
});

test('other roles cannot open Labelers', async () => {
  signInAs('labeler', null);
  const calls = recordCalls();
  renderApp('/admin/labelers');
  await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Labelers' })).toBeNull());
  expect(callsTo(calls, 'GET', 'admin/labelers/')).toEqual([]);
});
