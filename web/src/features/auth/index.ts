/** The sign-in flow: login, the second factor and the organisation step. */
export { afterCredentials, completeSignIn } from './flow';
