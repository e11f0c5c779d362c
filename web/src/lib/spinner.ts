/**
 * The global spinner flag (spec section 2 "Route guard rules"): on while any call
 * wrapped in `withSpinner` runs; `<GlobalSpinner>` also shows it while a screen loads.
 */
import { useSyncExternalStore } from 'react';

let active = 0;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export async function withSpinner<T>(p: Promise<T>): Promise<T> {
  active++;
  emit();
  try {
    return await p;
  } finally {
    active--;
    emit();
  }
}

export function useSpinnerFlag(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => active > 0,
  );
}
