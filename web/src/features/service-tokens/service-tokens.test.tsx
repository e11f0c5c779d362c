import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { Organization, ServiceToken, ServiceTokenCreate } from '@/api/generated';
import { recordCalls, screenCalls, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { formProblems, tokenState } from './api/service-tokens';

const ORGS: Organization[] = [
  { id: 1, name: 'acme', org_name_to_display: 'ACME', use_proxy_server: false, created_at: 0 },
  { id: 2, name: 'globex', org_name_to_display: 'Globex', use_proxy_server: false, created_at: 0 },
];
const DAY = 24 * 3600 * 1000;
const SECRET = 'gst_s3cr3t-value-shown-once';

const token = (id: number, name: string, extra: Partial<ServiceToken> = {}): ServiceToken => ({
  id,
  name,
  organization: 1,
  organization_name: 'acme',
  role: 'org_user',
  user_id: 100 + id,
  created_by: 'root@gemba.test',
  created_at: Date.now() - DAY,
  expires_at: Date.now() + 30 * DAY,
  last_used_at: null,
  revoked_at: null,
  ...extra,
});

let rows: ServiceToken[];
let sent: ServiceTokenCreate[];
let revoked: string[];
let refuse: Record<string, string[]> | null;
beforeEach(() => {
  rows = [token(1, 'Nightly export', { last_used_at: Date.now() - 60_000 })];
  sent = [];
  revoked = [];
  refuse = null;
  server.use(
    http.get(apiUrl('organization/'), () => HttpResponse.json(ORGS)),
    http.get(apiUrl('generic/userpool/'), () => HttpResponse.json(rows)),
    http.post(apiUrl('generic/userpool/'), async ({ request }) => {
      const body = (await request.json()) as ServiceTokenCreate;
      sent.push(body);
      if (refuse) return HttpResponse.json(refuse, { status: 400 });
      const t = token(rows.length + 1, body.name, { organization: body.organization, organization_name: 'globex', role: body.role });
      rows = [t, ...rows];
      return HttpResponse.json({ token: t, secret: SECRET }, { status: 201 });
    }),
    http.delete(apiUrl('generic/userpool/:id/'), ({ params }) => {
      revoked.push(String(params.id));
      rows = rows.map((r) => (String(r.id) === params.id ? { ...r, revoked_at: Date.now() } : r));
      return HttpResponse.json({ msg: 'Token revoked.' });
    }),
  );
  signInAs('admin', null);
});

const table = () => screen.getByRole('table', { name: 'Service tokens' });
const form = () => screen.getByRole('form', { name: 'Create a service token' });

test('a token is created, its secret shown once with a copy button, then listed without it', async () => {
  const user = userEvent.setup();
  renderApp('/admin/aws-token');
  expect(await screen.findByRole('heading', { name: 'Cloud Function Token' })).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  const first = tableRows(table())[0]!;
  expect([first[0], first[1], first[2], first[3], first[7], first[8]]).toEqual([
    'Nightly export',
    'acme',
    'Organization User',
    'root@gemba.test',
    'Active',
    'Revoke',
  ]);
  // The super admin's role is not offered.
  const roles = [...within(form()).getByLabelText<HTMLSelectElement>('Role').options].map((o) => o.value);
  expect(roles).not.toContain('admin');
  expect(roles).toContain('org_admin');

  // Checked before sending.
  await user.click(within(form()).getByRole('button', { name: 'Create token' }));
  expect(within(form()).getByLabelText('Name')).toHaveAccessibleDescription('This field is required.');
  expect(within(form()).getByLabelText('Organization')).toHaveAccessibleDescription('Choose an organization.');
  expect(sent).toEqual([]);

  await user.type(within(form()).getByLabelText('Name'), 'MES connector');
  await user.selectOptions(within(form()).getByLabelText('Organization'), '2');
  await user.selectOptions(within(form()).getByLabelText('Role'), 'analytics_user');
  await user.clear(within(form()).getByLabelText('Expires in (days)'));
  await user.type(within(form()).getByLabelText('Expires in (days)'), '400');
  await user.click(within(form()).getByRole('button', { name: 'Create token' }));
  expect(within(form()).getByLabelText('Expires in (days)')).toHaveAccessibleDescription('Enter a number of days from 1 to 365.');
  expect(sent).toEqual([]);
  await user.clear(within(form()).getByLabelText('Expires in (days)'));
  await user.type(within(form()).getByLabelText('Expires in (days)'), '30');
  await user.click(within(form()).getByRole('button', { name: 'Create token' }));

  const shown = await screen.findByRole('region', { name: 'Token MES connector created' });
  expect(sent).toEqual([{ name: 'MES connector', organization: 2, role: 'analytics_user', expires_in_days: 30 }]);
  expect(within(shown).getByText(SECRET)).toBeInTheDocument();
  expect(within(shown).getByText('Copy it now: it is shown only this once.', { exact: false })).toBeInTheDocument();
  await user.click(within(shown).getByRole('button', { name: 'Copy token' }));
  expect(await navigator.clipboard.readText()).toBe(SECRET);
  expect(await screen.findByText('Token copied.')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())).toHaveLength(2));
  expect(table().textContent).not.toContain(SECRET);
  // The form is ready for the next one; Done hides the secret for good.
  expect(within(form()).getByLabelText('Name')).toHaveValue('');
  await user.click(within(shown).getByRole('button', { name: 'Done' }));
  expect(screen.queryByText(SECRET)).toBeNull();
});

test("the server's refusal: 'Unable to create token' and the message under its field", async () => {
  const user = userEvent.setup();
  refuse = { organization: ['Organization not found.'] };
  renderApp('/admin/aws-token');
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  await user.type(within(form()).getByLabelText('Name'), 'Late');
  await user.selectOptions(within(form()).getByLabelText('Organization'), '1');
  await user.click(within(form()).getByRole('button', { name: 'Create token' }));
  expect(await screen.findByText('Unable to create token')).toBeInTheDocument();
  expect(within(form()).getByLabelText('Organization')).toHaveAccessibleDescription('Organization not found.');
  expect(screen.queryByRole('region', { name: /created$/ })).toBeNull();
});

test('a token is revoked after a confirmation, and stays listed as revoked', async () => {
  const user = userEvent.setup();
  renderApp('/admin/aws-token');
  await waitFor(() => expect(tableRows(table())).toHaveLength(1));
  await user.click(screen.getByRole('button', { name: 'Revoke Nightly export' }));
  const dialog = screen.getByRole('dialog', { name: 'Revoke service token' });
  expect(dialog).toHaveTextContent('Calls made with Nightly export (acme) will be refused from now on.');
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(revoked).toEqual([]);
  await user.click(screen.getByRole('button', { name: 'Revoke Nightly export' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Revoke service token' })).getByRole('button', { name: 'Revoke' }));
  await waitFor(() => expect(revoked).toEqual(['1']));
  expect(await screen.findByText('Nightly export revoked.')).toBeInTheDocument();
  await waitFor(() => expect(tableRows(table())[0]![7]).toMatch(/^Revoked /));
  expect(screen.queryByRole('button', { name: 'Revoke Nightly export' })).toBeNull();
});

test('an organisation admin is refused the screen: sent to its landing, no token call made', async () => {
  signInAs('org_admin', 1);
  const rec = recordCalls();
  const { router } = renderApp('/admin/aws-token');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
  expect(screenCalls(rec).filter((c) => c.path.startsWith('generic/'))).toEqual([]);
});

test("the form's rules and a token's state", () => {
  expect(formProblems({ name: ' ', organization: '', role: 'admin', days: '0' })).toEqual({
    name: 'This field is required.',
    organization: 'Choose an organization.',
    role: 'A service token cannot act as the super admin.',
    days: 'Enter a number of days from 1 to 365.',
  });
  expect(formProblems({ name: 'A', organization: '1', role: 'org_user', days: '365' })).toBeNull();
  expect(formProblems({ name: 'A', organization: '1', role: 'org_user', days: '1.5' })?.days).toBeDefined();
  expect(tokenState({ revoked_at: 5, expires_at: 10 }, 1)).toBe('Revoked');
  expect(tokenState({ revoked_at: null, expires_at: 10 }, 10)).toBe('Expired');
  expect(tokenState({ revoked_at: null, expires_at: 10 }, 9)).toBe('Active');
});
