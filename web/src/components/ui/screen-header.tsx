import type { ReactNode } from 'react';

import { useSession } from '@/lib/session';

/** A user-area screen's heading with the organisation it acts in, and what goes beside
 * them (a badge, a link). */
export function ScreenHeader({ title, children }: { title: string; children?: ReactNode }) {
  const { organizationName } = useSession();
  return (
    <div className="screen-header">
      <h1>{title}</h1>
      {organizationName ? <span className="muted">{organizationName}</span> : null}
      {children}
    </div>
  );
}
