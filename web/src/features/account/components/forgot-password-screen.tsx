import { forgotPassword } from '../api/account';
import { EmailLinkForm } from './email-link-form';

/** `/forgot-password`: mail a link to set a new password (`/reset-password/{token}`). */
export default function ForgotPasswordScreen() {
  return (
    <EmailLinkForm
      title="Forgot Password"
      intro="Enter your address; we mail you a link to set a new password."
      button="Send reset link"
      send={forgotPassword}
    />
  );
}
