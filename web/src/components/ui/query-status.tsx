import { CircleAlert } from 'lucide-react';

import { errorMessage } from '@/lib/api-errors';

/** What a list shows while its data loads or when it could not be fetched. */
export function QueryStatus({ pending, error, what }: { pending: boolean; error: unknown; what: string }) {
  if (error) {
    return (
      <p role="alert" className="query-error">
        <CircleAlert aria-hidden="true" className="icon" /> {what} could not be loaded: {errorMessage(error, 'account')}
      </p>
    );
  }
  if (pending) return <p>Loading {what.toLowerCase()}…</p>;
  return null;
}
