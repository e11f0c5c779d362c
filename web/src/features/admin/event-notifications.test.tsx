import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { EventNotification, EventNotificationCreate } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { formProblem } from './components/event-notifications-screen';
import { ORGS, orgsHandler } from './fixtures';

let rows: EventNotification[];
let sent: EventNotificationCreate[];
let deleted: string[];
beforeEach(() => {
  rows = [{ id: 1, event_type: 'Task Update', recipients: ['lead@a.test'], Organization: ORGS[0]!.id, organization_name: 'ACME' }];
  sent = [];
  deleted = [];
  server.use(
    orgsHandler(),
    http.get(apiUrl('feature_control/event_notifications'), () => HttpResponse.json(rows)),
    http.post(apiUrl('feature_control/event_notifications'), async ({ request }) => {
      const body = (await request.json()) as EventNotificationCreate;
      sent.push(body);
      const n = { id: rows.length + 1, event_type: body.event_type, recipients: body.recipients, Organization: body.Organization ?? 0, organization_name: 'ACME' };
      rows = [...rows, n];
      return HttpResponse.json(n, { status: 201 });
    }),
    http.delete(apiUrl('feature_control/event_notification/:id'), ({ params }) => {
      deleted.push(String(params.id));
      rows = rows.filter((r) => String(r.id) !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Event notifications' });

test("'Device Health' is offered beside 'Task Update', and sent as chosen", async () => {
  const user = userEvent.setup();
  renderApp('/admin/event-notification');
  await waitFor(() => expect(tableRows(table())).toEqual([['Task Update', 'lead@a.test', 'ACME', 'Delete']]));
  const event = screen.getByRole('combobox', { name: 'Event' });
  expect([...(event as HTMLSelectElement).options].map((o) => o.value)).toEqual(['Task Update', 'Device Health']);

  await user.selectOptions(event, 'Device Health');
  await user.selectOptions(screen.getByRole('combobox', { name: 'Organization' }), String(ORGS[0]!.id));
  // A bad address is refused before sending.
  await user.type(screen.getByRole('textbox', { name: 'Recipients' }), 'tech@a.test, nobody');
  await user.click(screen.getByRole('button', { name: 'Add' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('nobody is not a valid e-mail address.');
  expect(sent).toEqual([]);

  await user.clear(screen.getByRole('textbox', { name: 'Recipients' }));
  await user.type(screen.getByRole('textbox', { name: 'Recipients' }), 'tech@a.test, night@a.test');
  await user.click(screen.getByRole('button', { name: 'Add' }));
  await waitFor(() =>
    expect(sent).toEqual([{ event_type: 'Device Health', recipients: ['tech@a.test', 'night@a.test'], Organization: ORGS[0]!.id }]),
  );
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  expect(tableRows(table())[1]).toEqual(['Device Health', 'tech@a.test, night@a.test', 'ACME', 'Delete']);

  await user.click(screen.getByRole('button', { name: 'Delete Device Health of ACME' }));
  await user.click(screen.getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(deleted).toEqual(['2']));
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
});

test('the form needs an organisation and 1 to 50 addresses', () => {
  expect(formProblem('', ['a@b.test'])).toBe('Choose an organization.');
  expect(formProblem('1', [])).toBe('Add at least one recipient.');
  expect(formProblem('1', Array.from({ length: 51 }, (_, i) => `p${i}@a.test`))).toBe('At most 50 recipients.');
  expect(formProblem('1', ['a@b.test'])).toBeNull();
});
