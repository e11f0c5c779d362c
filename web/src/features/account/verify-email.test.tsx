import { screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { toast } from 'sonner';

import { writeSession } from '@/lib/session';
import { names, recordCalls } from '@/testing/calls';
import { advance, expectGoingTo, expectStillAt, fakeClock } from '@/testing/clock';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const ADMIN_NOTIFIED = 'Admin has been notified. Your account will be approved within 24 Hours.';
const TOKEN_INVALID = 'Token expired/Invalid!';

test('the link confirms the address once, shows the answer, then the login screen after 3 s', async () => {
  const calls = recordCalls();
  const success = vi.spyOn(toast, 'success');
  let answer!: () => void;
  const answered = new Promise<void>((r) => (answer = r));
  server.use(
    http.patch(apiUrl('account/verify-email/tok-123'), async () => {
      await answered;
      return HttpResponse.json({ msg: ADMIN_NOTIFIED });
    }),
  );
  fakeClock();
  // As in the browser build: React runs the screen's effects twice; the token is sent once.
  const { router } = renderApp('/verify-email/tok-123', undefined, { strict: true });
  expect(await screen.findByRole('heading', { name: 'Verify Email' })).toBeInTheDocument();

  expect(screen.getByRole('status')).toHaveTextContent('Verifying your e-mail address…');
  answer();
  await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(ADMIN_NOTIFIED));
  expect(success).toHaveBeenCalledTimes(1);
  expect(success).toHaveBeenCalledWith(ADMIN_NOTIFIED, { duration: 5000 });
  expect(calls.map((c) => [c.method, c.path, c.authorization])).toEqual([['PATCH', 'account/verify-email/tok-123', null]]);

  advance(2500);
  expectStillAt(router, '/verify-email/tok-123');
  advance(500);
  expectGoingTo(router, '/login');
  expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  expect(names(calls)).toEqual(['PATCH account/verify-email/tok-123']);
});

test.each([
  ['a used or expired token (400 on token)', 400, { token: [TOKEN_INVALID] }],
  ['an unknown path (404)', 404, { detail: 'Not found.', msg: 'Not found.' }],
])('%s shows the spec message, a new-link offer, then the login screen after 3 s', async (_, status, body) => {
  const error = vi.spyOn(toast, 'error');
  server.use(http.patch(apiUrl('account/verify-email/old'), () => HttpResponse.json(body, { status })));
  fakeClock();
  const { router } = renderApp('/verify-email/old');
  expect(await screen.findByRole('alert')).toHaveTextContent(TOKEN_INVALID);
  expect(error).toHaveBeenCalledWith(TOKEN_INVALID, { duration: 3000 });
  expect(screen.getByRole('link', { name: 'Send a new verification link' })).toHaveAttribute('href', '/resend-verification');
  advance(2500);
  expectStillAt(router, '/verify-email/old');
  advance(500);
  expectGoingTo(router, '/login');
  expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
});

test('a server that cannot be reached says so (not that the link is bad)', async () => {
  server.use(http.patch(apiUrl('account/verify-email/tok'), () => HttpResponse.error()));
  renderApp('/verify-email/tok');
  expect(await screen.findByRole('alert')).toHaveTextContent('The server could not be reached. Please try again.');
});

test('the token is sent as one path segment', async () => {
  const calls = recordCalls();
  server.use(http.patch(apiUrl('account/verify-email/:token'), () => HttpResponse.json({ msg: 'Your e-mail address is verified.' })));
  renderApp(`/verify-email/${encodeURIComponent('a b?c')}`);
  await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Your e-mail address is verified.'));
  expect(names(calls)).toEqual(['PATCH account/verify-email/a%20b%3Fc']);
});

test('leaving before the 3 s cancels the redirect', async () => {
  server.use(http.patch(apiUrl('account/verify-email/t'), () => HttpResponse.json({ msg: ADMIN_NOTIFIED })));
  const user = fakeClock();
  const { router } = renderApp('/verify-email/t');
  await user.click(await screen.findByRole('link', { name: 'Go to login now' }));
  await user.click(await screen.findByRole('link', { name: 'Sign up' }));
  expect(await screen.findByRole('heading', { name: 'Sign Up' })).toBeInTheDocument();
  advance(5000);
  expectStillAt(router, '/signup');
});

test('a signed-in user is sent to their landing screen and nothing is sent', async () => {
  const calls = recordCalls();
  writeSession({ id: 5, name: 'Tess', role: 'org_admin', token: 'tok', organization: 1, require_otp: false, isOtpSetup: true });
  const { router } = renderApp('/verify-email/tok-1');
  expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/home');
  expect(names(calls).filter((c) => c.includes('verify-email'))).toEqual([]);
});
