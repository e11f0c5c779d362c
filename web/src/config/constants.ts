/** Business constants of spec section 9 the shell uses. */

/** Script and style chunk load time-out. */
export const CHUNK_TIMEOUT_MS = 120_000;

/** Toasts: top-right, at most 3 at once; 5 s default, 3 s for most messages, 2 s hints. */
export const TOAST_LIMIT = 3;
export const TOAST_DEFAULT_MS = 5_000;
export const TOAST_SHORT_MS = 3_000;
export const TOAST_HINT_MS = 2_000;

/** Redirect delays: after sign-up, sign-in or e-mail verification; after an organisation switch. */
export const REDIRECT_DELAY_MS = 3_000;
export const ORG_SWITCH_DELAY_MS = 1_000;

export const OTP_LENGTH = 6;
