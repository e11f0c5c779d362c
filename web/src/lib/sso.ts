/**
 * Single sign-on (OpenID Connect, issue 28): the authorization code flow with PKCE,
 * done by redirects only. `startSso` sends the browser to the provider's sign-in page
 * with a fresh PKCE verifier, state and nonce kept in this tab's session storage; the
 * provider sends it back to `/sso-callback`, where `finishSso` checks the state and
 * posts the code, verifier and nonce to the cloud, which redeems the code at the
 * provider and checks the ID token (the portal's content security policy lets it call
 * only the cloud, and a confidential client's secret stays on the server).
 */
import type { LoginUser, Msg, PendingApproval } from '@/api/generated';
import { api } from '@/lib/api-client';
import type { SsoProvider } from '@/lib/access/hosts';
import { paths } from '@/config/paths';

export type SsoKind = 'azure' | 'google';
/** Sign in, or sign up (Microsoft has a call for each; Google one for both). */
export type SsoMode = 'signin' | 'signup';

const KEY = 'ssoPending';

type Pending = { kind: SsoKind; mode: SsoMode; verifier: string; state: string; nonce: string; redirectUri: string };

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

export function callbackUri(): string {
  return `${window.location.origin}${paths.ssoCallback}`;
}

/** The provider's sign-in page for this sign-in (its verifier, state and nonce kept). */
export async function ssoUrl(kind: SsoKind, mode: SsoMode, p: SsoProvider): Promise<string> {
  const pending: Pending = { kind, mode, verifier: random(), state: random(), nonce: random(), redirectUri: callbackUri() };
  sessionStorage.setItem(KEY, JSON.stringify(pending));
  const u = new URL(p.authorization_endpoint);
  u.searchParams.set('client_id', p.client_id);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('redirect_uri', pending.redirectUri);
  u.searchParams.set('scope', 'openid email profile');
  u.searchParams.set('state', pending.state);
  u.searchParams.set('nonce', pending.nonce);
  u.searchParams.set('code_challenge', await pkceChallenge(pending.verifier));
  u.searchParams.set('code_challenge_method', 'S256');
  return u.toString();
}

export async function startSso(kind: SsoKind, mode: SsoMode, p: SsoProvider) {
  window.location.assign(await ssoUrl(kind, mode, p));
}

export class SsoFailure extends Error {}

export type SsoResult =
  | { kind: SsoKind; mode: SsoMode; answer: LoginUser | PendingApproval }
  | { kind: SsoKind; mode: 'signup'; answer: Msg };

/** The cloud's call for a provider and mode. */
export function ssoCall(kind: SsoKind, mode: SsoMode): string {
  if (kind === 'google') return 'account/google-sso/';
  return mode === 'signup' ? 'account/azure-signup/' : 'account/azure-signin/';
}

/** Completes the sign-in the provider sent back (`search`: the callback's query). */
export async function finishSso(search: string): Promise<SsoResult> {
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  const q = new URLSearchParams(search);
  if (!raw) throw new SsoFailure('This sign-in has expired. Please start again.');
  const p = JSON.parse(raw) as Pending;
  if (q.get('state') !== p.state) throw new SsoFailure('This sign-in does not match the one started here. Please start again.');
  const error = q.get('error');
  if (error) throw new SsoFailure(q.get('error_description') ?? error);
  const code = q.get('code');
  if (!code) throw new SsoFailure('The identity provider sent no sign-in code.');
  const body = { code, code_verifier: p.verifier, redirect_uri: p.redirectUri, nonce: p.nonce };
  const answer = await api.post<LoginUser | PendingApproval | Msg>(ssoCall(p.kind, p.mode), body, { token: null });
  return { kind: p.kind, mode: p.mode, answer } as SsoResult;
}
