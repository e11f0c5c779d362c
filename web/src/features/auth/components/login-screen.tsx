import { useState } from 'react';
import { Link, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-errors';
import { useSite } from '@/lib/site';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

import { signIn } from '../api/auth';
import { LOGGED_IN, afterCredentials } from '../flow';
import { SsoButtons } from '@/components/auth/sso-buttons';

/** `/login`: the admin login on the admin host, the normal login elsewhere. */
export default function LoginScreen() {
  const { site } = useSite();
  return <LoginForm admin={site.kind === 'admin'} />;
}

export function LoginForm({ admin }: { admin: boolean }) {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      const step = await withSpinner(signIn({ email: email.trim(), password }, admin).then(afterCredentials));
      if (step.kind === 'pendingApproval') {
        notify.success(step.message);
        setPassword('');
        return;
      }
      if (step.sent) notify.successShort(step.sent.msg);
      if (step.to !== paths.otpSelection && step.to !== paths.otpVerification) notify.successShort(LOGGED_IN);
      await navigate(step.to, { state: { method: step.method ?? null } });
    } catch (err) {
      notify.errorShort(errorMessage(err, 'login'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={admin ? 'Admin login' : 'Login'}>
      <h1>{admin ? 'Admin Login' : 'Login'}</h1>
      <label>
        E-mail
        <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Password
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      {admin ? null : <SsoButtons mode="signin" />}
      {admin ? null : (
        <p className="auth-links">
          <Link to={paths.forgotPassword}>Forgot password?</Link>
          <Link to={paths.signup}>Sign up</Link>
          <Link to={paths.resendVerification}>Resend verification e-mail</Link>
        </p>
      )}
      <p className="auth-links">
        <Link to={paths.privacyPolicy}>Privacy policy</Link>
      </p>
    </form>
  );
}
