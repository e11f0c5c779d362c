/**
 * The user session in local storage (spec section 3 "User session"), one key per field,
 * each value JSON-encoded, plus `redirectUrl` (where to go after signing in).
 *
 * Invariants:
 * - signed in means a token and `require_otp === false`; a sign-in waiting for its
 *   one-time code holds only `persistUserInfoTemporary` (the temporary token and id);
 * - clearing the state (section 4) sets `isOtpSetup` false and `require_otp` true and
 *   removes every other session key except `hostURL` and `redirectUrl`;
 * - every change notifies subscribers (React reads it through `useSession`), also when
 *   another tab changes local storage.
 */
import { useSyncExternalStore } from 'react';

import type { LoginUser, Role } from '@/api/generated';
import { parseRole } from '@/lib/access/roles';

export type UserSession = {
  id: number | null;
  name: string | null;
  role: Role | null;
  /** The organisation's id (sent as the `Organization` header). */
  organization: number | null;
  organizationName: string | null;
  token: string | null;
  refresh: string | null;
  email: string | null;
  sessionKey: string | null;
  /** The activity session (section 4 "Activity session"). */
  sessionId: number | null;
  sessionEndTime: number | null;
  sessionUser: number | null;
  hostURL: string | null;
  poc: boolean;
  isPolicyAccepted: boolean;
  fcmToken: string | null;
  loglevel: string | null;
  require_otp: boolean;
  isOtpSetup: boolean;
  azureLogin: boolean;
  persistUserInfoTemporary: { token: string; id: number } | null;
};

export const SESSION_KEYS = [
  'id',
  'name',
  'role',
  'organization',
  'organizationName',
  'token',
  'refresh',
  'email',
  'sessionKey',
  'sessionId',
  'sessionEndTime',
  'sessionUser',
  'hostURL',
  'poc',
  'isPolicyAccepted',
  'fcmToken',
  'loglevel',
  'require_otp',
  'isOtpSetup',
  'azureLogin',
  'persistUserInfoTemporary',
] as const satisfies readonly (keyof UserSession)[];

/** Kept when the state is cleared. */
export const KEPT_ON_CLEAR = ['hostURL', 'redirectUrl'] as const;

const EMPTY: UserSession = {
  id: null,
  name: null,
  role: null,
  organization: null,
  organizationName: null,
  token: null,
  refresh: null,
  email: null,
  sessionKey: null,
  sessionId: null,
  sessionEndTime: null,
  sessionUser: null,
  hostURL: null,
  poc: false,
  isPolicyAccepted: false,
  fcmToken: null,
  loglevel: null,
  // The cleared state: a one-time code is required until a sign-in says otherwise.
  require_otp: true,
  isOtpSetup: false,
  azureLogin: false,
  persistUserInfoTemporary: null,
};

function readKey(key: string): unknown {
  const raw = localStorage.getItem(key);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    // A value written by hand or by an older portal: take it as text.
    return raw;
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const bool = (v: unknown, dflt: boolean) => (typeof v === 'boolean' ? v : dflt);

function temporary(v: unknown): UserSession['persistUserInfoTemporary'] {
  if (typeof v !== 'object' || v === null) return null;
  const { token, id } = v as { token?: unknown; id?: unknown };
  return typeof token === 'string' && typeof id === 'number' ? { token, id } : null;
}

/** The session as stored; unknown or malformed values read as empty. */
export function readSession(): UserSession {
  return {
    id: num(readKey('id')),
    name: str(readKey('name')),
    role: parseRole(readKey('role')),
    organization: num(readKey('organization')),
    organizationName: str(readKey('organizationName')),
    token: str(readKey('token')),
    refresh: str(readKey('refresh')),
    email: str(readKey('email')),
    sessionKey: str(readKey('sessionKey')),
    sessionId: num(readKey('sessionId')),
    sessionEndTime: num(readKey('sessionEndTime')),
    sessionUser: num(readKey('sessionUser')),
    hostURL: str(readKey('hostURL')),
    poc: bool(readKey('poc'), EMPTY.poc),
    isPolicyAccepted: bool(readKey('isPolicyAccepted'), EMPTY.isPolicyAccepted),
    fcmToken: str(readKey('fcmToken')),
    loglevel: str(readKey('loglevel')),
    require_otp: bool(readKey('require_otp'), EMPTY.require_otp),
    isOtpSetup: bool(readKey('isOtpSetup'), EMPTY.isOtpSetup),
    azureLogin: bool(readKey('azureLogin'), EMPTY.azureLogin),
    persistUserInfoTemporary: temporary(readKey('persistUserInfoTemporary')),
  };
}

const listeners = new Set<() => void>();
let snapshot: UserSession | null = null;

function changed() {
  snapshot = null;
  for (const l of listeners) l();
}

/** Writes the given fields; `null` removes a key. */
export function writeSession(patch: Partial<UserSession>) {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || v === undefined) localStorage.removeItem(k);
    else localStorage.setItem(k, JSON.stringify(v));
  }
  changed();
}

export function getRedirectUrl(): string | null {
  return str(readKey('redirectUrl'));
}

export function setRedirectUrl(url: string | null) {
  if (url === null) localStorage.removeItem('redirectUrl');
  else localStorage.setItem('redirectUrl', JSON.stringify(url));
}

/** Clears the state (section 4): only `hostURL` and `redirectUrl` survive. */
export function clearSessionState() {
  for (const k of SESSION_KEYS) {
    if (!(KEPT_ON_CLEAR as readonly string[]).includes(k)) localStorage.removeItem(k);
  }
  localStorage.setItem('isOtpSetup', 'false');
  localStorage.setItem('require_otp', 'true');
  changed();
}

/** Logout empties local storage entirely. */
export function clearAllStorage() {
  localStorage.clear();
  changed();
}

// While logging out, the screen being left must not be remembered as the place to
// return to after the next sign-in (section 2: "unless the user is logging out").
let loggingOut = false;

export function setLoggingOut(v: boolean) {
  loggingOut = v;
}

export function isLoggingOut(): boolean {
  return loggingOut;
}

export function isSignedIn(s: UserSession): boolean {
  return s.token !== null && !s.require_otp;
}

/** The session fields of a login answer (a full session: after the one-time code). */
export function sessionFromLogin(u: LoginUser): Partial<UserSession> {
  return {
    id: u.id,
    name: u.name,
    role: parseRole(u.role),
    email: u.email,
    token: u.token,
    refresh: u.refresh,
    sessionKey: u.session_key,
    organization: u.Organization?.id ?? null,
    organizationName: u.Organization?.org_name_to_display ?? null,
    poc: u.poc,
    isPolicyAccepted: u.is_policy_accepted,
    require_otp: u.require_otp,
    isOtpSetup: u.is_otp_setup,
    persistUserInfoTemporary: null,
  };
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.storageArea === localStorage) changed();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function sessionSnapshot(): UserSession {
  snapshot ??= readSession();
  return snapshot;
}

/** The current session; re-renders when it changes. */
export function useSession(): UserSession {
  return useSyncExternalStore(subscribeSession, sessionSnapshot);
}
