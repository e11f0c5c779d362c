import { Link, useParams } from 'react-router';

import { Field, FormError } from '@/components/ui/field';
import { paths } from '@/config/paths';
import * as rule from '@/lib/validate';

import { resetPassword } from '../api/account';
import { PASSWORDS_DIFFER, TOKEN_INVALID, isBadToken } from '../messages';
import { Result } from './result';
import { useAccountForm } from './use-account-form';

/**
 * `/reset-password/{token}`: the mailed link. Sets the new password (every session of
 * the account ends), then the login screen after 3 s. A used or expired link shows
 * 'Token expired/Invalid!' and offers a new one.
 */
export default function ResetPasswordScreen() {
  const token = useParams().token ?? '';
  const { busy, done, errors, submit, field } = useAccountForm({
    initial: { password: '', confirm: '' },
    check: (v) => ({
      password: rule.password('New password', v.password),
      confirm: v.confirm === '' ? rule.requiredMessage('Confirm password') : v.confirm !== v.password ? PASSWORDS_DIFFER : null,
    }),
    send: (v) => resetPassword({ token, password: v.password }),
    kind: 'account',
    failure: (err) => (isBadToken(err) ? TOKEN_INVALID : null),
  });

  if (done !== null) return <Result title="Reset Password" message={done} />;

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Reset password">
      <h1>Reset Password</h1>
      <Field label="New password" type="password" autoComplete="new-password" required maxLength={rule.MAX_CHARS.PASSWORD} {...field('password')} />
      <Field label="Confirm password" type="password" autoComplete="new-password" required maxLength={rule.MAX_CHARS.PASSWORD} {...field('confirm')} />
      <FormError message={errors.form} />
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Set password'}
      </button>
      <p className="auth-links">
        <Link to={paths.forgotPassword}>Send a new link</Link>
        <Link to={paths.login}>Back to login</Link>
      </p>
    </form>
  );
}
