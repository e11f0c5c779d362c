/**
 * The Dashboard's two figure queries (today by hour, this week by day), shared by its
 * screen and its route's loader: the loader starts them as the route is matched, before
 * the layout and the screen are drawn (issue 33: on a slow link the figures then come
 * as early as they can). The screen and this file are in the first load (app/router.tsx).
 */
import type { QueryClient } from '@tanstack/react-query';

import { paths } from '@/config/paths';
import { decide } from '@/lib/access/guard';
import type { Site } from '@/lib/access/hosts';
import { isoDay } from '@/lib/days';
import { isSignedIn, readSession } from '@/lib/session';

import { cycleStatsQuery, thisWeek, today } from './cycle-stats';

/** Figures this young are not asked for again when the screen mounts or the route is
 * matched again: the loader has just asked for them. */
export const FRESH_MS = 5_000;

/** The queries of `org`'s Dashboard on the day of `now` (local). */
export function dashboardQueries(org: number, now: Date) {
  // Noon: a day's start and end do not depend on the hour it is asked at.
  const noon = new Date(`${isoDay(now)}T12:00:00`);
  return {
    day: cycleStatsQuery(org, { ...today(noon), bucket: 'hour' }),
    week: cycleStatsQuery(org, { ...thisWeek(noon), bucket: 'day' }),
  };
}

/**
 * Starts the Dashboard's queries when the route guard will let the stored session open
 * it (else nothing is asked: the guard sends the user elsewhere). Does not wait for
 * them; the screen's `useQuery` takes over the calls in flight.
 */
export function prefetchDashboard(client: QueryClient, site: Site, now = new Date()) {
  const s = readSession();
  const guard = decide(
    paths.user.home,
    { signedIn: isSignedIn(s), pendingOtp: s.persistUserInfoTemporary !== null, isOtpSetup: s.isOtpSetup, role: s.role, organization: s.organization },
    site,
  );
  if (guard.kind !== 'allow' || s.organization === null) return;
  const q = dashboardQueries(s.organization, now);
  void client.prefetchQuery({ ...q.day, staleTime: FRESH_MS });
  void client.prefetchQuery({ ...q.week, staleTime: FRESH_MS });
}
