import { LoginForm } from './login-screen';

/** `/admin-login`: super admins only (`account/admin-login/`). */
export default function AdminLoginScreen() {
  return <LoginForm admin />;
}
