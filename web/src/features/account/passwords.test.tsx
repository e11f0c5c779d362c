// Reset password (the mailed link) and change password (signed in; also after a 303).
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { toast } from 'sonner';

import { readSession, writeSession } from '@/lib/session';
import { names, recordCalls } from '@/testing/calls';
import { advance, expectGoingTo, expectStillAt, fakeClock } from '@/testing/clock';
import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { fillIn } from '@/testing/form';
import { apiUrl, server } from '@/testing/server';

type User = ReturnType<typeof userEvent.setup>;

const TOKEN_INVALID = 'Token expired/Invalid!';
const RESET_DONE = 'Your password has been reset. Please sign in.';
const SAVED = 'Your changes have been saved!';

const fill = fillIn;


describe('reset password', () => {
  const setPassword = (user: User) => user.click(screen.getByRole('button', { name: 'Set password' }));

  test('sets the new password with the link’s token, then the login screen after 3 s', async () => {
    const calls = recordCalls();
    const success = vi.spyOn(toast, 'success');
    server.use(http.patch(apiUrl('account/reset_password/'), () => HttpResponse.json({ msg: RESET_DONE })));
    const user = fakeClock();
    const { router } = renderApp('/reset-password/tok-9');
    expect(await screen.findByRole('heading', { name: 'Reset Password' })).toBeInTheDocument();
    await fill(user, { 'New password': 'new pass 42', 'Confirm password': 'new pass 42' });
    await setPassword(user);

    expect(await screen.findByRole('status')).toHaveTextContent(RESET_DONE);
    expect(success).toHaveBeenCalledWith(RESET_DONE, { duration: 5000 });
    expect(calls).toMatchObject([
      { method: 'PATCH', path: 'account/reset_password/', body: { token: 'tok-9', password: 'new pass 42' }, authorization: null },
    ]);
    advance(2500);
    expectStillAt(router, '/reset-password/tok-9');
    advance(500);
    expectGoingTo(router, '/login');
    expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
  });

  test('wrong passwords show their messages and nothing is sent', async () => {
    const calls = recordCalls();
    const user = userEvent.setup();
    renderApp('/reset-password/tok-9');
    await screen.findByRole('heading', { name: 'Reset Password' });
    await setPassword(user);
    expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('New password is required!');
    expect(screen.getByLabelText('Confirm password')).toHaveAccessibleDescription('Confirm password is required!');
    for (const [pw, confirm, message] of [
      ['short1', 'short1', 'This password is too short. It must contain at least 8 characters.'],
      ['123456789', '123456789', 'This password is entirely numeric.'],
      ['abcdefghij', 'abcdefghij', 'This password must contain at least one digit or symbol.'],
    ]) {
      await fill(user, { 'New password': pw!, 'Confirm password': confirm! });
      await setPassword(user);
      expect(screen.getByLabelText('New password')).toHaveAccessibleDescription(message!);
    }
    await fill(user, { 'New password': 'new pass 42', 'Confirm password': 'new pass 43' });
    await setPassword(user);
    expect(screen.getByLabelText('New password')).not.toHaveAccessibleDescription();
    expect(screen.getByLabelText('Confirm password')).toHaveAccessibleDescription('The two passwords do not match.');
    expect(calls).toEqual([]);
  });

  test.each([
    ['a used or expired link (400 on token)', 400, { token: [TOKEN_INVALID] }],
    ['an unknown path (404)', 404, { detail: 'Not found.', msg: 'Not found.' }],
  ])('%s shows the spec message and offers a new link', async (_, status, body) => {
    const error = vi.spyOn(toast, 'error');
    server.use(http.patch(apiUrl('account/reset_password/'), () => HttpResponse.json(body, { status })));
    const user = userEvent.setup();
    const { router } = renderApp('/reset-password/old');
    await fill(user, { 'New password': 'new pass 42', 'Confirm password': 'new pass 42' });
    await setPassword(user);
    expect(await screen.findByRole('alert')).toHaveTextContent(TOKEN_INVALID);
    expect(error).toHaveBeenCalledWith(TOKEN_INVALID, { duration: 3000 });
    expect(router.state.location.pathname).toBe('/reset-password/old');
    await user.click(screen.getByRole('link', { name: 'Send a new link' }));
    expect(await screen.findByRole('heading', { name: 'Forgot Password' })).toBeInTheDocument();
  });

  test('the server’s password message shows next to the field', async () => {
    const error = vi.spyOn(toast, 'error');
    server.use(
      http.patch(apiUrl('account/reset_password/'), () =>
        HttpResponse.json({ password: ['This password is too common.'] }, { status: 400 }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/reset-password/tok');
    await fill(user, { 'New password': 'password1', 'Confirm password': 'password1' });
    await setPassword(user);
    await waitFor(() => expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('This password is too common.'));
    expect(error).toHaveBeenCalledWith('This password is too common.', { duration: 3000 });
    expect(screen.queryByText(TOKEN_INVALID)).toBeNull();
  });
});

describe('change password', () => {
  const change = (user: User) => user.click(screen.getByRole('button', { name: 'Change password' }));
  const good = { 'Current password': 'old pass 1', 'New password': 'new pass 42', 'Confirm new password': 'new pass 42' };

  test('a 303 sends the user here; after the change they land on their screen', async () => {
    const calls = recordCalls();
    const success = vi.spyOn(toast, 'success');
    let mustChange = true;
    // Every call answers 303 until the password is changed. The 303 has no Location, so
    // a browser's fetch hands it to the caller; msw's interceptor would follow it to
    // ".../null", so those answers are stubbed at fetch (as in api-client.test.ts).
    const fetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) =>
      mustChange && !String(input instanceof Request ? input.url : input).includes('request_change_password')
        ? Promise.resolve(Response.json({ detail: 'Your password must be changed before you continue.' }, { status: 303 }))
        : fetch(input, init),
    );
    server.use(
      http.patch(apiUrl('account/request_change_password/'), ({ request }) => {
        expect(request.headers.get('sessionkey')).toBe('sk');
        mustChange = false;
        return HttpResponse.json({ msg: SAVED });
      }),
    );
    signInAs('org_admin');
    const user = userEvent.setup();
    const { router } = renderApp('/user/home');
    expect(await screen.findByRole('heading', { name: 'Change Password' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/change-password');

    await fill(user, good);
    await change(user);
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/user/home');
    expect(success).toHaveBeenCalledWith(SAVED, { duration: 3000 });
    const sent = calls.filter((c) => c.path === 'account/request_change_password/');
    expect(sent).toMatchObject([
      {
        method: 'PATCH',
        path: 'account/request_change_password/',
        body: { old_password: 'old pass 1', new_password: 'new pass 42' },
        authorization: 'Bearer tok',
      },
    ]);
    // The session goes on (the server ended only the other ones).
    expect(readSession().token).toBe('tok');
  });

  test('a user who still needs an organisation goes through the organisation step', async () => {
    server.use(
      http.patch(apiUrl('account/request_change_password/'), () => HttpResponse.json({ msg: SAVED })),
      http.get(apiUrl('organization/'), () =>
        HttpResponse.json([{ id: 1, name: 'acme', org_name_to_display: 'ACME', use_proxy_server: false, created_at: 0 }]),
      ),
      http.patch(apiUrl('account/switch_user_organization'), () =>
        HttpResponse.json({ organization: 1, organization_name_to_display: 'ACME', url: 'http://acme.localhost' }),
      ),
    );
    signInAs('org_admin');
    writeSession({ organization: null, organizationName: null });
    const user = userEvent.setup();
    const { router } = renderApp('/change-password');
    await fill(user, good);
    await change(user);
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/user/home');
    expect(readSession().organization).toBe(1);
  });

  test('wrong fields show their messages and nothing is sent', async () => {
    signInAs('org_admin');
    const calls = recordCalls();
    const user = userEvent.setup();
    renderApp('/change-password');
    await screen.findByRole('heading', { name: 'Change Password' });
    await change(user);
    expect(screen.getByLabelText('Current password')).toHaveAccessibleDescription('Current password is required!');
    expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('New password is required!');
    expect(screen.getByLabelText('Confirm new password')).toHaveAccessibleDescription('Confirm password is required!');

    await fill(user, { ...good, 'New password': 'short1', 'Confirm new password': 'short1' });
    await change(user);
    expect(screen.getByLabelText('Current password')).not.toHaveAccessibleDescription();
    expect(screen.getByLabelText('New password')).toHaveAccessibleDescription(
      'This password is too short. It must contain at least 8 characters.',
    );

    await fill(user, { ...good, 'New password': 'old pass 1', 'Confirm new password': 'old pass 1' });
    await change(user);
    expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('The new password must differ from the old one.');

    await fill(user, { ...good, 'Confirm new password': 'new pass 43' });
    await change(user);
    expect(screen.getByLabelText('New password')).not.toHaveAccessibleDescription();
    expect(screen.getByLabelText('Confirm new password')).toHaveAccessibleDescription('The two passwords do not match.');

    expect(names(calls).filter((c) => c.includes('request_change_password'))).toEqual([]);
  });

  test('a wrong current password shows next to its field; 429 the server’s message', async () => {
    const error = vi.spyOn(toast, 'error');
    let n = 0;
    server.use(
      http.patch(apiUrl('account/request_change_password/'), () =>
        n++ === 0
          ? HttpResponse.json({ old_password: ['Your old password is not correct.'] }, { status: 400 })
          : HttpResponse.json({ detail: 'Too many attempts.Please try after 1 min.' }, { status: 429 }),
      ),
    );
    signInAs('org_admin');
    const user = userEvent.setup();
    const { router } = renderApp('/change-password');
    await fill(user, good);
    await change(user);
    await waitFor(() =>
      expect(screen.getByLabelText('Current password')).toHaveAccessibleDescription('Your old password is not correct.'),
    );
    expect(error).toHaveBeenLastCalledWith('Your old password is not correct.', { duration: 3000 });
    await change(user);
    expect(await screen.findByText('Too many attempts.Please try after 1 min.')).toBeInTheDocument();
    expect(error).toHaveBeenLastCalledWith('Too many attempts.Please try after 1 min.', { duration: 3000 });
    expect(router.state.location.pathname).toBe('/change-password');
  });

  test('signed out: says to sign in first, with no form', async () => {
    renderApp('/change-password');
    expect(await screen.findByText('Sign in first to change your password.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Current password')).toBeNull();
    expect(screen.getByRole('link', { name: 'Go to login' })).toHaveAttribute('href', '/login');
  });

  test('log out is offered (a user made to change it can leave instead)', async () => {
    server.use(http.patch(apiUrl('account/logout/'), () => HttpResponse.json({ msg: 'Logged out.' })));
    signInAs('org_admin');
    const user = userEvent.setup();
    const { router } = renderApp('/change-password');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { name: 'Login' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(readSession().token).toBeNull();
  });
});
