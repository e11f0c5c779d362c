import { Link } from 'react-router';

import { paths } from '@/config/paths';

import { resendVerificationEmail } from '../api/account';
import { EmailLinkForm } from './email-link-form';

/** `/resend-verification`: mail the sign-up's verification link again. */
export default function ResendVerificationScreen() {
  return (
    <EmailLinkForm
      title="Resend Verification"
      intro="Enter the address you signed up with; we send its verification link again."
      button="Send the link again"
      send={resendVerificationEmail}
      links={<Link to={paths.signup}>Sign up</Link>}
    />
  );
}
