/**
 * The account calls (spec section 7 "Account") of the public screens (sign-up, the
 * verification e-mail, forgotten and changed passwords) and of Profile Setting (password,
 * e-mail address, second-factor method). Shapes: `cloud/src/http/account/` (`signup.rs`,
 * `password.rs`, `mfa.rs`); all but the QR code and the authenticator answer `{msg}`,
 * 400 `{field: [message]}`.
 */
import { queryOptions } from '@tanstack/react-query';

import type {
  ChangeEmailRequest,
  ChangePasswordRequest,
  EmailRequest,
  LoginUser,
  Msg,
  OtpRequest,
  RegisterRequest,
  ResetPasswordRequest,
  SmsMethodRequest,
} from '@/api/generated';
import { api } from '@/lib/api-client';

/** 201: the verification e-mail is on its way. */
export const register = (body: RegisterRequest) => api.post<Msg>('account/register', body, { token: null });

/** Answers the same whether or not the address is known. */
export const resendVerificationEmail = (body: EmailRequest) =>
  api.post<Msg>('account/resend-verification-email', body, { token: null });

/**
 * Confirms the address with the mailed token (single use). A query, not a mutation, so
 * that the screen sends it once per token even when React mounts it twice (StrictMode):
 * never retried, never refetched, kept while the portal runs.
 */
/** A mailed link's confirmation as a query asked once per token (single-use tokens:
 * never again on a remount, a reconnect or a focus). */
const oncePerToken = (kind: string, token: string, confirm: () => Promise<Msg>) =>
  queryOptions({
    queryKey: ['account', kind, token],
    queryFn: confirm,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnMount: false,
    refetchOnReconnect: false,
    refetchOnWindowFocus: false,
  });

export const verifyEmailQuery = (token: string) =>
  oncePerToken('verify-email', token, () =>
    api.patch<Msg>(`account/verify-email/${encodeURIComponent(token)}`, undefined, { token: null }),
  );

/** Mails a reset link; answers the same whether or not the address is known. */
export const forgotPassword = (body: EmailRequest) => api.patch<Msg>('account/forgot_password/', body, { token: null });

/** Sets the password with the mailed token; every session of the user ends. */
export const resetPassword = (body: ResetPasswordRequest) =>
  api.patch<Msg>('account/reset_password/', body, { token: null });

/** The signed-in user changes their password (also while a change is required: 303). */
export const changePassword = (body: ChangePasswordRequest) => api.patch<Msg>('account/request_change_password/', body);

/** Mails a confirmation link (and code) to the new address; the password proves it is
 * the user. The address changes only once the link is opened. */
export const requestChangeEmail = (body: ChangeEmailRequest) => api.post<Msg>('account/request_change_email/', body);

/**
 * Confirms the new address with the mailed token (single use; no session needed). A
 * query, not a mutation, for the link's token: sent once per token even when React
 * mounts the screen twice.
 */
export const verifyEmailChange = (token: string) =>
  api.patch<Msg>('account/verify-email-change/', { token }, { token: null });

export const verifyEmailChangeQuery = (token: string) =>
  oncePerToken('verify-email-change', token, () => verifyEmailChange(token));

// The second factor of a signed-in user (`mfa.rs`): the same calls as at sign-in, with
// the session's own token; changing a method already set up needs a full session.

/** Codes by e-mail from now on (the server also sends one at once). */
export const setMfaEmail = () => api.patch<Msg>('account/set_mfa_method_email/');

/** Codes by SMS to `mobile_number` from now on (one is sent at once). */
export const setMfaSms = (body: SmsMethodRequest) => api.patch<Msg>('account/set_mfa_method_sms/', body);

/** A new authenticator-app secret's QR code (PNG); kept pending until confirmed. */
export const getQrCode = () => api.blob('PATCH', 'account/get_qr_code/');

/** Confirms the app with a code it shows; answers the session (refreshed tokens). */
export const setMfaAuthenticatorApp = (body: OtpRequest) =>
  api.patch<LoginUser>('account/set_mfa_method_authenticator_app/', body);
