/**
 * The sign-in calls (spec section 7 "Account"): credentials, the second factor, and
 * the organisation step. The MFA calls carry the temporary token of the sign-in.
 */
import { queryOptions } from '@tanstack/react-query';

import type {
  LoginRequest,
  LoginUser,
  Msg,
  Organization,
  OtpRequest,
  PendingApproval,
  SmsMethodRequest,
  SwitchOrganization,
  SwitchResult,
} from '@/api/generated';
import { ApiError, api } from '@/lib/api-client';
import { readSession } from '@/lib/session';

/** `login_v2` (or the admin host's `admin-login/`): a user, or an account awaiting approval. */
export async function signIn(body: LoginRequest, admin: boolean): Promise<LoginUser | PendingApproval> {
  return api.post<LoginUser | PendingApproval>(admin ? 'account/admin-login/' : 'account/login_v2', body, { token: null });
}

export function isPendingApproval(r: LoginUser | PendingApproval): r is PendingApproval {
  return !('token' in r);
}

/** The temporary token of the sign-in in progress. */
function temporaryToken(): string {
  const t = readSession().persistUserInfoTemporary?.token ?? readSession().token;
  if (!t) throw new ApiError(401, { detail: 'Sign in first.' });
  return t;
}

export const setMfaEmail = () => api.patch<Msg>('account/set_mfa_method_email/', undefined, { token: temporaryToken() });

export const setMfaSms = (body: SmsMethodRequest) =>
  api.patch<Msg>('account/set_mfa_method_sms/', body, { token: temporaryToken() });

export const sendOtpCode = () => api.get<Msg>('account/send_otp_code/', { token: temporaryToken() });

export const resendOtp = () => api.get<Msg>('account/resend_otp/', { token: temporaryToken() });

export const verifyOtpCode = (body: OtpRequest) =>
  api.post<LoginUser>('account/verify_otp_code/', body, { token: temporaryToken() });

/** The authenticator app's QR code (PNG) for a new secret. */
export const getQrCode = () => api.blob('PATCH', 'account/get_qr_code/', { token: temporaryToken() });

export const setMfaAuthenticatorApp = (body: OtpRequest) =>
  api.patch<LoginUser>('account/set_mfa_method_authenticator_app/', body, { token: temporaryToken() });

/** The organisations the user can act in. */
export const organizationsQuery = () =>
  queryOptions({
    queryKey: ['organizations', 'mine'],
    queryFn: () => api.get<Organization[]>('organization/'),
    staleTime: 0,
  });

export const switchOrganization = (body: SwitchOrganization) =>
  api.patch<SwitchResult>('account/switch_user_organization', body);
