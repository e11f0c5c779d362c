import { useSyncExternalStore } from 'react';

/**
 * The layout's breakpoints (px), the same as the `@media` rules of `styles.css`:
 * below `drawer` the sidebar is a drawer behind the menu button; below `cards` the
 * list tables show each row as a card and forms stack.
 */
export const BREAKPOINTS = { drawer: 900, cards: 600 } as const;

/** `(max-width: …)` of a breakpoint: true below it. */
export const below = (px: number) => `(max-width: ${px - 0.02}px)`;

/** Whether the media query `query` matches, following its changes. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (changed) => {
      if (typeof window.matchMedia !== 'function') return () => {};
      const m = window.matchMedia(query);
      m.addEventListener('change', changed);
      return () => m.removeEventListener('change', changed);
    },
    () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches,
  );
}
