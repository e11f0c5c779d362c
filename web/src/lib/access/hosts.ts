/**
 * Which site the portal runs on, read like the server reads it (`Site` in
 * `cloud/src/http/extract.rs`): the admin host, an organisation's sub-domain
 * `{org}.{base_domain}`, the base domain itself (or `www.`), or another host (an IP
 * address, a name outside the base domain), where the portal works on one host and
 * the sub-domain redirects of section 2 do not apply.
 */

/** A single sign-on provider the deployment offers (issue 28). */
export type SsoProvider = { issuer: string; client_id: string; authorization_endpoint: string };
export type SsoConfig = { azure: SsoProvider | null; google: SsoProvider | null };

/** `/portal-config.json` of gemba-cloud (`sso` left out: no single sign-on). */
export type HostConfig = { base_domain: string; admin_host: string; sso?: SsoConfig };

export type Site = { kind: 'admin' } | { kind: 'org'; org: string } | { kind: 'base' } | { kind: 'other' };

export function siteOf(hostname: string, cfg: HostConfig): Site {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const base = cfg.base_domain.toLowerCase();
  if (host === cfg.admin_host.toLowerCase()) return { kind: 'admin' };
  if (host === base || host === `www.${base}`) return { kind: 'base' };
  const suffix = `.${base}`;
  if (host.endsWith(suffix)) {
    const sub = host.slice(0, -suffix.length);
    if (sub !== '' && !sub.includes('.')) return { kind: 'org', org: sub };
  }
  return { kind: 'other' };
}

/** `path` on the base domain, keeping the scheme and port of `loc`. */
export function baseDomainUrl(loc: { protocol: string; port: string }, cfg: HostConfig, path: string): string {
  const port = loc.port ? `:${loc.port}` : '';
  return `${loc.protocol}//${cfg.base_domain}${port}${path}`;
}
