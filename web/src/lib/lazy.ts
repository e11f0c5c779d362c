/**
 * Route-level code splitting with the spec's chunk time-out (section 9: 120 s): a
 * screen whose script has not loaded by then fails, and the route's error screen
 * shows (section 8: "On a chunk load failure or time-out the loader raises an error").
 */
import type { ComponentType } from 'react';

import { CHUNK_TIMEOUT_MS } from '@/config/constants';

export class ChunkLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChunkLoadError';
  }
}

export function withTimeout<T>(p: Promise<T>, ms = CHUNK_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new ChunkLoadError(`The screen did not load within ${ms / 1000} s.`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(new ChunkLoadError(e instanceof Error ? e.message : 'The screen could not be loaded.'));
      },
    );
  });
}

/** A react-router `lazy` loader for a module whose default export is the screen. */
export function lazyScreen(load: () => Promise<{ default: ComponentType }>, ms = CHUNK_TIMEOUT_MS) {
  return async () => ({ Component: (await withTimeout(load(), ms)).default });
}
