import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';

import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { verifyEmailQuery } from '../api/account';
import { TOKEN_INVALID, isBadToken } from '../messages';
import { Result } from './result';

/**
 * `/verify-email/{token}`: the link of the verification e-mail. Confirms the address
 * once, shows the server's answer ('Admin has been notified. Your account will be
 * approved within 24 Hours.' for an account awaiting approval) or 'Token
 * expired/Invalid!', then the login screen after 3 s (section 9).
 */
export default function VerifyEmailScreen() {
  const token = useParams().token ?? '';
  const q = useQuery(verifyEmailQuery(token));
  const message = q.isSuccess ? q.data.msg : q.isError ? (isBadToken(q.error) ? TOKEN_INVALID : errorMessage(q.error, 'account')) : null;

  // One toast per outcome (React may run effects twice in development).
  const toasted = useRef<string | null>(null);
  useEffect(() => {
    if (message === null || toasted.current === message) return;
    toasted.current = message;
    if (q.isSuccess) notify.success(message);
    else notify.errorShort(message);
  }, [message, q.isSuccess]);

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
