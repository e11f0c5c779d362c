/**
 * Fake timers for the redirect delays: timers still run with real time (so msw, lazy
 * screens and Testing Library's waiting work), and `vi.advanceTimersByTime` jumps
 * ahead. Answers a `userEvent` that advances the same clock. `setup.ts` restores real
 * timers after each test.
 */
import { act } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

export function fakeClock() {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  return userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
}

/** Moves the clock `ms` ahead, running the timers due (inside `act`). */
export function advance(ms: number) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}

/**
 * Still at `pathname` with no navigation started (a navigation to a lazy screen shows
 * as "loading" before the address changes).
 */
export function expectStillAt(router: { state: { navigation: { state: string }; location: { pathname: string } } }, pathname: string) {
  expect(router.state.navigation.state).toBe('idle');
  expect(router.state.location.pathname).toBe(pathname);
}

/** A navigation to `pathname` has started (or already ended there). */
export function expectGoingTo(
  router: { state: { navigation: { location?: { pathname: string } | undefined }; location: { pathname: string } } },
  pathname: string,
) {
  expect(router.state.navigation.location?.pathname ?? router.state.location.pathname).toBe(pathname);
}
