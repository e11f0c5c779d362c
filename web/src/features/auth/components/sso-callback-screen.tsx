import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-errors';
import { clearSessionState, writeSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { ADMIN_NOTIFIED, LOGGED_IN, afterCredentials } from '../flow';
import { SsoFailure, finishSso } from '@/lib/sso';

/**
 * `/sso-callback`: where the identity provider sends the browser back. The sign-in
 * goes on like a password sign-in (one-time code, organisation); a sign-up shows
 * 'Admin has been notified…' and the login screen; a failure shows the server's
 * message and signs out (spec section 8 "Single-sign-on failure").
 */
export default function SsoCallbackScreen() {
  const navigate = useNavigate();
  const { search } = useLocation();
  // The code is good once: React's double effects in development must not spend it.
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void (async () => {
      try {
        const r = await finishSso(search);
        if ('msg' in r.answer) {
          notify.success(ADMIN_NOTIFIED);
          await navigate(paths.login, { replace: true });
          return;
        }
        const step = await afterCredentials(r.answer);
        if (step.kind === 'pendingApproval') {
          notify.success(step.message);
          await navigate(paths.login, { replace: true });
          return;
        }
        writeSession({ azureLogin: r.kind === 'azure' });
        if (step.sent) notify.successShort(step.sent.msg);
        if (step.to !== paths.otpSelection && step.to !== paths.otpVerification) notify.successShort(LOGGED_IN);
        await navigate(step.to, { replace: true, state: { method: step.method ?? null } });
      } catch (err) {
        clearSessionState();
        notify.errorShort(err instanceof SsoFailure ? err.message : errorMessage(err, 'login'));
        await navigate(paths.login, { replace: true });
      }
    })();
  }, [navigate, search]);

  return <p aria-busy="true">Signing in…</p>;
}
