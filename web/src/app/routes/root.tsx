import { logout } from '@/lib/api-client';
import { useSession } from '@/lib/session';

/**
 * `/` for a signed-in user without a landing page (the workstation user): no menu,
 * their name and sign-out. Every other role is redirected by the guard.
 */
export default function RootScreen() {
  const s = useSession();
  return (
    <main className="auth-layout">
      <div className="auth-card">
        <p className="brand">gemba</p>
        <h1>{s.name ?? 'Signed in'}</h1>
        {s.organizationName ? <p>{s.organizationName}</p> : null}
        <button type="button" onClick={() => void logout()}>
          Log out
        </button>
      </div>
    </main>
  );
}
