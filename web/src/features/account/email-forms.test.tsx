// The two one-field screens: resend verification and forgot password.
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { toast } from 'sonner';

import { recordCalls } from '@/testing/calls';
import { advance, expectGoingTo, expectStillAt, fakeClock } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import { fillIn } from '@/testing/form';
import { apiUrl, server } from '@/testing/server';

const SENT_AGAIN = 'Verification email has been sent again verify to complete registeration!';
const RESET_SENT = 'If the address belongs to an account, a reset link has been sent.';

const screens = [
  {
    name: 'resend verification',
    path: '/resend-verification',
    heading: 'Resend Verification',
    button: 'Send the link again',
    call: { method: 'POST', path: 'account/resend-verification-email' },
    answer: SENT_AGAIN,
    handler: (r: () => Response | Promise<Response>) => http.post(apiUrl('account/resend-verification-email'), r),
  },
  {
    name: 'forgot password',
    path: '/forgot-password',
    heading: 'Forgot Password',
    button: 'Send reset link',
    call: { method: 'PATCH', path: 'account/forgot_password/' },
    answer: RESET_SENT,
    handler: (r: () => Response | Promise<Response>) => http.patch(apiUrl('account/forgot_password/'), r),
  },
] as const;

describe.each(screens)('$name', (s) => {
  test('sends the address, shows the answer, then the login screen after 3 s', async () => {
    const calls = recordCalls();
    const success = vi.spyOn(toast, 'success');
    server.use(s.handler(() => HttpResponse.json({ msg: s.answer })));
    const user = fakeClock();
    const { router } = renderApp(s.path);
    expect(await screen.findByRole('heading', { name: s.heading })).toBeInTheDocument();
    await fillIn(user, { 'E-mail': '  mary@acme.test ' });
    await user.click(screen.getByRole('button', { name: s.button }));

    expect(await screen.findByRole('status')).toHaveTextContent(s.answer);
    expect(success).toHaveBeenCalledWith(s.answer, { duration: 5000 });
    expect(calls).toMatchObject([{ ...s.call, body: { email: 'mary@acme.test' }, authorization: null }]);

    advance(2500);
    expectStillAt(router, s.path);
    advance(500);
    expectGoingTo(router, '/login');
    expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  });

  test('a missing or malformed address shows its message and sends nothing', async () => {
    const calls = recordCalls();
    const user = userEvent.setup();
    renderApp(s.path);
    const input = await screen.findByLabelText('E-mail');
    await user.click(screen.getByRole('button', { name: s.button }));
    expect(input).toHaveAccessibleDescription('E-mail is required!');
    for (const bad of ['mary', 'mary@acme', 'mary@@acme.test', 'ma ry@acme.test', '@acme.test', 'mary@acme..test']) {
      await fillIn(user, { 'E-mail': bad });
      await user.click(screen.getByRole('button', { name: s.button }));
      expect(input).toHaveAccessibleDescription('Enter a valid email address.');
    }
    expect(calls).toEqual([]);
  });

  test('a 400 shows next to the field and as a 3 s toast; a 429 its first value', async () => {
    const error = vi.spyOn(toast, 'error');
    let n = 0;
    server.use(
      s.handler(() =>
        n++ === 0
          ? HttpResponse.json({ email: ['Enter a valid email address.'] }, { status: 400 })
          : HttpResponse.json({ detail: 'Too many requests. Try again later.' }, { status: 429 }),
      ),
    );
    const user = userEvent.setup();
    const { router } = renderApp(s.path);
    await fillIn(user, { 'E-mail': 'mary@acme.test' });
    await user.click(screen.getByRole('button', { name: s.button }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Enter a valid email address.');
    expect(screen.getByLabelText('E-mail')).toHaveAccessibleDescription('Enter a valid email address.');
    expect(error).toHaveBeenLastCalledWith('Enter a valid email address.', { duration: 3000 });

    await user.click(screen.getByRole('button', { name: s.button }));
    expect(await screen.findByText('Too many requests. Try again later.')).toBeInTheDocument();
    expect(error).toHaveBeenLastCalledWith('Too many requests. Try again later.', { duration: 3000 });
    expect(screen.getByLabelText('E-mail')).not.toHaveAccessibleDescription();
    expect(router.state.location.pathname).toBe(s.path);
  });
});

test('the login screen links to both', async () => {
  const user = userEvent.setup();
  renderApp('/login');
  await user.click(await screen.findByRole('link', { name: 'Forgot password?' }));
  expect(await screen.findByRole('heading', { name: 'Forgot Password' })).toBeInTheDocument();
  await user.click(screen.getByRole('link', { name: 'Back to login' }));
  await user.click(await screen.findByRole('link', { name: 'Resend verification e-mail' }));
  expect(await screen.findByRole('heading', { name: 'Resend Verification' })).toBeInTheDocument();
});
