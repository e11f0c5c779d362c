import { Link } from 'react-router';

import { Field, FormError } from '@/components/ui/field';
import { paths } from '@/config/paths';
import * as rule from '@/lib/validate';
import { SsoButtons } from '@/components/auth/sso-buttons';

import { register } from '../api/account';
import { PASSWORDS_DIFFER } from '../messages';
import { Result } from './result';
import { useAccountForm } from './use-account-form';

/**
 * `/signup`: create an account (spec section 4 "Sign-up"). A verification e-mail is
 * sent; once the address is confirmed, a super admin approves the account. The
 * server's message shows, then the login screen after 3 s.
 */
export default function SignupScreen() {
  const { busy, done, errors, submit, field } = useAccountForm({
    initial: { name: '', lastname: '', email: '', password: '', confirm: '' },
    check: (v) => ({
      name: rule.personName('First name', v.name),
      lastname: rule.trimWs(v.lastname) === '' ? null : rule.personName('Last name', v.lastname),
      email: rule.email('E-mail', v.email),
      password: rule.password('Password', v.password),
      confirm: v.confirm === '' ? rule.requiredMessage('Confirm password') : v.confirm !== v.password ? PASSWORDS_DIFFER : null,
    }),
    send: (v) => register({ name: v.name.trim(), lastname: v.lastname.trim(), email: v.email.trim(), password: v.password }),
    kind: 'register',
  });

  if (done !== null) {
    return (
      <Result title="Sign Up" message={done}>
        <p>Open the link in the e-mail to confirm your address. A super admin then approves your account.</p>
      </Result>
    );
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Sign up">
      <h1>Sign Up</h1>
      <Field label="First name" autoComplete="given-name" required {...field('name')} />
      <Field label="Last name" autoComplete="family-name" {...field('lastname')} />
      <Field label="E-mail" type="email" autoComplete="email" required {...field('email')} />
      <Field label="Password" type="password" autoComplete="new-password" required {...field('password')} />
      <Field label="Confirm password" type="password" autoComplete="new-password" required {...field('confirm')} />
      <FormError message={errors.form} />
      <p className="muted">
        By signing up you agree to the <Link to={paths.privacyPolicy}>Privacy Policy</Link>.
      </p>
      <button type="submit" disabled={busy}>
        {busy ? 'Signing up…' : 'Sign up'}
      </button>
      <SsoButtons mode="signup" />
      <p className="auth-links">
        <Link to={paths.login}>Already have an account? Log in</Link>
        <Link to={paths.resendVerification}>Resend verification e-mail</Link>
      </p>
    </form>
  );
}
