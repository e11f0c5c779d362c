import { LogOut, Menu, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';

import { useActiveFeatures } from '@/api/subscriptions';
import { ROLE_LABELS } from '@/lib/access/roles';
import { useActivitySession } from '@/lib/activity-session';
import { type SidebarSection, sidebarFor } from '@/lib/access/sidebar';
import { logout } from '@/lib/api-client';
import { BREAKPOINTS, below, useMediaQuery } from '@/lib/media-query';
import { useSession } from '@/lib/session';
import { useWallDisplay } from '@/lib/wall-display';

import { sidebarIcon } from './sidebar-icons';

const NAV_ID = 'main-nav';
const MAIN_ID = 'screen';

/**
 * The signed-in layout: header, the role's sidebar (section 6), the screen. Below a
 * tablet's width (`BREAKPOINTS.drawer`) the sidebar is a drawer behind the header's menu
 * button: opening it moves the focus to its first entry and makes the rest inert; an
 * entry, Escape, the backdrop or the close button shut it (Escape and the buttons give
 * the focus back to the menu button). A wall display (`?display=wall`) shows the screen
 * alone.
 */
export function AppLayout() {
  const s = useSession();
  useActivitySession();
  const features = useActiveFeatures(s.role === 'admin' ? null : s.organization);
  const sections = s.role ? sidebarFor(s.role, features) : [];
  const wall = useWallDisplay();
  const narrow = useMediaQuery(below(BREAKPOINTS.drawer));
  const { pathname } = useLocation();
  // The drawer is open at the address it was opened at: moving on closes it.
  const [openAt, setOpenAt] = useState<string | null>(null);
  const open = narrow && openAt === pathname;
  const menuButton = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);
  // Whether closing gives the focus back to the menu button (once it is no longer inert).
  const refocus = useRef(false);
  const close = (giveBack: boolean) => {
    refocus.current = giveBack;
    setOpenAt(null);
  };

  useEffect(() => {
    if (!open) {
      if (refocus.current) menuButton.current?.focus();
      refocus.current = false;
      return;
    }
    nav.current?.querySelector<HTMLElement>('a, button')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      refocus.current = true;
      setOpenAt(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  if (wall) {
    return (
      <div className="app-layout wall">
        <main className="app-main">
          <Outlet />
        </main>
      </div>
    );
  }

  const hasNav = sections.length > 0;
  return (
    <div className={`app-layout${open ? ' drawer-open' : ''}`}>
      {/* The keyboard's first stop: past the header and the sidebar (WCAG 2.4.1). */}
      <a className="skip-link" href={`#${MAIN_ID}`} inert={open}>
        Skip to the screen
      </a>
      <header className="app-header" inert={open}>
        {hasNav && narrow ? (
          <button
            ref={menuButton}
            type="button"
            className="menu-button icon-button"
            aria-expanded={open}
            aria-controls={NAV_ID}
            onClick={() => setOpenAt(open ? null : pathname)}
          >
            <Menu aria-hidden="true" />
            <span className="visually-hidden">Menu</span>
          </button>
        ) : null}
        <span className="brand">gemba</span>
        {s.organizationName ? <span className="app-org">{s.organizationName}</span> : null}
        <span className="app-user">
          {s.name}
          {s.role ? <span className="app-role"> · {ROLE_LABELS[s.role]}</span> : null}
        </span>
        <button type="button" className="link-button with-icon" onClick={() => void logout()}>
          <LogOut aria-hidden="true" />
          Log out
        </button>
      </header>
      {hasNav ? (
        <>
          <nav ref={nav} id={NAV_ID} className="sidebar" aria-label="Main">
            {narrow ? (
              <button type="button" className="drawer-close icon-button" onClick={() => close(true)}>
                <X aria-hidden="true" />
                <span className="visually-hidden">Close menu</span>
              </button>
            ) : null}
            <Sections sections={sections} onPick={() => close(false)} />
          </nav>
          {open ? <div className="drawer-backdrop" aria-hidden="true" onClick={() => close(true)} /> : null}
        </>
      ) : null}
      <main id={MAIN_ID} className="app-main" tabIndex={-1} inert={open}>
        <Outlet />
      </main>
    </div>
  );
}

/** The sidebar's sections and entries; `onPick` when an entry is chosen. */
function Sections({ sections, onPick }: { sections: SidebarSection[]; onPick: () => void }) {
  return sections.map((sec, i) => (
    <section key={sec.header ?? i}>
      {sec.header && !(sec.entries.length === 1 && sec.entries[0]?.label === sec.header) ? (
        <h2 className="sidebar-header">{sec.header}</h2>
      ) : null}
      <ul>
        {sec.entries.map((e) => {
          const Icon = sidebarIcon(e.label);
          return (
            <li key={e.label}>
              {e.path ? (
                <NavLink to={e.path} onClick={onPick}>
                  <Icon aria-hidden="true" className="icon" />
                  {e.label}
                </NavLink>
              ) : (
                <span className="sidebar-entry-disabled" title="Not available yet">
                  <Icon aria-hidden="true" className="icon" />
                  {e.label}
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  ));
}
