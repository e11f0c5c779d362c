import { useEffect, useState } from 'react';

import { errorMessage } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { OtpInput } from './otp-input';

type Props = {
  /** A new secret's QR code (`PATCH account/get_qr_code/`), asked for once shown. */
  loadQr: () => Promise<Blob>;
  code: string;
  setCode: (v: string) => void;
  error: string | null;
  busy: boolean;
  submit: (e: React.FormEvent) => void | Promise<void>;
  button?: string;
};

/** Scan the QR code, then confirm the app with a code it shows. */
export function AuthenticatorSetup({ loadQr, code, setCode, error, busy, submit, button = 'Verify' }: Props) {
  const [qr, setQr] = useState<string | null>(null);

  useEffect(() => {
    // Each call makes a new secret and the last one asked for counts: an answer that
    // arrives after this effect was cleaned up (React mounting twice) is dropped.
    let live = true;
    let url: string | null = null;
    loadQr().then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setQr(url);
      },
      (err: unknown) => {
        if (live) notify.errorShort(errorMessage(err, 'account'));
      },
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [loadQr]);

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Authenticator app setup">
      <p>Scan this code with your authenticator app, then enter the 6-digit code it shows.</p>
      {qr ? <img src={qr} alt="QR code for the authenticator app" width={200} height={200} /> : <p>Loading the QR code…</p>}
      <OtpInput value={code} onChange={setCode} error={error} />
      <button type="submit" disabled={busy}>
        {button}
      </button>
    </form>
  );
}
