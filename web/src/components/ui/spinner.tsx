import { useNavigation } from 'react-router';

import { useSpinnerFlag } from '@/lib/spinner';

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="spinner" role="status" aria-live="polite">
      <span className="spinner-wheel" aria-hidden="true" />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}

/** The global spinner: on while the spinner flag is on or a screen is loading. */
export function GlobalSpinner() {
  const flag = useSpinnerFlag();
  const loading = useNavigation().state === 'loading';
  if (!flag && !loading) return null;
  return (
    <div className="global-spinner" data-testid="global-spinner">
      <Spinner />
    </div>
  );
}
