import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { AuthenticatorSetup } from '@/components/mfa/authenticator-setup';
import { MFA_METHOD_LABELS, type MfaMethod, MfaMethodChoice } from '@/components/mfa/method-choice';
import { SmsForm } from '@/components/mfa/sms-form';
import { useOtpCode } from '@/components/mfa/use-otp-code';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { useSession, writeSession } from '@/lib/session';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

import { getQrCode, setMfaAuthenticatorApp, setMfaEmail, setMfaSms } from '../api/account';

/** What each method's change says once the server took it. */
export const METHOD_SET: Record<MfaMethod, string> = {
  email: 'Sign-in codes will now be sent by e-mail.',
  sms: 'Sign-in codes will now be sent by SMS.',
  authenticator_app: 'Sign-in codes now come from your authenticator app.',
};

/**
 * How the user receives sign-in codes (two-step verification): e-mail, SMS to a mobile
 * number, or an authenticator app confirmed with one of its codes. The same calls and
 * pieces as the sign-in's method selection, with the session's own token. The session
 * does not keep the method (spec section 3), so the current one is named only once
 * changed here.
 */
export function VerificationMethodSection() {
  const s = useSession();
  const id = useId();
  const [current, setCurrent] = useState<MfaMethod | null>(null);
  const [choice, setChoice] = useState<MfaMethod | null>(null);
  const [smsError, setSmsError] = useState<string | null>(null);

  function done(m: MfaMethod) {
    notify.successShort(METHOD_SET[m]);
    writeSession({ isOtpSetup: true });
    setCurrent(m);
    setChoice(null);
  }
  const failed = (err: unknown) => notify.errorShort(errorMessage(err, 'account'));

  const email = useMutation({
    mutationFn: () => withSpinner(setMfaEmail()),
    onSuccess: () => done('email'),
    onError: failed,
  });
  const sms = useMutation({
    mutationFn: (mobile_number: string) => withSpinner(setMfaSms({ mobile_number })),
    onMutate: () => setSmsError(null),
    onSuccess: () => done('sms'),
    onError: (err) => {
      setSmsError(fieldErrors(err).mobile_number ?? null);
      failed(err);
    },
  });
  const busy = email.isPending || sms.isPending;

  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>Two-step verification</h2>
      <p>
        Current method:{' '}
        <strong>{current ? MFA_METHOD_LABELS[current] : s.isOtpSetup ? 'the one you chose when signing in' : 'none yet'}</strong>
      </p>
      <p className="muted">Change how you receive the 6-digit code you enter after your password.</p>
      <MfaMethodChoice value={choice} busy={busy} onChoose={(m) => setChoice((c) => (c === m ? null : m))} />
      {choice === 'email' ? (
        <div className="profile-form">
          <p>Codes will be sent to {s.email ?? 'your e-mail address'}.</p>
          <button type="button" disabled={busy} onClick={() => email.mutate()}>
            Use e-mail
          </button>
        </div>
      ) : null}
      {choice === 'sms' ? (
        <div className="profile-form">
          <SmsForm busy={busy} button="Use SMS" error={smsError} onSubmit={(n) => sms.mutate(n)} />
        </div>
      ) : null}
      {choice === 'authenticator_app' ? <AppPanel onDone={() => done('authenticator_app')} /> : null}
    </section>
  );
}

/** A new secret for the app: its QR code, then one of its codes to confirm it. */
function AppPanel({ onDone }: { onDone: () => void }) {
  const otp = useOtpCode(
    async (code) => {
      const user = await setMfaAuthenticatorApp({ otp: code });
      // The answer renews the session's tokens (the same session).
      writeSession({ token: user.token, ...(user.refresh ? { refresh: user.refresh } : {}) });
      onDone();
    },
    { fieldErrors: true },
  );
  return (
    <div className="profile-form">
      <AuthenticatorSetup loadQr={getQrCode} button="Use this app" {...otp} />
    </div>
  );
}
