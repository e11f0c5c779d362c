import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';

import { paths } from '@/config/paths';

/**
 * Wall-display mode (issue 33): a screen that supports it (the Dashboard, Line
 * Analytics) opened with `?display=wall` shows without the header and the sidebar, its
 * figures large, and reads its data again every `WALL_REFRESH_MS`, so a plant can put
 * its address on a TV. The rest of the address (Line Analytics' line and days) stays.
 */
export const WALL_PARAM = 'display';
export const WALL_VALUE = 'wall';
/** How often a wall display reads its figures again (ms). */
export const WALL_REFRESH_MS = 30_000;

/** The screens with a wall display. */
export const WALL_SCREENS: readonly string[] = [paths.user.home, paths.user.lineAnalytics];

/** Whether the address `pathname` + `search` is a wall display. */
export const isWall = (pathname: string, search: URLSearchParams) =>
  WALL_SCREENS.includes(pathname) && search.get(WALL_PARAM) === WALL_VALUE;

/** `search` with the wall display on or off, as a query string with its `?` (or ''). */
export function wallSearch(search: URLSearchParams, on: boolean): string {
  const next = new URLSearchParams(search);
  if (on) next.set(WALL_PARAM, WALL_VALUE);
  else next.delete(WALL_PARAM);
  const s = next.toString();
  return s ? `?${s}` : '';
}

/** Whether the current address is a wall display. */
export function useWallDisplay(): boolean {
  const { pathname, search } = useLocation();
  return isWall(pathname, new URLSearchParams(search));
}

/**
 * The time now, moving on every `WALL_REFRESH_MS` while `on` (a wall display stays up
 * for days: its "today" must follow the clock); else the time the screen opened.
 */
export function useWallClock(on: boolean): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (!on) return;
    const t = window.setInterval(() => setNow(new Date()), WALL_REFRESH_MS);
    return () => window.clearInterval(t);
  }, [on]);
  return now;
}
