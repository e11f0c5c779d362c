import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { toast } from 'sonner';

import { writeSession } from '@/lib/session';
import { recordCalls } from '@/testing/calls';
import { advance, expectGoingTo, expectStillAt, fakeClock } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import { fillIn } from '@/testing/form';
import { apiUrl, server } from '@/testing/server';

const SENT = 'Verification email has been sent please verify to complete registeration!';
const INVALID_NAME = 'Invalid Name. Valid name only contain letters, dashes (-) and spaces';

type User = ReturnType<typeof userEvent.setup>;

const fill = (user: User, values: Partial<Record<'First name' | 'Last name' | 'E-mail' | 'Password' | 'Confirm password', string>>) =>
  fillIn(user, values);

const submit = (user: User) => user.click(screen.getByRole('button', { name: 'Sign up' }));

const good = {
  'First name': ' Mary-Jane ',
  'Last name': "O'Neil",
  'E-mail': ' mary@acme.test ',
  Password: 'correct horse 1',
  'Confirm password': 'correct horse 1',
};

test('sign-up sends the form, shows the verification message, then the login screen after 3 s', async () => {
  const calls = recordCalls();
  const success = vi.spyOn(toast, 'success');
  server.use(http.post(apiUrl('account/register'), () => HttpResponse.json({ msg: SENT }, { status: 201 })));
  const user = fakeClock();
  const { router } = renderApp('/signup');
  expect(await screen.findByRole('heading', { name: 'Sign Up' })).toBeInTheDocument();
  // The terms: the privacy policy is linked from the form.
  expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy-policy');

  await fill(user, good);
  await submit(user);

  expect(await screen.findByRole('status')).toHaveTextContent(SENT);
  expect(success).toHaveBeenCalledWith(SENT, { duration: 5000 });
  expect(calls).toMatchObject([
    {
      method: 'POST',
      path: 'account/register',
      body: { name: 'Mary-Jane', lastname: "O'Neil", email: 'mary@acme.test', password: 'correct horse 1' },
      authorization: null,
    },
  ]);

  advance(2500);
  expectStillAt(router, '/signup');
  advance(500);
  expectGoingTo(router, '/login');
  expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/login');
});

/** Each field (by label) has this message next to it, or none (`null`). */
function expectMessages(byLabel: Record<string, string | null>) {
  for (const [label, message] of Object.entries(byLabel)) {
    const input = screen.getByLabelText(label);
    if (message === null) {
      expect(input).not.toHaveAttribute('aria-invalid');
      expect(input).not.toHaveAccessibleDescription();
    } else {
      expect(input).toHaveAttribute('aria-invalid', 'true');
      expect(input).toHaveAccessibleDescription(message);
    }
  }
}

describe('every wrong field shows its message next to it, and nothing is sent', () => {
  test('empty: the required fields (the last name is optional)', async () => {
    const calls = recordCalls();
    const user = userEvent.setup();
    renderApp('/signup');
    await screen.findByRole('heading', { name: 'Sign Up' });
    await submit(user);
    expectMessages({
      'First name': 'First name is required!',
      'Last name': null,
      'E-mail': 'E-mail is required!',
      Password: 'Password is required!',
      'Confirm password': 'Confirm password is required!',
    });
    // Editing a field clears its message.
    await fillIn(user, { 'First name': 'x' });
    expectMessages({ 'First name': null, 'E-mail': 'E-mail is required!' });
    expect(calls).toEqual([]);
  });

  test('malformed values', async () => {
    const calls = recordCalls();
    const user = userEvent.setup();
    renderApp('/signup');
    await fill(user, { 'First name': 'Ann1', 'Last name': '-Smith', 'E-mail': 'ann@acme', Password: 'short1', 'Confirm password': 'short2' });
    await submit(user);
    expectMessages({
      'First name': INVALID_NAME,
      'Last name': INVALID_NAME,
      'E-mail': 'Enter a valid email address.',
      Password: 'This password is too short. It must contain at least 8 characters.',
      'Confirm password': 'The two passwords do not match.',
    });
    expect(calls).toEqual([]);
    expect(screen.queryByRole('status')).toBeNull();
  });

  test.each([
    ['Password', '12345678901', 'This password is entirely numeric.'],
    ['Password', 'onlyletters', 'This password must contain at least one digit or symbol.'],
    ['First name', '  ', 'First name is required!'],
    ['First name', 'Ann  Lee', INVALID_NAME],
    ['First name', 'Ann!', INVALID_NAME],
    ['Last name', "O''Neil", INVALID_NAME],
    ['E-mail', 'mary@acme.test mary', 'Enter a valid email address.'],
  ] as const)('%s "%s": %s', async (label, value, message) => {
    const calls = recordCalls();
    const user = userEvent.setup();
    renderApp('/signup');
    const values: Record<string, string> = { ...good, [label]: value };
    if (label === 'Password') values['Confirm password'] = value;
    await fillIn(user, values);
    await submit(user);
    expectMessages({ ...Object.fromEntries(Object.keys(good).map((l) => [l, null])), [label]: message });
    expect(calls).toEqual([]);
  });
});

test('the server’s field errors show next to their fields; the toast shows the e-mail error for 3 s', async () => {
  const error = vi.spyOn(toast, 'error');
  server.use(
    http.post(apiUrl('account/register'), () =>
      HttpResponse.json(
        { password: ['This password is too common.'], email: ['user with this email already exists.'] },
        { status: 400 },
      ),
    ),
  );
  const user = userEvent.setup();
  const { router } = renderApp('/signup');
  await fill(user, good);
  await submit(user);

  expect(await screen.findByLabelText('E-mail')).toHaveAccessibleDescription('user with this email already exists.');
  expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('This password is too common.');
  expect(error).toHaveBeenCalledWith('user with this email already exists.', { duration: 3000 });
  expect(router.state.location.pathname).toBe('/signup');
});

test('429 shows the first value of the answer as a 3 s toast', async () => {
  const error = vi.spyOn(toast, 'error');
  server.use(http.post(apiUrl('account/register'), () => HttpResponse.json({ detail: 'Slow down.' }, { status: 429 })));
  const user = userEvent.setup();
  renderApp('/signup');
  await fill(user, good);
  await submit(user);
  expect(await screen.findByText('Slow down.')).toBeInTheDocument();
  expect(error).toHaveBeenCalledWith('Slow down.', { duration: 3000 });
  expect(screen.getByRole('button', { name: 'Sign up' })).toBeEnabled();
});

test('a signed-in user is sent from sign-up to their landing screen', async () => {
  writeSession({ id: 5, name: 'Tess', role: 'org_admin', token: 'tok', organization: 1, require_otp: false, isOtpSetup: true });
  const { router } = renderApp('/signup');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
});

test('the login screen links to sign-up, and sign-up back to login and resend verification', async () => {
  server.use(http.get(apiUrl('privacy_policy/'), () => HttpResponse.json({ markdown: 'We keep little.', custom: true, contact: null })));
  const user = userEvent.setup();
  const { router } = renderApp('/login');
  await user.click(await screen.findByRole('link', { name: 'Sign up' }));
  expect(await screen.findByRole('heading', { name: 'Sign Up' })).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Resend verification e-mail' })).toHaveAttribute('href', '/resend-verification');
  await user.click(screen.getByRole('link', { name: 'Privacy Policy' }));
  expect(await screen.findByRole('heading', { name: 'Privacy Policy' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/privacy-policy');
});
