import { isRouteErrorResponse, useRouteError } from 'react-router';

import { ChunkLoadError } from '@/lib/lazy';

/** The error screen of a route: a screen that failed to load (chunk time-out) or threw. */
export function ErrorScreen() {
  const err = useRouteError();
  const chunk = err instanceof ChunkLoadError;
  const title = chunk
    ? 'This screen could not be loaded'
    : isRouteErrorResponse(err) && err.status === 404
      ? 'Page not found'
      : 'Something went wrong';
  const detail = err instanceof Error ? err.message : isRouteErrorResponse(err) ? err.statusText : null;
  return (
    <main className="error-screen" role="alert">
      <h1>{title}</h1>
      {detail ? <p>{detail}</p> : null}
      <p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload
        </button>{' '}
        <a href="/">Go to the start page</a>
      </p>
    </main>
  );
}
