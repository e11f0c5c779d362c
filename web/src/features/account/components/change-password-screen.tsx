import { Link, useNavigate } from 'react-router';

import { Field, FormError } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { homeOf } from '@/lib/access/guard';
import { logout } from '@/lib/api-client';
import { isSignedIn, readSession, useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import * as rule from '@/lib/validate';

import { changePassword } from '../api/account';
import { PASSWORDS_DIFFER, SAME_PASSWORD } from '../messages';
import { useAccountForm } from './use-account-form';

/**
 * `/change-password`: the signed-in user sets a new password. Every call of a user whose
 * password was set by someone else answers 303 until this is done, and the API client
 * sends them here (section 4). Other sessions of the account end; this one goes on to
 * the user's landing screen (through the organisation step when one is needed).
 */
export default function ChangePasswordScreen() {
  const s = useSession();
  if (!isSignedIn(s)) {
    return (
      <section>
        <h1>Change Password</h1>
        <p>Sign in first to change your password.</p>
        <p className="auth-links">
          <Link to={paths.login}>Go to login</Link>
          <Link to={paths.forgotPassword}>Forgot password?</Link>
        </p>
      </section>
    );
  }
  return <ChangePasswordForm />;
}

function ChangePasswordForm() {
  const navigate = useNavigate();
  const { busy, errors, submit, field } = useAccountForm({
    initial: { old_password: '', new_password: '', confirm: '' },
    check: (v) => ({
      old_password: v.old_password === '' ? rule.requiredMessage('Current password') : null,
      new_password:
        rule.password('New password', v.new_password) ??
        (v.old_password !== '' && v.new_password === v.old_password ? SAME_PASSWORD : null),
      confirm:
        v.confirm === '' ? rule.requiredMessage('Confirm password') : v.confirm !== v.new_password ? PASSWORDS_DIFFER : null,
    }),
    send: (v) => changePassword({ old_password: v.old_password, new_password: v.new_password }),
    kind: 'account',
    onSuccess: async ({ msg }) => {
      notify.successShort(msg);
      const role = readSession().role;
      await navigate(role ? homeOf(role) : paths.root, { replace: true });
    },
  });

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Change password">
      <h1>Change Password</h1>
      <Field label="Current password" type="password" autoComplete="current-password" required {...field('old_password')} />
      <Field label="New password" type="password" autoComplete="new-password" required {...field('new_password')} />
      <Field label="Confirm new password" type="password" autoComplete="new-password" required {...field('confirm')} />
      <FormError message={errors.form} />
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Change password'}
      </button>
      <p className="auth-links">
        <button type="button" className="link-button" onClick={() => void logout()}>
          Log out
        </button>
      </p>
    </form>
  );
}
