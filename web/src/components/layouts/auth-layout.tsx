import { Outlet } from 'react-router';

/** Sign-in, sign-up and the other public pages: one centred card. */
export function AuthLayout() {
  return (
    <main className="auth-layout">
      <div className="auth-card">
        <p className="brand">gemba</p>
        <Outlet />
      </div>
    </main>
  );
}
