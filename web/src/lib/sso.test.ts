import { HttpResponse, http } from 'msw';

import { apiUrl, server } from '@/testing/server';

import { SsoFailure, finishSso, pkceChallenge, ssoCall, ssoUrl } from './sso';

const provider = { issuer: 'https://idp.test', client_id: 'gemba', authorization_endpoint: 'https://idp.test/authorize' };

beforeEach(() => sessionStorage.clear());

test('the PKCE challenge is the verifier’s SHA-256 in base64url, unpadded', async () => {
  // Node's own: createHash('sha256').update(v).digest('base64url').
  expect(await pkceChallenge('dBjftJeZ4CVP-mJ92K9QHLQ2X1UqcHTvt5TrV6BGtzQ')).toBe('OluqBrrfGdD1VoLW3y0aYIopEHJIAOTDSVDaOCuPJr0');
});

test('the sign-in address carries the client, PKCE, state and nonce; the callback posts the code', async () => {
  const u = new URL(await ssoUrl('azure', 'signup', provider));
  expect(u.origin + u.pathname).toBe('https://idp.test/authorize');
  const q = u.searchParams;
  expect(q.get('client_id')).toBe('gemba');
  expect(q.get('response_type')).toBe('code');
  expect(q.get('scope')).toBe('openid email profile');
  expect(q.get('code_challenge_method')).toBe('S256');
  expect(q.get('redirect_uri')).toBe(`${window.location.origin}/sso-callback`);
  const nonce = q.get('nonce');
  expect(nonce?.length).toBeGreaterThan(20);

  let posted: Record<string, unknown> = {};
  server.use(
    http.post(apiUrl('account/azure-signup/'), async ({ request }) => {
      posted = (await request.json()) as Record<string, unknown>;
      return HttpResponse.json({ msg: 'Admin has been notified. Your account will be approved within 24 Hours.' }, { status: 201 });
    }),
  );
  const r = await finishSso(`?code=c-1&state=${q.get('state')}`);
  expect(r.mode).toBe('signup');
  expect(posted.code).toBe('c-1');
  expect(posted.nonce).toBe(nonce);
  expect(await pkceChallenge(posted.code_verifier as string)).toBe(q.get('code_challenge'));
  // The sign-in is spent: the same answer again is refused.
  await expect(finishSso(`?code=c-1&state=${q.get('state')}`)).rejects.toBeInstanceOf(SsoFailure);
});

test('another sign-in’s state, or the provider’s error, is refused without calling the server', async () => {
  const q = new URL(await ssoUrl('google', 'signin', provider)).searchParams;
  await expect(finishSso('?code=c-1&state=forged')).rejects.toThrow('does not match');
  await ssoUrl('google', 'signin', provider);
  const state = JSON.parse(sessionStorage.getItem('ssoPending') ?? '{}') as { state: string };
  await expect(finishSso(`?error=access_denied&error_description=denied&state=${state.state}`)).rejects.toThrow('denied');
  expect(q.get('state')).not.toBe(state.state);
});

test('each provider and mode has its call', () => {
  expect(ssoCall('azure', 'signin')).toBe('account/azure-signin/');
  expect(ssoCall('azure', 'signup')).toBe('account/azure-signup/');
  expect(ssoCall('google', 'signin')).toBe('account/google-sso/');
  expect(ssoCall('google', 'signup')).toBe('account/google-sso/');
});
