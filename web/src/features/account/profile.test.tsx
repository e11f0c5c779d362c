// Profile Setting (/user/setting, /labeler/setting): details, password, e-mail address,
// two-step verification method.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { toast } from 'sonner';

import type { LoginUser } from '@/api/generated';
import { readSession, writeSession } from '@/lib/session';
import { INVALID_EMAIL_MESSAGE, MOBILE_NUMBER_MESSAGE, OTP_MESSAGE, PASSWORD_NEEDS_NON_LETTER, PASSWORD_TOO_SHORT } from '@/lib/validate';
import { type Call, callsTo, names, recordCalls, screenCalls } from '@/testing/calls';
import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { PASSWORD_CHANGED } from './components/profile-screen';
import { METHOD_SET } from './components/verification-method-section';
import { SAME_EMAIL } from './messages';

type User = ReturnType<typeof userEvent.setup>;

const SAVED = 'Your changes have been saved!';
const LINK_SENT = 'A confirmation link has been sent to the new address.';
const EMAIL_CHANGED = 'Your e-mail address has been changed.';
const TOKEN_INVALID = 'Token expired/Invalid!';

const form = (name: string) => screen.getByRole('form', { name });

/** Replaces the values of the fields of `container` (by label) with the given texts. */
async function fill(user: User, container: HTMLElement, values: Record<string, string>) {
  for (const [label, v] of Object.entries(values)) {
    const input = within(container).getByLabelText(label);
    await user.clear(input);
    if (v) {
      await user.click(input);
      await user.paste(v);
    }
  }
}

/** Opens the screen for a signed-in org admin and waits for it. */
async function open(path = '/user/setting') {
  signInAs('org_admin');
  const user = userEvent.setup();
  const view = renderApp(path);
  await screen.findByRole('heading', { level: 1, name: 'Profile Settings' });
  return { user, ...view };
}

const sent = (calls: Call[], path: string) => screenCalls(calls).filter((c) => c.path === path);

describe('details', () => {
  test('the user area shows the signed-in user’s name, e-mail, role and organisation', async () => {
    await open();
    const details = screen.getByRole('region', { name: 'Your details' });
    const facts = within(details)
      .getAllByRole('definition')
      .map((d) => d.textContent);
    expect(facts).toEqual(['Tess', 'tess@acme.test', 'Organization Admin', 'ACME']);
  });

  test('a labeler reaches Profile Setting from the sidebar, with no organisation', async () => {
    signInAs('labeler', null);
    server.use(http.get(apiUrl('labeler/tasks/'), () => HttpResponse.json([])));
    const user = userEvent.setup();
    const { router } = renderApp('/labeler/tasks');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await user.click(within(nav).getByRole('link', { name: 'Profile Setting' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Profile Setting' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/labeler/setting');
    const facts = within(screen.getByRole('region', { name: 'Your details' }))
      .getAllByRole('definition')
      .map((d) => d.textContent);
    expect(facts).toEqual(['Tess', 'tess@acme.test', 'Labeler', 'None']);
  });
});

describe('change password', () => {
  const good = { 'Current password': 'old pass 1', 'New password': 'new pass 42', 'Confirm new password': 'new pass 42' };
  const change = (user: User) => user.click(within(form('Change password')).getByRole('button', { name: 'Change password' }));

  test('wrong values show their messages (the change-password screen’s rules) and nothing is sent', async () => {
    const calls = recordCalls();
    const { user } = await open();
    const f = form('Change password');
    const field = (label: string) => within(f).getByLabelText(label);

    await change(user);
    expect(field('Current password')).toHaveAccessibleDescription('Current password is required!');
    expect(field('New password')).toHaveAccessibleDescription('New password is required!');
    expect(field('Confirm new password')).toHaveAccessibleDescription('Confirm password is required!');

    for (const [pw, message] of [
      ['short1', PASSWORD_TOO_SHORT],
      ['123456789', 'This password is entirely numeric.'],
      ['abcdefghij', PASSWORD_NEEDS_NON_LETTER],
      ['old pass 1', 'The new password must differ from the old one.'],
    ] as const) {
      await fill(user, f, { ...good, 'New password': pw, 'Confirm new password': pw });
      await change(user);
      expect(field('Current password')).not.toHaveAccessibleDescription();
      expect(field('New password')).toHaveAccessibleDescription(message);
    }

    await fill(user, f, { ...good, 'Confirm new password': 'new pass 43' });
    await change(user);
    expect(field('New password')).not.toHaveAccessibleDescription();
    expect(field('Confirm new password')).toHaveAccessibleDescription('The two passwords do not match.');
    expect(sent(calls, 'account/request_change_password/')).toEqual([]);
  });

  test('the server’s field messages show next to their fields', async () => {
    const error = vi.spyOn(toast, 'error');
    server.use(
      http.patch(apiUrl('account/request_change_password/'), () =>
        HttpResponse.json({ old_password: ['Your old password is not correct.'] }, { status: 400 }),
      ),
    );
    const { user } = await open();
    const f = form('Change password');
    await fill(user, f, good);
    await change(user);
    await waitFor(() =>
      expect(within(f).getByLabelText('Current password')).toHaveAccessibleDescription('Your old password is not correct.'),
    );
    expect(error).toHaveBeenCalledWith('Your old password is not correct.', { duration: 3000 });
    expect(screen.queryByText(PASSWORD_CHANGED)).toBeNull();
  });

  test('saves the new password, empties the form and stays on the screen, still signed in', async () => {
    const calls = recordCalls();
    const success = vi.spyOn(toast, 'success');
    let answer!: () => void;
    server.use(
      http.patch(
        apiUrl('account/request_change_password/'),
        () => new Promise<Response>((done) => (answer = () => done(HttpResponse.json({ msg: SAVED })))),
      ),
    );
    const { user, router } = await open();
    const f = form('Change password');
    await fill(user, f, good);
    await change(user);
    // Busy while the call runs: the button cannot send it twice.
    const button = await within(f).findByRole('button', { name: 'Saving…' });
    expect(button).toBeDisabled();
    await user.click(button);
    answer();

    expect(await screen.findByText(PASSWORD_CHANGED)).toHaveAttribute('role', 'status');
    expect(success).toHaveBeenCalledWith(SAVED, { duration: 3000 });
    expect(sent(calls, 'account/request_change_password/')).toMatchObject([
      { method: 'PATCH', body: { old_password: 'old pass 1', new_password: 'new pass 42' }, authorization: 'Bearer tok' },
    ]);
    for (const label of Object.keys(good)) expect(within(f).getByLabelText(label)).toHaveValue('');
    expect(router.state.location.pathname).toBe('/user/setting');
    expect(readSession().token).toBe('tok');
  });
});

describe('change e-mail', () => {
  const send = (user: User) => user.click(within(form('Change e-mail')).getByRole('button', { name: 'Send confirmation link' }));

  test('a missing, malformed or unchanged address, or no password, shows its message and sends nothing', async () => {
    const calls = recordCalls();
    const { user } = await open();
    const f = form('Change e-mail');
    const field = (label: string) => within(f).getByLabelText(label);
    await send(user);
    expect(field('New e-mail')).toHaveAccessibleDescription('New e-mail is required!');
    expect(field('Current password')).toHaveAccessibleDescription('Current password is required!');

    await fill(user, f, { 'New e-mail': 'not-an-address', 'Current password': 'pass word 1' });
    await send(user);
    expect(field('New e-mail')).toHaveAccessibleDescription(INVALID_EMAIL_MESSAGE);
    expect(field('Current password')).not.toHaveAccessibleDescription();

    await fill(user, f, { 'New e-mail': ' Tess@ACME.test ' });
    await send(user);
    expect(field('New e-mail')).toHaveAccessibleDescription(SAME_EMAIL);
    expect(sent(calls, 'account/request_change_email/')).toEqual([]);
  });

  test.each([
    ['a wrong password', { password: ['Your password is not correct.'] }, 'Current password'],
    ['an address in use', { email: ['user with this email already exists.'] }, 'New e-mail'],
  ])('%s: the server’s message shows next to its field', async (_, body, label) => {
    server.use(http.post(apiUrl('account/request_change_email/'), () => HttpResponse.json(body, { status: 400 })));
    const { user } = await open();
    const f = form('Change e-mail');
    await fill(user, f, { 'New e-mail': 'new@acme.test', 'Current password': 'pass word 1' });
    await send(user);
    const message = Object.values(body)[0]![0]!;
    await waitFor(() => expect(within(f).getByLabelText(label)).toHaveAccessibleDescription(message));
    expect(screen.queryByText(/has been sent to new@acme.test/)).toBeNull();
  });

  test('sends the new address with the password and says a link went to it', async () => {
    const calls = recordCalls();
    const success = vi.spyOn(toast, 'success');
    server.use(http.post(apiUrl('account/request_change_email/'), () => HttpResponse.json({ msg: LINK_SENT })));
    const { user } = await open();
    const f = form('Change e-mail');
    await fill(user, f, { 'New e-mail': '  new@acme.test ', 'Current password': 'pass word 1' });
    await send(user);
    expect(await within(f).findByRole('status')).toHaveTextContent(
      'A confirmation link has been sent to new@acme.test. Open it to finish the change.',
    );
    expect(success).toHaveBeenCalledWith(LINK_SENT, { duration: 5000 });
    expect(sent(calls, 'account/request_change_email/')).toMatchObject([
      { method: 'POST', body: { email: 'new@acme.test', password: 'pass word 1' }, authorization: 'Bearer tok' },
    ]);
    expect(within(f).getByLabelText('New e-mail')).toHaveValue('');
    expect(within(f).getByLabelText('Current password')).toHaveValue('');
    // The address changes only once the link is used.
    expect(readSession().email).toBe('tess@acme.test');
  });

  test('the code from the mail confirms the new address, which the session then shows', async () => {
    const calls = recordCalls();
    let good = false;
    server.use(
      http.post(apiUrl('account/request_change_email/'), () => HttpResponse.json({ msg: LINK_SENT })),
      http.patch(apiUrl('account/verify-email-change/'), () =>
        good ? HttpResponse.json({ msg: EMAIL_CHANGED }) : HttpResponse.json({ token: [TOKEN_INVALID] }, { status: 400 }),
      ),
    );
    const { user } = await open();
    await fill(user, form('Change e-mail'), { 'New e-mail': 'new@acme.test', 'Current password': 'pass word 1' });
    await send(user);
    await within(form('Change e-mail')).findByRole('status');

    await user.click(screen.getByText('I have the confirmation code from the e-mail'));
    const c = form('Confirm new e-mail');
    const confirm = () => user.click(within(c).getByRole('button', { name: 'Confirm new e-mail' }));
    await confirm();
    expect(within(c).getByLabelText('Confirmation code')).toHaveAccessibleDescription('Confirmation code is required!');
    expect(sent(calls, 'account/verify-email-change/')).toEqual([]);

    await fill(user, c, { 'Confirmation code': 'old-code' });
    await confirm();
    expect(await within(c).findByRole('alert')).toHaveTextContent(TOKEN_INVALID);

    good = true;
    await fill(user, c, { 'Confirmation code': ' code-1 ' });
    await confirm();
    expect(await within(c).findByRole('status')).toHaveTextContent(EMAIL_CHANGED);
    expect(sent(calls, 'account/verify-email-change/').map((x) => x.body)).toEqual([{ token: 'old-code' }, { token: 'code-1' }]);
    expect(readSession().email).toBe('new@acme.test');
    const facts = within(screen.getByRole('region', { name: 'Your details' })).getAllByRole('definition');
    expect(facts[1]).toHaveTextContent('new@acme.test');
  });

  test('the mailed link confirms the address once (React mounting twice) and leaves the address bar', async () => {
    const calls = recordCalls();
    server.use(http.patch(apiUrl('account/verify-email-change/'), () => HttpResponse.json({ msg: EMAIL_CHANGED })));
    signInAs('org_admin');
    const { router } = renderApp('/user/setting?verify-email-change=tok-7', undefined, { strict: true });
    expect(await screen.findByText(/Your e-mail address has been changed\. Sign in with the new address/)).toHaveAttribute(
      'role',
      'status',
    );
    expect(sent(calls, 'account/verify-email-change/')).toMatchObject([{ method: 'PATCH', body: { token: 'tok-7' }, authorization: null }]);
    expect(router.state.location.pathname).toBe('/user/setting');
    expect(router.state.location.search).toBe('');
  });

  test('a used or expired link says so', async () => {
    server.use(
      http.patch(apiUrl('account/verify-email-change/'), () => HttpResponse.json({ token: [TOKEN_INVALID] }, { status: 400 })),
    );
    signInAs('org_admin');
    renderApp('/user/setting?verify-email-change=old');
    await waitFor(() => expect(screen.getAllByRole('alert').some((a) => a.textContent === TOKEN_INVALID)).toBe(true));
  });
});

describe('two-step verification method', () => {
  const section = () => screen.getByRole('region', { name: 'Two-step verification' });
  const choose = (user: User, label: string) => user.click(within(section()).getByRole('button', { name: label }));

  test('e-mail: chosen, then confirmed; the session’s own token is sent', async () => {
    const calls = recordCalls();
    const success = vi.spyOn(toast, 'success');
    server.use(http.patch(apiUrl('account/set_mfa_method_email/'), () => HttpResponse.json({ msg: 'OTP Sent!' })));
    const { user } = await open();
    expect(section()).toHaveTextContent('Current method: the one you chose when signing in');
    await choose(user, 'E-mail');
    expect(sent(calls, 'account/set_mfa_method_email/')).toEqual([]);
    expect(within(section()).getByText('Codes will be sent to tess@acme.test.')).toBeInTheDocument();
    await user.click(within(section()).getByRole('button', { name: 'Use e-mail' }));
    await waitFor(() => expect(section()).toHaveTextContent('Current method: E-mail'));
    expect(success).toHaveBeenCalledWith(METHOD_SET.email, { duration: 3000 });
    expect(sent(calls, 'account/set_mfa_method_email/')).toMatchObject([{ method: 'PATCH', authorization: 'Bearer tok' }]);
    expect(within(section()).queryByRole('button', { name: 'Use e-mail' })).toBeNull();
  });

  test('SMS: a bad number is refused before sending, the server’s message shows, a good one is set', async () => {
    const calls = recordCalls();
    let n = 0;
    server.use(
      http.patch(apiUrl('account/set_mfa_method_sms/'), () =>
        n++ === 0
          ? HttpResponse.json({ mobile_number: ['This number cannot receive messages.'] }, { status: 400 })
          : HttpResponse.json({ msg: 'OTP Sent!' }),
      ),
    );
    const { user } = await open();
    await choose(user, 'SMS');
    const f = within(section()).getByRole('form', { name: 'Mobile number for SMS codes' });
    const apply = () => user.click(within(f).getByRole('button', { name: 'Use SMS' }));
    await apply();
    expect(within(f).getByLabelText('Mobile number')).toHaveAccessibleDescription('Mobile number is required!');
    await fill(user, f, { 'Mobile number': '12' });
    await apply();
    expect(within(f).getByLabelText('Mobile number')).toHaveAccessibleDescription(MOBILE_NUMBER_MESSAGE);
    expect(sent(calls, 'account/set_mfa_method_sms/')).toEqual([]);

    await fill(user, f, { 'Mobile number': '+49 151 12345678' });
    await apply();
    await waitFor(() =>
      expect(within(f).getByLabelText('Mobile number')).toHaveAccessibleDescription('This number cannot receive messages.'),
    );
    await apply();
    await waitFor(() => expect(section()).toHaveTextContent('Current method: SMS'));
    expect(sent(calls, 'account/set_mfa_method_sms/').map((c) => c.body)).toEqual([
      { mobile_number: '+49 151 12345678' },
      { mobile_number: '+49 151 12345678' },
    ]);
  });

  test('authenticator app: the QR code, a malformed code refused, a wrong one shown, a right one sets it', async () => {
    const calls = recordCalls();
    const createObjectURL = vi.fn(() => 'blob:qr');
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    let n = 0;
    const answer: LoginUser = {
      id: 5,
      name: 'Tess',
      lastname: '',
      email: 'tess@acme.test',
      role: 'org_admin',
      token: 'tok-2',
      refresh: 'ref-2',
      session_key: 'sk',
      Organization: { id: 1, name: 'acme', org_name_to_display: 'ACME' },
      poc: false,
      is_policy_accepted: true,
      require_otp: false,
      receive_otp_on: 'authenticator_app',
      is_otp_setup: true,
      has_mobile_number: false,
    };
    server.use(
      http.patch(
        apiUrl('account/get_qr_code/'),
        () => new HttpResponse(new Uint8Array([137, 80, 78, 71]), { headers: { 'Content-Type': 'image/png' } }),
      ),
      http.patch(apiUrl('account/set_mfa_method_authenticator_app/'), () =>
        n++ === 0 ? HttpResponse.json({ otp: ['Invalid or expired OTP.'] }, { status: 400 }) : HttpResponse.json(answer),
      ),
    );
    try {
      const { user } = await open();
      await choose(user, 'Authenticator app');
      expect(await within(section()).findByRole('img', { name: 'QR code for the authenticator app' })).toHaveAttribute('src', 'blob:qr');
      const f = within(section()).getByRole('form', { name: 'Authenticator app setup' });
      const apply = () => user.click(within(f).getByRole('button', { name: 'Use this app' }));
      await fill(user, f, { '6-digit code': '12a' });
      await apply();
      expect(within(f).getByLabelText('6-digit code')).toHaveAccessibleDescription(OTP_MESSAGE);
      expect(sent(calls, 'account/set_mfa_method_authenticator_app/')).toEqual([]);

      await fill(user, f, { '6-digit code': '123456' });
      await apply();
      await waitFor(() => expect(within(f).getByLabelText('6-digit code')).toHaveAccessibleDescription('Invalid or expired OTP.'));
      await fill(user, f, { '6-digit code': '654321' });
      await apply();
      await waitFor(() => expect(section()).toHaveTextContent('Current method: Authenticator app'));
      expect(sent(calls, 'account/set_mfa_method_authenticator_app/').map((c) => c.body)).toEqual([{ otp: '123456' }, { otp: '654321' }]);
      expect(names(callsTo(calls, 'PATCH', 'account/get_qr_code/'))).toEqual(['PATCH account/get_qr_code/']);
      expect(readSession()).toMatchObject({ token: 'tok-2', refresh: 'ref-2', isOtpSetup: true });
      expect(revokeObjectURL).toHaveBeenCalledWith('blob:qr');
    } finally {
      Reflect.deleteProperty(URL, 'createObjectURL');
      Reflect.deleteProperty(URL, 'revokeObjectURL');
    }
  });

  test('a session without a method says none yet', async () => {
    signInAs('org_admin');
    writeSession({ isOtpSetup: false });
    renderApp('/user/setting');
    expect(await screen.findByRole('region', { name: 'Two-step verification' })).toHaveTextContent('Current method: none yet');
  });
});
