import type { ReactNode } from 'react';
import { Link, useInRouterContext, useLocation } from 'react-router';

import { helpFor } from '@/config/help';
import { paths } from '@/config/paths';
import { canOpen } from '@/lib/access/routes';
import { useSession } from '@/lib/session';

/** A user-area screen's heading with the organisation it acts in, what goes beside
 * them (a badge, a link), and the Help link to the screen's part of the User Manuals
 * (`config/help.ts`) for the roles that may read them. */
export function ScreenHeader({ title, children }: { title: string; children?: ReactNode }) {
  const { organizationName } = useSession();
  // Some tests render a screen's parts without a router: no Help link there.
  const routed = useInRouterContext();
  return (
    <div className="screen-header">
      <h1>{title}</h1>
      {organizationName ? <span className="muted">{organizationName}</span> : null}
      {children}
      {routed ? <HelpLink title={title} /> : null}
    </div>
  );
}

function HelpLink({ title }: { title: string }) {
  const { pathname } = useLocation();
  const { role } = useSession();
  const href = helpFor(pathname);
  if (!href || role === null || !canOpen(role, paths.user.userManual)) return null;
  return (
    <Link className="help-link" to={href} aria-label={`Help: ${title}`}>
      Help
    </Link>
  );
}
