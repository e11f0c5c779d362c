import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { LoginUser, Organization } from '@/api/generated';
import { browser } from '@/lib/browser';
import { readSession } from '@/lib/session';
import { takeSessionFromQuery } from '@/lib/session-transfer';
import { names, recordCalls } from '@/testing/calls';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const pending: LoginUser = {
  id: 9,
  name: 'Olga',
  lastname: 'O',
  email: 'olga@acme.test',
  role: 'org_admin',
  token: 'temp-token',
  refresh: null,
  session_key: 'sk-9',
  Organization: { id: 1, name: 'acme', org_name_to_display: 'ACME' },
  poc: false,
  is_policy_accepted: true,
  require_otp: true,
  receive_otp_on: null,
  is_otp_setup: false,
  has_mobile_number: false,
};
const full: LoginUser = { ...pending, token: 'full-token', refresh: 'refresh-9', require_otp: false, receive_otp_on: 'email', is_otp_setup: true };
const acme: Organization = { id: 1, name: 'acme', org_name_to_display: 'ACME', use_proxy_server: false, created_at: 0 };
const globex: Organization = { id: 2, name: 'globex', org_name_to_display: 'Globex', use_proxy_server: false, created_at: 0 };

async function signIn(user: ReturnType<typeof userEvent.setup>, email = 'olga@acme.test', password = 'user-pass-12') {
  await user.type(await screen.findByLabelText('E-mail'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

beforeEach(() => server.events.removeAllListeners());

test('login with an e-mail OTP, then the one organisation is chosen automatically and the user lands', async () => {
  const calls = recordCalls();
  const bodies: Record<string, unknown> = {};
  server.use(
    http.post(apiUrl('account/login_v2'), async ({ request }) => {
      bodies.login = await request.json();
      return HttpResponse.json(pending);
    }),
    http.patch(apiUrl('account/set_mfa_method_email/'), ({ request }) => {
      expect(request.headers.get('authorization')).toBe('Bearer temp-token');
      return HttpResponse.json({ msg: 'OTP Sent!' });
    }),
    http.post(apiUrl('account/verify_otp_code/'), async ({ request }) => {
      expect(request.headers.get('authorization')).toBe('Bearer temp-token');
      bodies.otp = await request.json();
      return HttpResponse.json(full);
    }),
    http.get(apiUrl('organization/'), ({ request }) => {
      expect(request.headers.get('authorization')).toBe('Bearer full-token');
      return HttpResponse.json([acme]);
    }),
    http.patch(apiUrl('account/switch_user_organization'), async ({ request }) => {
      bodies.switch = await request.json();
      return HttpResponse.json({ organization: 1, organization_name_to_display: 'ACME', url: 'http://acme.localhost:8080' });
    }),
  );
  const user = userEvent.setup();
  const { router } = renderApp('/login');
  await signIn(user);
  expect(bodies.login).toEqual({ email: 'olga@acme.test', password: 'user-pass-12' });

  // No method set up yet: choose e-mail.
  expect(await screen.findByRole('heading', { name: 'Select Verification Method' })).toBeInTheDocument();
  expect(readSession().persistUserInfoTemporary).toEqual({ token: 'temp-token', id: 9 });
  expect(readSession().token).toBeNull();
  await user.click(screen.getByRole('button', { name: 'E-mail' }));
  expect(await screen.findByText('OTP Sent!')).toBeInTheDocument();

  // A bad code is refused here and sends nothing.
  expect(await screen.findByRole('heading', { name: 'Verify Code' })).toBeInTheDocument();
  await user.type(screen.getByLabelText('6-digit code'), '12a45');
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Please enter the 6-digit OTP');
  expect(names(calls).filter((c) => c.includes('verify_otp_code'))).toEqual([]);

  await user.clear(screen.getByLabelText('6-digit code'));
  await user.type(screen.getByLabelText('6-digit code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  expect(await screen.findByText('Logged in successfully!')).toBeInTheDocument();
  expect(bodies.otp).toEqual({ otp: '123456' });

  // One organisation: chosen without asking; on a single host the user lands at once.
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
  expect(bodies.switch).toMatchObject({ organization: 1, organizationDisplayName: 'ACME' });
  expect(readSession()).toMatchObject({
    token: 'full-token',
    refresh: 'refresh-9',
    sessionKey: 'sk-9',
    role: 'org_admin',
    organization: 1,
    organizationName: 'ACME',
    require_otp: false,
    persistUserInfoTemporary: null,
  });
  // The layout asks for the features as it mounts, which msw may report after the heading shows.
  await waitFor(() => expect(names(calls)).toContain('GET feature_control/subscribed_feature/'));
  // The dashboard asks for its figures besides.
  expect(names(calls).filter((c) => c !== 'GET telemetry/cycle_stats')).toEqual([
    'POST account/login_v2',
    'PATCH account/set_mfa_method_email/',
    'POST account/verify_otp_code/',
    'GET organization/',
    'PATCH account/switch_user_organization',
    'GET feature_control/subscribed_feature/',
  ]);
});

test('with an e-mail method already set up, the code is sent at sign-in', async () => {
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json({ ...pending, is_otp_setup: true, receive_otp_on: 'email' })),
    http.get(apiUrl('account/send_otp_code/'), () => HttpResponse.json({ msg: 'OTP Sent!' })),
  );
  const user = userEvent.setup();
  renderApp('/login');
  await signIn(user);
  expect(await screen.findByRole('heading', { name: 'Verify Code' })).toBeInTheDocument();
  expect(await screen.findByText('OTP Sent!')).toBeInTheDocument();
});

test('codes by SMS: a bad number shows the rule and sends nothing; a good one is sent', async () => {
  const calls = recordCalls();
  let sent: unknown = null;
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json(pending)),
    http.patch(apiUrl('account/set_mfa_method_sms/'), async ({ request }) => {
      sent = await request.json();
      return HttpResponse.json({ msg: 'OTP Sent!' });
    }),
  );
  const user = userEvent.setup();
  renderApp('/login');
  await signIn(user);
  await user.click(await screen.findByRole('button', { name: 'SMS' }));
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Mobile number is required!');
  await user.type(screen.getByLabelText('Mobile number'), '0151-123');
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Enter a valid mobile number, e.g. +4915112345678.');
  expect(names(calls).filter((c) => c.includes('set_mfa_method_sms'))).toEqual([]);

  await user.clear(screen.getByLabelText('Mobile number'));
  await user.type(screen.getByLabelText('Mobile number'), '+49 151 1234-5678');
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  expect(await screen.findByRole('heading', { name: 'Verify Code' })).toBeInTheDocument();
  expect(sent).toEqual({ mobile_number: '+49 151 1234-5678' });
});

test('several organisations: the user picks one', async () => {
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json(full)),
    http.get(apiUrl('organization/'), () => HttpResponse.json([acme, globex])),
    http.patch(apiUrl('account/switch_user_organization'), () =>
      HttpResponse.json({ organization: 2, organization_name_to_display: 'Globex', url: 'http://globex.localhost:8080' }),
    ),
  );
  const calls = recordCalls();
  const user = userEvent.setup();
  const { router } = renderApp('/login');
  await signIn(user);
  expect(await screen.findByRole('heading', { name: 'Select Organization' })).toBeInTheDocument();
  await user.click(await screen.findByRole('button', { name: /Globex/ }));
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
  expect(readSession()).toMatchObject({ organization: 2, organizationName: 'Globex' });
  // The new organisation's features are asked for (before the test's handlers go).
  await waitFor(() => expect(names(calls)).toContain('GET feature_control/subscribed_feature/'));
});

test('no organisation: the spec message', async () => {
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json(full)),
    http.get(apiUrl('organization/'), () => HttpResponse.json([])),
  );
  const user = userEvent.setup();
  renderApp('/login');
  await signIn(user);
  expect(await screen.findByText('User is not assigned to any organization')).toBeInTheDocument();
});

test('the super admin skips the organisation step and lands on Organizations', async () => {
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json({ ...full, role: 'admin', Organization: null })),
  );
  const user = userEvent.setup();
  const { router } = renderApp('/login');
  await signIn(user);
  expect(await screen.findByRole('heading', { name: 'Organizations' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/admin/organizations');
});

test('an account awaiting approval: the admin-notified message, and the user stays logged out', async () => {
  server.use(http.post(apiUrl('account/login_v2'), () => HttpResponse.json({ message: 'User created successfully' }, { status: 202 })));
  const user = userEvent.setup();
  const { router } = renderApp('/login');
  await signIn(user);
  expect(await screen.findByText('Admin has been notified. Your account will be approved within 24 Hours.')).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/login');
  expect(readSession()).toMatchObject({ token: null, require_otp: true, isOtpSetup: false });
});

test('login errors show the first non_field_errors item; 429 the spec message', async () => {
  let n = 0;
  server.use(
    http.post(apiUrl('account/login_v2'), () =>
      n++ === 0
        ? HttpResponse.json({ non_field_errors: ['Unable to log in with provided credentials.'] }, { status: 400 })
        : HttpResponse.json({ detail: 'Too many attempts.Please try after 1 min.' }, { status: 429 }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/login');
  await signIn(user);
  expect(await screen.findByText('Unable to log in with provided credentials.')).toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  expect(await screen.findByText('Too many attempts.Please try after 1 min.')).toBeInTheDocument();
});

test('a wrong code shows the server message', async () => {
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json({ ...pending, is_otp_setup: true, receive_otp_on: 'authenticator_app' })),
    http.post(apiUrl('account/verify_otp_code/'), () => HttpResponse.json({ otp: ['Invalid or expired OTP.'] }, { status: 400 })),
  );
  const user = userEvent.setup();
  renderApp('/login');
  await signIn(user);
  await user.type(await screen.findByLabelText('6-digit code'), '000000');
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  expect(await screen.findByText('Invalid or expired OTP.')).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Send a new code' })).toBeNull();
});

test('the admin host shows the admin login, which calls admin-login/', async () => {
  let called = false;
  server.use(
    http.post(apiUrl('account/admin-login/'), () => {
      called = true;
      return HttpResponse.json({ non_field_errors: ['Only super admins can sign in here.'] }, { status: 400 });
    }),
  );
  const user = userEvent.setup();
  renderApp('/login', { config: { base_domain: 'localhost', admin_host: 'admin.localhost' }, site: { kind: 'admin' } });
  expect(await screen.findByRole('heading', { name: 'Admin Login' })).toBeInTheDocument();
  await signIn(user);
  expect(await screen.findByText('Only super admins can sign in here.')).toBeInTheDocument();
  expect(called).toBe(true);
});

test('at most 3 toasts show at once', async () => {
  server.use(
    http.post(apiUrl('account/login_v2'), () =>
      HttpResponse.json({ non_field_errors: ['Unable to log in with provided credentials.'] }, { status: 400 }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/login');
  await signIn(user);
  for (let i = 0; i < 4; i++) await user.click(screen.getByRole('button', { name: 'Sign in' }));
  await waitFor(() => expect(screen.getAllByText('Unable to log in with provided credentials.').length).toBeGreaterThan(3));
  const toasts = document.querySelectorAll('[data-sonner-toast][data-visible="true"]');
  expect(toasts.length).toBe(3);
  expect(document.querySelector('[data-sonner-toaster]')?.getAttribute('data-y-position')).toBe('top');
  expect(document.querySelector('[data-sonner-toaster]')?.getAttribute('data-x-position')).toBe('right');
});

test('on the base domain the chosen organisation continues on its sub-domain with the session, none left here', async () => {
  const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
  server.use(
    http.post(apiUrl('account/login_v2'), () => HttpResponse.json(full)),
    http.get(apiUrl('organization/'), () => HttpResponse.json([acme])),
    http.patch(apiUrl('account/switch_user_organization'), () =>
      HttpResponse.json({ organization: 1, organization_name_to_display: 'ACME', url: 'http://acme.localhost:8080' }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/login', { config: { base_domain: 'localhost', admin_host: 'admin.localhost' }, site: { kind: 'base' } });
  await signIn(user);
  await waitFor(() => expect(assign).toHaveBeenCalledTimes(1), { timeout: 3000 });
  const url = new URL(assign.mock.calls[0]![0]);
  expect(url.origin).toBe('http://acme.localhost:8080');
  expect(url.pathname).toBe('/user/home');
  // The session travels in `config`; this host keeps none of it.
  expect(readSession().token).toBeNull();
  takeSessionFromQuery(url.search);
  expect(readSession()).toMatchObject({ token: 'full-token', organization: 1, role: 'org_admin', require_otp: false });
});

test('on an organisation sub-domain /login continues on the base domain', async () => {
  const replace = vi.spyOn(browser, 'replace').mockImplementation(() => {});
  renderApp('/login', { config: { base_domain: 'localhost', admin_host: 'admin.localhost' }, site: { kind: 'org', org: 'acme' } });
  await waitFor(() => expect(replace).toHaveBeenCalledWith(`${window.location.protocol}//localhost${window.location.port ? `:${window.location.port}` : ''}/login`));
});
