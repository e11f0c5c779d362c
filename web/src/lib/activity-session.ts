/**
 * The activity session (spec section 4 "Activity session"): how long a signed-in user
 * actually has the portal in front of them. Every 10 s the portal looks at its focus:
 * - focused and no session: create one (`POST account/session/create/`);
 * - focused and the session's end time more than 20 s old: extend it to now
 *   (`PATCH account/session/update/{id}/`);
 * - 120 s without focus: forget the session (its end time stays where it was last
 *   extended), so the next focus starts a new one.
 * The decision is a pure function (`activityStep`); `useActivitySession` runs it.
 */
import { useEffect } from 'react';

import type { ActivitySession, SessionEnd } from '@/api/generated';
import { ACTIVITY_CHECK_MS, ACTIVITY_IDLE_MS, ACTIVITY_STALE_MS } from '@/config/constants';
import { ApiError, api } from '@/lib/api-client';
import { readSession, writeSession } from '@/lib/session';

export type ActivityState = { sessionId: number | null; sessionEndTime: number | null };
export type ActivityAction = 'create' | 'update' | 'clear' | 'none';

/** What the check at `now` does, given when the page last had focus. */
export function activityStep(s: ActivityState, now: number, focused: boolean, lastFocusAt: number): ActivityAction {
  if (!focused) {
    return s.sessionId !== null && now - lastFocusAt >= ACTIVITY_IDLE_MS ? 'clear' : 'none';
  }
  if (s.sessionId === null) return 'create';
  return s.sessionEndTime === null || now - s.sessionEndTime > ACTIVITY_STALE_MS ? 'update' : 'none';
}

/** The browser's name and major version, for the session record. */
export function browserOf(ua: string): { browser: string; browser_version: string } {
  const found = [
    ['Edge', /Edg\/(\d+)/],
    ['Opera', /OPR\/(\d+)/],
    ['Firefox', /Firefox\/(\d+)/],
    ['Chrome', /Chrome\/(\d+)/],
    ['Safari', /Version\/(\d+).*Safari/],
  ] as const;
  for (const [name, re] of found) {
    const m = re.exec(ua);
    if (m?.[1]) return { browser: name, browser_version: m[1] };
  }
  return { browser: 'Other', browser_version: '' };
}

let busy = false;

/** One check: applies `activityStep` to the stored session. Exported for tests. */
export async function checkActivity(now: number, focused: boolean, lastFocusAt: number): Promise<ActivityAction> {
  const s = readSession();
  if (!s.token || s.id === null || busy) return 'none';
  const action = activityStep(s, now, focused, lastFocusAt);
  busy = true;
  try {
    if (action === 'create') {
      const r = await api.post<ActivitySession>('account/session/create/', { user: s.id, ...browserOf(navigator.userAgent) });
      writeSession({ sessionId: r.id, sessionEndTime: r.end_time, sessionUser: r.user });
    } else if (action === 'update' && s.sessionId !== null) {
      const r = await api.patch<SessionEnd>(`account/session/update/${s.sessionId}/`);
      writeSession({ sessionEndTime: r.end_time });
    } else if (action === 'clear') {
      writeSession({ sessionId: null, sessionEndTime: null, sessionUser: null });
    }
  } catch (err) {
    // A session the server no longer has (404) starts anew at the next check; other
    // failures (offline, signed out meanwhile) are simply retried then.
    if (err instanceof ApiError && err.status === 404) writeSession({ sessionId: null, sessionEndTime: null, sessionUser: null });
  } finally {
    busy = false;
  }
  return action;
}

/** Runs the check every 10 s (and at once) while mounted: the signed-in layout. */
export function useActivitySession(): void {
  useEffect(() => {
    let lastFocusAt = Date.now();
    const focused = () => document.hasFocus() && document.visibilityState === 'visible';
    const tick = () => {
      const now = Date.now();
      const f = focused();
      if (f) lastFocusAt = now;
      void checkActivity(now, f, lastFocusAt);
    };
    const onFocus = () => {
      lastFocusAt = Date.now();
    };
    tick();
    const timer = window.setInterval(tick, ACTIVITY_CHECK_MS);
    window.addEventListener('focus', onFocus);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('focus', onFocus);
    };
  }, []);
}
