import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { toast } from 'sonner';

import { useFeatureCheck } from '@/api/subscriptions';
import { Spinner } from '@/components/ui/spinner';
import { decide, homeOf } from '@/lib/access/guard';
import { baseDomainUrl } from '@/lib/access/hosts';
import { requiredFeature } from '@/lib/access/sidebar';
import { browser } from '@/lib/browser';
import { isLoggingOut, isSignedIn, setLoggingOut, setRedirectUrl, useSession } from '@/lib/session';
import { useSite } from '@/lib/site';

/** Applies the route guard (`lib/access/guard.ts`) to every route below it. */
export function Guard() {
  const loc = useLocation();
  const s = useSession();
  const { config, site } = useSite();
  const d = decide(
    loc.pathname,
    {
      signedIn: isSignedIn(s),
      pendingOtp: s.persistUserInfoTemporary !== null,
      isOtpSetup: s.isOtpSetup,
      role: s.role,
      organization: s.organization,
    },
    site,
  );
  // A subscription-gated screen (section 6) needs the organisation's feature; the
  // super admin is not bound to one organisation's subscriptions.
  const feature = d.kind === 'allow' && s.role !== 'admin' ? requiredFeature(loc.pathname) : null;
  const held = useFeatureCheck(feature ? s.organization : null, feature);
  const leave = d.kind === 'baseDomain' && config ? baseDomainUrl(window.location, config, d.path) : null;
  useEffect(() => {
    if (leave) browser.replace(leave);
  }, [leave]);
  // Sent away from a gated screen: told why, in the words the API refuses with (one
  // toast per feature, however often the guard renders).
  const refused = feature && s.role && held === 'no' ? feature : null;
  useEffect(() => {
    if (refused) {
      toast.error(`${refused} is not enabled for this organization.`, {
        id: `feature-${refused}`,
        description: 'Its screens open once the organisation subscribes to it.',
      });
    }
  }, [refused]);

  if (d.kind === 'redirect') {
    if (d.remember && !isLoggingOut()) setRedirectUrl(loc.pathname + loc.search);
    return <Navigate to={d.to} replace />;
  }
  // Arrived somewhere the guard allows: a logout in progress has ended.
  if (isLoggingOut() && !isSignedIn(s)) setLoggingOut(false);
  if (leave) return null;
  if (feature && s.role) {
    if (held === 'loading') return <Spinner />;
    if (refused) return <Navigate to={homeOf(s.role)} replace />;
  }
  return <Outlet />;
}
