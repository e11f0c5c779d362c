/**
 * A 6-digit code form: checks the code (spec section 5 OTP rule) before sending
 * anything, sends it once at a time with `send`, and on failure shows the section 8
 * message as a 3 s toast (and, with `fieldErrors`, the server's `otp` message next to
 * the field).
 */
import { useState } from 'react';

import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';
import { otp } from '@/lib/validate';

export function useOtpCode(send: (code: string) => Promise<void>, opts: { fieldErrors?: boolean } = {}) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (busy) return;
    const bad = otp(code);
    setError(bad);
    if (bad !== null) return;
    setBusy(true);
    try {
      await withSpinner(send(code.trim()));
    } catch (err) {
      if (opts.fieldErrors) setError(fieldErrors(err).otp ?? null);
      notify.errorShort(errorMessage(err, 'account'));
    } finally {
      setBusy(false);
    }
  }

  return { code, setCode, error, busy, submit };
}
