/**
 * The deployment's hosts (`/portal-config.json` of gemba-cloud) and the site this page
 * is on, read once at start.
 */
import { createContext, useContext } from 'react';

import { type HostConfig, type Site, type SsoConfig, type SsoProvider, siteOf } from '@/lib/access/hosts';

export type SiteInfo = { config: HostConfig | null; site: Site };

/** Without the settings (a static preview, an old server) the portal works on one host. */
export const NO_HOSTS: SiteInfo = { config: null, site: { kind: 'other' } };

export async function loadSite(timeoutMs = 5_000): Promise<SiteInfo> {
  try {
    const res = await fetch('/portal-config.json', { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return NO_HOSTS;
    const c = (await res.json()) as Partial<HostConfig>;
    if (typeof c.base_domain !== 'string' || typeof c.admin_host !== 'string') return NO_HOSTS;
    const config = { base_domain: c.base_domain, admin_host: c.admin_host, sso: ssoOf(c.sso) };
    return { config, site: siteOf(window.location.hostname, config) };
  } catch {
    return NO_HOSTS;
  }
}

function provider(v: unknown): SsoProvider | null {
  if (typeof v !== 'object' || v === null) return null;
  const { issuer, client_id, authorization_endpoint } = v as Partial<SsoProvider>;
  if (typeof issuer !== 'string' || typeof client_id !== 'string' || typeof authorization_endpoint !== 'string') return null;
  return { issuer, client_id, authorization_endpoint };
}

/** The single sign-on providers the server offers; malformed ones are left out. */
export function ssoOf(v: unknown): SsoConfig {
  const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  return { azure: provider(o.azure), google: provider(o.google) };
}

export const SiteContext = createContext<SiteInfo>(NO_HOSTS);

export function useSite(): SiteInfo {
  return useContext(SiteContext);
}
