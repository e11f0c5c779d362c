import { NavLink, Outlet } from 'react-router';

import { useActiveFeatures } from '@/api/subscriptions';
import { ROLE_LABELS } from '@/lib/access/roles';
import { useActivitySession } from '@/lib/activity-session';
import { sidebarFor } from '@/lib/access/sidebar';
import { logout } from '@/lib/api-client';
import { useSession } from '@/lib/session';

/** The signed-in layout: header, the role's sidebar (section 6), the screen. */
export function AppLayout() {
  const s = useSession();
  useActivitySession();
  const features = useActiveFeatures(s.role === 'admin' ? null : s.organization);
  const sections = s.role ? sidebarFor(s.role, features) : [];
  return (
    <div className="app-layout">
      <header className="app-header">
        <span className="brand">gemba</span>
        {s.organizationName ? <span className="app-org">{s.organizationName}</span> : null}
        <span className="app-user">
          {s.name}
          {s.role ? <span className="app-role"> · {ROLE_LABELS[s.role]}</span> : null}
        </span>
        <button type="button" className="link-button" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      {sections.length > 0 ? (
        <nav className="sidebar" aria-label="Main">
          {sections.map((sec, i) => (
            <section key={sec.header ?? i}>
              {sec.header && !(sec.entries.length === 1 && sec.entries[0]?.label === sec.header) ? (
                <h2 className="sidebar-header">{sec.header}</h2>
              ) : null}
              <ul>
                {sec.entries.map((e) => (
                  <li key={e.label}>
                    {e.path ? (
                      <NavLink to={e.path}>{e.label}</NavLink>
                    ) : (
                      <span className="sidebar-entry-disabled" title="Not available yet">
                        {e.label}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </nav>
      ) : null}
      <main className="app-main">
        <Outlet />
      </main>
    </div>
  );
}
