/** Messages of the account screens: the spec's (section 8, in `config/messages.ts`) and
 * the server's own. */
import { ApiError } from '@/lib/api-client';

export { CHANGES_SAVED, TOKEN_INVALID } from '@/config/messages';

/** The confirmation field differs (the spec has no message; docs/decisions.md "Account forms"). */
export const PASSWORDS_DIFFER = 'The two passwords do not match.';

/** The server's `request_change_password/` message, checked here before sending. */
export const SAME_PASSWORD = 'The new password must differ from the old one.';

/**
 * A link's token the server refused: 400 on `token`, or 404 (a token that cannot be a
 * path segment never reaches the call).
 */
export function isBadToken(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 404) return true;
  return err.status === 400 && typeof err.data === 'object' && err.data !== null && 'token' in err.data;
}

/** Profile Setting: the new address is the one the account already has. */
export const SAME_EMAIL = 'This is already your e-mail address.';
