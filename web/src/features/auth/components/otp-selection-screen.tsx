import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';

import { Field } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { errorMessage } from '@/lib/api-errors';
import { useSession } from '@/lib/session';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';
import { mobileNumber } from '@/lib/validate';

import { getQrCode, setMfaAuthenticatorApp, setMfaEmail, setMfaSms } from '../api/auth';
import { useOtpSubmit } from './use-otp-submit';

type Choice = 'email' | 'authenticator_app' | 'sms' | null;

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
      <div className="choice-list" role="group" aria-label="Verification method">
        <button type="button" disabled={busy} onClick={() => void run(setMfaEmail, 'email')}>
          E-mail
        </button>
        <button type="button" disabled={busy} aria-pressed={choice === 'authenticator_app'} onClick={() => setChoice('authenticator_app')}>
          Authenticator app
        </button>
        <button type="button" disabled={busy} aria-pressed={choice === 'sms'} onClick={() => setChoice('sms')}>
          SMS
        </button>
      </div>
      {choice === 'sms' ? <SmsForm busy={busy} onSubmit={(n) => void run(() => setMfaSms({ mobile_number: n }), 'sms')} /> : null}
      {choice === 'authenticator_app' ? <AuthenticatorSetup /> : null}
    </section>
  );
}

function SmsForm({ busy, onSubmit }: { busy: boolean; onSubmit: (number: string) => void }) {
  const [number, setNumber] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        // The server's rule and message (section 5): nothing is sent for a bad number.
        const bad = mobileNumber('Mobile number', number);
        setError(bad);
        if (bad === null) onSubmit(number.trim());
      }}
    >
      <Field
        label="Mobile number"
        name="mobile_number"
        type="tel"
        autoComplete="tel"
        required
        value={number}
        error={error}
        onChange={(e) => setNumber(e.target.value)}
        placeholder="+4915112345678"
      />
      <button type="submit" disabled={busy}>
        Send code
      </button>
    </form>
  );
}

/** Scan the QR code, then confirm with a code from the app (this completes the sign-in). */
function AuthenticatorSetup() {
  const [qr, setQr] = useState<string | null>(null);
  const { code, setCode, error, busy, submit } = useOtpSubmit(setMfaAuthenticatorApp);

  useEffect(() => {
    let url: string | null = null;
    getQrCode().then(
      (blob) => {
        url = URL.createObjectURL(blob);
        setQr(url);
      },
      (err: unknown) => notify.errorShort(errorMessage(err, 'account')),
    );
    return () => {
      if (url) URL.revokeObjectURL(url);
    };
  }, []);

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <p>Scan this code with your authenticator app, then enter the 6-digit code it shows.</p>
      {qr ? <img src={qr} alt="QR code for the authenticator app" width={200} height={200} /> : <p>Loading the QR code…</p>}
      <OtpInput value={code} onChange={setCode} error={error} />
      <button type="submit" disabled={busy}>
        Verify
      </button>
    </form>
  );
}

export function OtpInput({ value, onChange, error }: { value: string; onChange: (v: string) => void; error: string | null }) {
  return (
    <>
      <label>
        6-digit code
        <input
          name="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          value={value}
          aria-invalid={error !== null}
          onChange={(e) => onChange(e.target.value)}
        />
      </label>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
