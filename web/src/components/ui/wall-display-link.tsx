import { Monitor, X } from 'lucide-react';
import { Link, useLocation } from 'react-router';

import { useWallDisplay, wallSearch } from '@/lib/wall-display';

/** A screen's way into its wall display (`?display=wall`, the rest of its address kept), and out of it. */
export function WallDisplayLink() {
  const wall = useWallDisplay();
  const { pathname, search } = useLocation();
  const to = { pathname, search: wallSearch(new URLSearchParams(search), !wall) };
  return wall ? (
    <Link to={to} className="with-icon wall-exit">
      <X aria-hidden="true" />
      Leave wall display
    </Link>
  ) : (
    <Link to={to} className="with-icon">
      <Monitor aria-hidden="true" />
      Wall display
    </Link>
  );
}
