import { Link } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { paths } from '@/config/paths';

/**
 * `/privacy-policy`: reachable signed in or not (spec section 2), linked from the login
 * and sign-up screens. The spec does not give its text.
 */
export default function PrivacyPolicyScreen() {
  return (
    <section>
      <h1>Privacy Policy</h1>
      <EmptyState title="The privacy policy has not been published on this server yet." />
      <p className="auth-links">
        <Link to={paths.root}>Back</Link>
      </p>
    </section>
  );
}
