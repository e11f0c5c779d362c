/**
 * The 6-digit code form shared by the code screens: checks the code (spec section 5
 * OTP rule) before sending anything, sends it with `send`, and completes the sign-in.
 */
import { useNavigate } from 'react-router';

import type { LoginUser } from '@/api/generated';
import { useOtpCode } from '@/components/mfa/use-otp-code';
import { notify } from '@/lib/toast';

import { LOGGED_IN, completeSignIn } from '../flow';

export function useOtpSubmit(send: (body: { otp: string }) => Promise<LoginUser>) {
  const navigate = useNavigate();
  return useOtpCode(async (otp) => {
    const user = await send({ otp });
    notify.successShort(LOGGED_IN);
    await navigate(completeSignIn(user));
  });
}
