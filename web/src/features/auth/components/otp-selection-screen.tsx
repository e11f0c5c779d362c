import { useState } from 'react';
import { useNavigate } from 'react-router';

import { AuthenticatorSetup } from '@/components/mfa/authenticator-setup';
import { type MfaMethod, MfaMethodChoice } from '@/components/mfa/method-choice';
import { SmsForm } from '@/components/mfa/sms-form';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-errors';
import { useSession } from '@/lib/session';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

import { getQrCode, setMfaAuthenticatorApp, setMfaEmail, setMfaSms } from '../api/auth';
import { useOtpSubmit } from './use-otp-submit';

type Choice = MfaMethod | null;

/** `/otp-selection`: choose how to receive one-time codes. */
export default function OtpSelectionScreen() {
  const navigate = useNavigate();
  const s = useSession();
  const [choice, setChoice] = useState<Choice>(null);
  const [busy, setBusy] = useState(false);

  if (!s.persistUserInfoTemporary) {
    return (
      <section>
        <h1>Select Verification Method</h1>
        <p>There is no sign-in in progress.</p>
        <button type="button" onClick={() => void navigate(paths.login)}>
          Back to login
        </button>
      </section>
    );
  }

  async function run(call: () => Promise<{ msg: string }>, method: Choice) {
    setBusy(true);
    try {
      const r = await withSpinner(call());
      notify.successShort(r.msg);
      await navigate(paths.otpVerification, { state: { method } });
    } catch (err) {
      notify.errorShort(errorMessage(err, 'account'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section>
      <h1>Select Verification Method</h1>
      <p>Choose how to receive your 6-digit sign-in code.</p>
      <MfaMethodChoice
        value={choice}
        busy={busy}
        // E-mail needs nothing more: the code is sent at once.
        onChoose={(m) => (m === 'email' ? void run(setMfaEmail, 'email') : setChoice(m))}
      />
      {choice === 'sms' ? (
        <SmsForm busy={busy} button="Send code" onSubmit={(n) => void run(() => setMfaSms({ mobile_number: n }), 'sms')} />
      ) : null}
      {choice === 'authenticator_app' ? <AppSetup /> : null}
    </section>
  );
}

/** Scan the QR code, then confirm with a code from the app (this completes the sign-in). */
function AppSetup() {
  const otp = useOtpSubmit(setMfaAuthenticatorApp);
  return <AuthenticatorSetup loadQr={getQrCode} {...otp} />;
}
