import { useLocation, useNavigate } from 'react-router';

import { OtpInput } from '@/components/mfa/otp-input';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-errors';
import { useSession } from '@/lib/session';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

import { resendOtp, verifyOtpCode } from '../api/auth';
import { useOtpSubmit } from './use-otp-submit';

/** `/otp-verification`: enter the 6-digit code. */
export default function OtpVerificationScreen() {
  const navigate = useNavigate();
  const method = (useLocation().state as { method?: string | null } | null)?.method ?? null;
  const s = useSession();
  const { code, setCode, error, busy, submit } = useOtpSubmit(verifyOtpCode);

  if (!s.persistUserInfoTemporary) {
    return (
      <section>
        <h1>Verify Code</h1>
        <p>There is no sign-in in progress.</p>
        <button type="button" onClick={() => void navigate(paths.login)}>
          Back to login
        </button>
      </section>
    );
  }

  async function resend() {
    try {
      notify.successShort((await withSpinner(resendOtp())).msg);
    } catch (err) {
      notify.errorShort(errorMessage(err, 'account'));
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Verify code">
      <h1>Verify Code</h1>
      <p>
        {method === 'authenticator_app'
          ? 'Enter the 6-digit code your authenticator app shows.'
          : `Enter the 6-digit code we sent${s.email ? ` for ${s.email}` : ''}.`}
      </p>
      <OtpInput value={code} onChange={setCode} error={error} />
      <button type="submit" disabled={busy}>
        Verify
      </button>
      {method === 'authenticator_app' ? null : (
        <button type="button" className="link-button" onClick={() => void resend()}>
          Send a new code
        </button>
      )}
    </form>
  );
}
