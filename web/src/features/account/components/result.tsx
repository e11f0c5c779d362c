import { Link } from 'react-router';

import { REDIRECT_DELAY_MS } from '@/config/constants';
import { paths } from '@/config/paths';

import { useRedirectAfter } from './use-redirect-after';

/**
 * The outcome of an account step: its message, then the login screen after the
 * spec's 3 s (section 9), with a link to go there at once.
 */
export function Result({ title, message, failed = false, children }: { title: string; message: string; failed?: boolean; children?: React.ReactNode }) {
  useRedirectAfter(paths.login, REDIRECT_DELAY_MS);
  return (
    <section>
      <h1>{title}</h1>
      <p role={failed ? 'alert' : 'status'} className={failed ? 'result result-failed' : 'result'}>
        {message}
      </p>
      {children}
      <p className="muted">You will be taken to the login screen in {REDIRECT_DELAY_MS / 1000} seconds.</p>
      <p className="auth-links">
        <Link to={paths.login} replace>
          Go to login now
        </Link>
      </p>
    </section>
  );
}
