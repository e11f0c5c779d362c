import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { EventNotification, EventNotificationCreate, EventNotificationPatch } from '@/api/generated';
import { signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { formProblem, recipientsProblem } from './components/event-notifications-screen';
import { ORGS, orgsHandler } from './fixtures';

let rows: EventNotification[];
let sent: EventNotificationCreate[];
let deleted: string[];
let patched: { id: string; body: EventNotificationPatch }[];
beforeEach(() => {
  patched = [];
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
    http.patch(apiUrl('feature_control/event_notification/:id'), async ({ request, params }) => {
      const body = (await request.json()) as EventNotificationPatch;
      patched.push({ id: String(params.id), body });
      // The server's own check: an address the mailer cannot send to.
      const bad = body.recipients?.find((r) => r.endsWith('.invalid'));
      if (bad) return HttpResponse.json({ recipients: [`Enter a valid email address: "${bad}".`] }, { status: 400 });
      rows = rows.map((r) => (String(r.id) === params.id ? { ...r, recipients: body.recipients ?? r.recipients } : r));
      return HttpResponse.json(rows.find((r) => String(r.id) === params.id));
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
  await waitFor(() => expect(tableRows(table())).toEqual([['Task Update', 'lead@a.test', 'ACME', 'Edit Delete']]));
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
  expect(tableRows(table())[1]).toEqual(['Device Health', 'tech@a.test, night@a.test', 'ACME', 'Edit Delete']);

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

test("a notification's recipients are changed in place: checked, the server's refusal shown, saved", async () => {
  const user = userEvent.setup();
  renderApp('/admin/event-notification');
  await waitFor(() => expect(tableRows(table())).toEqual([['Task Update', 'lead@a.test', 'ACME', 'Edit Delete']]));

  await user.click(screen.getByRole('button', { name: 'Edit recipients of Task Update of ACME' }));
  const box = screen.getByRole('textbox', { name: 'Recipients of Task Update of ACME' });
  expect(box).toHaveValue('lead@a.test');

  // Checked before sending.
  await user.clear(box);
  await user.click(screen.getByRole('button', { name: 'Save recipients of Task Update of ACME' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Add at least one recipient.');
  await user.type(box, 'lead@a.test{enter}oops');
  await user.click(screen.getByRole('button', { name: 'Save recipients of Task Update of ACME' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('oops is not a valid e-mail address.');
  expect(patched).toEqual([]);

  // The server's refusal, under the field; the row stays in edit.
  await user.clear(box);
  await user.type(box, 'lead@a.test{enter}qa@host.invalid');
  await user.click(screen.getByRole('button', { name: 'Save recipients of Task Update of ACME' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Enter a valid email address: "qa@host.invalid".');
  expect(box).toHaveAttribute('aria-invalid', 'true');

  // Cancel leaves it as it was; Save sends only the recipients.
  await user.click(screen.getByRole('button', { name: 'Cancel' }));
  expect(tableRows(table())).toEqual([['Task Update', 'lead@a.test', 'ACME', 'Edit Delete']]);
  await user.click(screen.getByRole('button', { name: 'Edit recipients of Task Update of ACME' }));
  const again = screen.getByRole('textbox', { name: 'Recipients of Task Update of ACME' });
  await user.type(again, '{enter}qa@a.test, night@a.test');
  await user.click(screen.getByRole('button', { name: 'Save recipients of Task Update of ACME' }));
  await waitFor(() => expect(patched.at(-1)).toEqual({ id: '1', body: { recipients: ['lead@a.test', 'qa@a.test', 'night@a.test'] } }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toEqual([['Task Update', 'lead@a.test, qa@a.test, night@a.test', 'ACME', 'Edit Delete']]));
  expect(screen.queryByRole('alert')).toBeNull();
});

test('recipients: 1 to 50 valid addresses', () => {
  expect(recipientsProblem([])).toBe('Add at least one recipient.');
  expect(recipientsProblem(['x'])).toBe('x is not a valid e-mail address.');
  expect(recipientsProblem(['a@b.test'])).toBeNull();
});
