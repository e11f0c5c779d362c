// A real OpenID Connect provider for the single sign-on tests: `oidc-provider` (the
// certified Node.js implementation) on 127.0.0.1, a free port unless OIDC_PORT names one.
// Once it listens it prints one line of JSON, {"issuer": "http://127.0.0.1:PORT"}, on
// stdout; it stops when its standard input closes (the test that started it ended).
//
// Clients (public, authorization code with PKCE):
//   gemba  - the one the cloud is configured with;
//   other  - another audience (its ID tokens are not for gemba);
//   short  - like gemba, but its ID tokens expire after 1 s;
//   secret - a confidential client (client_secret_post, secret `test-secret`).
// Their redirect URIs: OIDC_REDIRECT_URIS (comma-separated), default
// http://127.0.0.1/callback.
//
// Accounts: the sign-in page (oidc-provider's own development interactions) takes any
// login and password; the login is the account: `sub` is the login, `email` the login,
// `email_verified` true. A login `unverified:x@y` is x@y with `email_verified` false.
//
// Keys: OIDC_KEYS_FILE, when set, holds the signing JWKS: read when it exists, else
// made and written, so two providers (two issuers) can sign with the same key.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

// Stdout carries the issuer line alone, and its reader may stop listening after it:
// the provider's own notices go to stderr.
console.log = console.error;
console.info = console.error;
process.stdout.on('error', () => {});

function signingKeys() {
  const file = process.env.OIDC_KEYS_FILE;
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: `k${Date.now()}`, use: 'sig', alg: 'RS256' };
  const jwks = { keys: [jwk] };
  if (file) writeFileSync(file, JSON.stringify(jwks), { mode: 0o600 });
  return jwks;
}

function account(login) {
  const unverified = login.startsWith('unverified:');
  const email = unverified ? login.slice('unverified:'.length) : login;
  const local = email.split('@')[0].replace(/[^A-Za-z]/g, ' ').trim() || 'Someone';
  const given = local.charAt(0).toUpperCase() + local.slice(1);
  return {
    accountId: login,
    claims: async () => ({
      sub: login,
      email,
      email_verified: !unverified,
      given_name: given,
      family_name: 'Sso',
      name: `${given} Sso`,
    }),
  };
}

const redirectUris = (process.env.OIDC_REDIRECT_URIS || 'http://127.0.0.1/callback').split(',');
const client = (id) => ({
  client_id: id,
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code'],
  response_types: ['code'],
  redirect_uris: redirectUris,
});

const server = createServer();
server.listen(Number(process.env.OIDC_PORT || 0), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      client('gemba'),
      client('other'),
      client('short'),
      { ...client('secret'), client_secret: 'test-secret', token_endpoint_auth_method: 'client_secret_post' },
    ],
    jwks: signingKeys(),
    findAccount: (ctx, id) => account(id),
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
    },
    // The ID token carries the e-mail claims (the cloud reads them there), not only
    // the userinfo endpoint.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    ttl: {
      IdToken: (ctx, token, c) => (c?.clientId === 'short' ? 1 : 3600),
    },
    // First-party clients: no consent screen; the sign-in page is the one interaction.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    // The portal's origin redeems codes from the browser (a public client).
    clientBasedCORS: () => true,
    cookies: { keys: ['gemba-test-oidc'] },
  });
  // Plain HTTP on loopback: the provider must not insist on secure cookies.
  provider.proxy = true;
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
