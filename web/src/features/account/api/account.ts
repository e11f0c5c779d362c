/**
 * The account calls of the public screens (spec section 7 "Account"): sign-up, the
 * verification e-mail, forgotten and changed passwords. Shapes: `cloud/src/http/account/`
 * (`signup.rs`, `password.rs`); every one answers `{msg}`, 400 `{field: [message]}`.
 */
import { queryOptions } from '@tanstack/react-query';

import type { ChangePasswordRequest, EmailRequest, Msg, RegisterRequest, ResetPasswordRequest } from '@/api/generated';
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
export const verifyEmailQuery = (token: string) =>
  queryOptions({
    queryKey: ['account', 'verify-email', token],
    queryFn: () => api.patch<Msg>(`account/verify-email/${encodeURIComponent(token)}`, undefined, { token: null }),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnMount: false,
    refetchOnReconnect: false,
    refetchOnWindowFocus: false,
  });

/** Mails a reset link; answers the same whether or not the address is known. */
export const forgotPassword = (body: EmailRequest) => api.patch<Msg>('account/forgot_password/', body, { token: null });

/** Sets the password with the mailed token; every session of the user ends. */
export const resetPassword = (body: ResetPasswordRequest) =>
  api.patch<Msg>('account/reset_password/', body, { token: null });

/** The signed-in user changes their password (also while a change is required: 303). */
export const changePassword = (body: ChangePasswordRequest) => api.patch<Msg>('account/request_change_password/', body);
