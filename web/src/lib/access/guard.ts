/**
 * The route guard (spec section 2 "Route guard rules") as a pure decision: given the
 * path, the session and the site, allow it, send the user elsewhere in the portal, or
 * leave for another host.
 *
 * Rules, in order:
 * 1. On an organisation sub-domain, /login goes to the base domain's /login.
 * 2. Privacy policy, OTP selection/verification and change password stay reachable.
 * 3. A signed-in user with no pending OTP is sent from the public pages (login,
 *    sign-up and similar) to their landing screen.
 * 4. Other pages need a full session: a sign-in waiting for its code goes back to the
 *    code screens, anyone else to /login (remembering where they were going).
 * 5. A user who needs an organisation (neither super admin nor labeler) and has none
 *    picks one at /organizations.
 * 6. On the base domain, a stored organisation sends the user to /organizations (which
 *    continues on the organisation's sub-domain). Logout clears the stored
 *    organisation before going to /login, so it never triggers this.
 * 7. A route with an authorize list sends any other role to its landing screen.
 */
import { paths } from '@/config/paths';
import type { Site } from '@/lib/access/hosts';
import { landingFor } from '@/lib/access/landing';
import { type Role, needsOrganization } from '@/lib/access/roles';
import { ruleFor } from '@/lib/access/routes';

export type GuardSession = {
  /** A full session: a token and no pending one-time code. */
  signedIn: boolean;
  /** A sign-in waiting for its one-time code (the temporary token is stored). */
  pendingOtp: boolean;
  isOtpSetup: boolean;
  role: Role | null;
  organization: number | null;
};

export type GuardDecision =
  | { kind: 'allow' }
  /** Go to `to` in the portal; `remember`: come back to the asked path after sign-in. */
  | { kind: 'redirect'; to: string; remember?: boolean }
  /** Leave for the base domain's `path`. */
  | { kind: 'baseDomain'; path: string };

const allow: GuardDecision = { kind: 'allow' };

/** Where a signed-in role lands; `/` shows the workstation user's empty screen. */
export function homeOf(role: Role): string {
  return landingFor(role) ?? paths.root;
}

export function decide(pathname: string, s: GuardSession, site: Site): GuardDecision {
  const path = pathname.replace(/(.)\/+$/, '$1');
  if (path === paths.login && site.kind === 'org') return { kind: 'baseDomain', path: paths.login };

  if (path === paths.root) {
    if (!s.signedIn || !s.role) return notSignedIn(s, false);
    const home = homeOf(s.role);
    return home === paths.root ? orgRules(path, s, site) : { kind: 'redirect', to: home };
  }

  const rule = ruleFor(path);
  // Unknown paths: the router's "not found" screen.
  if (!rule) return allow;
  switch (rule.kind) {
    case 'always':
      return allow;
    case 'public':
      return s.signedIn && s.role ? { kind: 'redirect', to: homeOf(s.role) } : allow;
    case 'signedIn':
    case 'protected': {
      if (!s.signedIn || !s.role) return notSignedIn(s, true);
      const org = orgRules(path, s, site);
      if (org.kind !== 'allow') return org;
      if (rule.kind === 'protected' && !rule.authorize.includes(s.role)) {
        return { kind: 'redirect', to: homeOf(s.role) };
      }
      return allow;
    }
  }
}

function notSignedIn(s: GuardSession, remember: boolean): GuardDecision {
  if (s.pendingOtp) return { kind: 'redirect', to: s.isOtpSetup ? paths.otpVerification : paths.otpSelection };
  return { kind: 'redirect', to: paths.login, remember };
}

function orgRules(path: string, s: GuardSession, site: Site): GuardDecision {
  if (path === paths.organizations || !s.role || !needsOrganization(s.role)) return allow;
  if (s.organization === null) return { kind: 'redirect', to: paths.organizations };
  if (site.kind === 'base') return { kind: 'redirect', to: paths.organizations };
  return allow;
}
