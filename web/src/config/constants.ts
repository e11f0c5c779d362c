/** Business constants of spec section 9 the shell uses. */
import { MAX_CHARS } from '@/api/generated';

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

/** Activity session (section 4): checked every 10 s, extended when its end time is more
 * than 20 s old, ended after 120 s without focus. */
export const ACTIVITY_CHECK_MS = 10_000;
export const ACTIVITY_STALE_MS = 20_000;
export const ACTIVITY_IDLE_MS = 120_000;

/** Rows per page of the paged lists (`gemba_shared::api::v1::PAGE_SIZE`; the constant
 * is not among the generated types, so it is repeated here). */
export const PAGE_SIZE = 10;

/** Longest organisation display name and department name the server accepts. */
export const MAX_NAME_CHARS = MAX_CHARS.NAME;

/** Slow-upload warning (section 9): an upload expected to take longer than this (ms) is
 * flagged as slow. */
export const SLOW_UPLOAD_MS = 100_000;

/** Recording on a device: seconds asked for, at least and at most (the server's
 * `MIN_RECORD_SECS` and `MAX_RECORD_SECS`). */
export const RECORD_SECONDS_MIN = 5;
export const RECORD_SECONDS_MAX = 600;

/** Upload parts: about 20 of them for progress, between 256 KiB and 4 MiB each (the
 * server takes at most 8 MiB). */
export const UPLOAD_PART_MIN = 256 * 1024;
export const UPLOAD_PART_MAX = 4 * 1024 * 1024;

/** The annotation editor's default frame step (section 9). */
export const FRAME_STEP = 10;

/** Training (`gemba_shared::api::v1::training`): the default and largest number of epochs,
 * and how often a screen following a training run asks for its progress (ms). */
export const DEFAULT_EPOCHS = 12;
export const MAX_EPOCHS = 200;
export const TRAINING_POLL_MS = 1000;

/** Model types (`gemba_shared::api::v1::training`): the frame sides (px) and hidden
 * units a recipe may have, and the largest model file an upload may carry. */
export const MODEL_SIDE_MIN = 16;
export const MODEL_SIDE_MAX = 640;
export const MODEL_HIDDEN_MIN = 4;
export const MODEL_HIDDEN_MAX = 1024;
export const MAX_MODEL_FILE_BYTES = 64 * 1024 * 1024;

/** A release's roll-out is asked again this often (ms) while it rolls out (Updates). */
export const ROLLOUT_REFRESH_MS = 3_000;
