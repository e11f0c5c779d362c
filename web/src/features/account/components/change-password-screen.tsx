import { Link, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { homeOf } from '@/lib/access/guard';
import { logout } from '@/lib/api-client';
import { isSignedIn, readSession, useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { ChangePasswordForm } from './change-password-form';

/**
 * `/change-password`: the signed-in user sets a new password. Every call of a user whose
 * password was set by someone else answers 303 until this is done, and the API client
 * sends them here (section 4). Other sessions of the account end; this one goes on to
 * the user's landing screen (through the organisation step when one is needed).
 */
export default function ChangePasswordScreen() {
  const s = useSession();
  if (!isSignedIn(s)) {
    return (
      <section>
        <h1>Change Password</h1>
        <p>Sign in first to change your password.</p>
        <p className="auth-links">
          <Link to={paths.login}>Go to login</Link>
          <Link to={paths.forgotPassword}>Forgot password?</Link>
        </p>
      </section>
    );
  }
  return <ChangeThenLand />;
}

function ChangeThenLand() {
  const navigate = useNavigate();
  return (
    <ChangePasswordForm
      label="Change password"
      heading={<h1>Change Password</h1>}
      onSaved={async ({ msg }) => {
        notify.successShort(msg);
        const role = readSession().role;
        await navigate(role ? homeOf(role) : paths.root, { replace: true });
      }}
    >
      <p className="auth-links">
        <button type="button" className="link-button" onClick={() => void logout()}>
          Log out
        </button>
      </p>
    </ChangePasswordForm>
  );
}
