/**
 * Carrying the stored session to another host (spec section 2 "Route guard rules"):
 * the `config` query parameter holds the session (base64url JSON); the portal on the
 * new host stores it and removes the parameter from the address at once.
 */
import { SESSION_KEYS, type UserSession, readSession, writeSession } from '@/lib/session';

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(b64: string): string {
  const bin = atob(b64.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** The stored session as a `config` value. */
export function encodeSession(s: UserSession = readSession()): string {
  const carried: Record<string, unknown> = {};
  for (const k of SESSION_KEYS) if (s[k] !== null) carried[k] = s[k];
  return toBase64Url(JSON.stringify(carried));
}

/** `url` (the organisation's address) with the session in its `config` parameter. */
export function withSession(url: string, path = '/'): string {
  const u = new URL(path, url);
  u.searchParams.set('config', encodeSession());
  return u.toString();
}

/**
 * Stores the session of a `config` parameter in `search`, if any, and answers the
 * search string without it. A malformed value is dropped and stores nothing.
 */
export function takeSessionFromQuery(search: string): string {
  const params = new URLSearchParams(search);
  const raw = params.get('config');
  if (raw === null) return search;
  params.delete('config');
  try {
    const v = JSON.parse(fromBase64Url(raw)) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const patch: Record<string, unknown> = {};
      const obj: Record<string, unknown> = v as Record<string, unknown>;
      for (const k of SESSION_KEYS) if (k in obj) patch[k] = obj[k];
      writeSession(patch);
    }
  } catch {
    // Not ours: ignore it.
  }
  const rest = params.toString();
  return rest ? `?${rest}` : '';
}
