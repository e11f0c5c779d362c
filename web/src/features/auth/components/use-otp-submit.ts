/**
 * The 6-digit code form shared by the code screens: checks the code (spec section 5
 * OTP rule) before sending anything, sends it with `send`, and completes the sign-in.
 */
import { useState } from 'react';
import { useNavigate } from 'react-router';

import type { LoginUser } from '@/api/generated';
import { errorMessage } from '@/lib/api-errors';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

import { LOGGED_IN, OTP_INVALID_INPUT, completeSignIn, validOtp } from '../flow';

export function useOtpSubmit(send: (body: { otp: string }) => Promise<LoginUser>) {
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!validOtp(code)) {
      setError(OTP_INVALID_INPUT);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const user = await withSpinner(send({ otp: code.trim() }));
      notify.successShort(LOGGED_IN);
      await navigate(completeSignIn(user));
    } catch (err) {
      notify.errorShort(errorMessage(err, 'account'));
    } finally {
      setBusy(false);
    }
  }

  return { code, setCode, error, busy, submit };
}
