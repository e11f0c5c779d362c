/**
 * The sign-in flow (spec section 4 "Login flow"): credentials → (one-time code) →
 * organisation → landing. Each step stores what the session needs and answers where
 * the portal goes next.
 */
import type { LoginUser, Msg, PendingApproval, Role } from '@/api/generated';
import { homeOf } from '@/lib/access/guard';
import { needsOrganization, parseRole } from '@/lib/access/roles';
import { canOpen } from '@/lib/access/routes';
import { clearSessionState, getRedirectUrl, readSession, sessionFromLogin, setRedirectUrl, writeSession } from '@/lib/session';
import { OTP_MESSAGE, otp } from '@/lib/validate';
import { paths } from '@/config/paths';

import { isPendingApproval, sendOtpCode } from './api/auth';

export const LOGGED_IN = 'Logged in successfully!';
export const OTP_SENT = 'OTP Sent!';
export const OTP_INVALID_INPUT = OTP_MESSAGE;
export const ADMIN_NOTIFIED = 'Admin has been notified. Your account will be approved within 24 Hours.';

export type MfaMethod = 'email' | 'authenticator_app' | 'sms';

export type Step =
  /** An account awaiting approval: the state is cleared, the user stays logged out. */
  | { kind: 'pendingApproval'; message: string }
  /** Go on in the portal (with the method of the second factor for the code screen). */
  | { kind: 'go'; to: string; method?: MfaMethod | null; sent?: Msg };

/** The answer of `login_v2` / `admin-login/`. */
export async function afterCredentials(res: LoginUser | PendingApproval): Promise<Step> {
  if (isPendingApproval(res)) {
    clearSessionState();
    return { kind: 'pendingApproval', message: ADMIN_NOTIFIED };
  }
  if (!res.require_otp) return { kind: 'go', to: completeSignIn(res) };
  writeSession({
    token: null,
    refresh: null,
    id: res.id,
    name: res.name,
    email: res.email,
    require_otp: true,
    isOtpSetup: res.is_otp_setup,
    persistUserInfoTemporary: { token: res.token, id: res.id },
  });
  const method = (res.receive_otp_on ?? null) as MfaMethod | null;
  if (!res.is_otp_setup || method === null) return { kind: 'go', to: paths.otpSelection };
  // E-mail and SMS codes are sent now; the authenticator app shows its own.
  const sent = method === 'authenticator_app' ? undefined : await sendOtpCode();
  return { kind: 'go', to: paths.otpVerification, method, sent };
}

/**
 * A full session (after the code, or without one): stores it and answers where to go:
 * the organisation step for roles that work in an organisation, else the place the
 * user was going or their landing screen.
 */
export function completeSignIn(user: LoginUser): string {
  writeSession(sessionFromLogin(user));
  const role = parseRole(user.role);
  if (role && needsOrganization(role)) return paths.organizations;
  return takeRedirect(role ? homeOf(role) : paths.root, role);
}

/**
 * Where to go after the organisation step (or sign-in): the remembered address, once,
 * when `role` (if given) may open it; an address remembered before someone else signed
 * in on this browser (another role's screen, or the organisation step for a role that
 * skips it) gives way to `fallback`.
 */
export function takeRedirect(fallback: string, role?: Role | null): string {
  const r = getRedirectUrl();
  setRedirectUrl(null);
  if (!r || !r.startsWith('/') || r.startsWith('//')) return fallback;
  if (role) {
    const path = r.split(/[?#]/)[0] ?? r;
    if (!canOpen(role, path) || (path === paths.organizations && !needsOrganization(role))) return fallback;
  }
  return r;
}

/** The landing of the signed-in user. */
export function landingOfSession(): string {
  const role = readSession().role;
  return role ? homeOf(role) : paths.root;
}

/** Exactly six digits. */
export function validOtp(code: string): boolean {
  return otp(code) === null;
}
