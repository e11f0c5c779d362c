import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';

import { paths } from '@/config/paths';

import { verifyEmailQuery } from '../api/account';
import { Result } from './result';
import { useLinkOutcome } from './use-link-outcome';

/**
 * `/verify-email/{token}`: the link of the verification e-mail. Confirms the address
 * once, shows the server's answer ('Admin has been notified. Your account will be
 * approved within 24 Hours.' for an account awaiting approval) or 'Token
 * expired/Invalid!', then the login screen after 3 s (section 9).
 */
export default function VerifyEmailScreen() {
  const token = useParams().token ?? '';
  const q = useQuery(verifyEmailQuery(token));
  const message = useLinkOutcome(q);

  if (message === null) {
    return (
      <section>
        <h1>Verify Email</h1>
        <p role="status">Verifying your e-mail address…</p>
      </section>
    );
  }
  return (
    <Result title="Verify Email" message={message} failed={q.isError}>
      {q.isError ? (
        <p className="auth-links">
          <Link to={paths.resendVerification}>Send a new verification link</Link>
        </p>
      ) : null}
    </Result>
  );
}
