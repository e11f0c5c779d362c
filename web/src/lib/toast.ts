/**
 * Toasts (spec section 9): top-right, at most 3 at once, 5 s by default, 3 s for most
 * messages, 2 s for hints. The `<Toaster>` with these settings is in `app/provider.tsx`.
 */
import { toast } from 'sonner';

import { TOAST_DEFAULT_MS, TOAST_HINT_MS, TOAST_SHORT_MS } from '@/config/constants';
import { type ErrorKind, errorMessage } from '@/lib/api-errors';

export const notify = {
  success: (message: string, duration = TOAST_DEFAULT_MS) => toast.success(message, { duration }),
  error: (message: string, duration = TOAST_DEFAULT_MS) => toast.error(message, { duration }),
  /** The 3 s toast most messages use. */
  successShort: (message: string) => toast.success(message, { duration: TOAST_SHORT_MS }),
  errorShort: (message: string) => toast.error(message, { duration: TOAST_SHORT_MS }),
  hint: (message: string) => toast(message, { duration: TOAST_HINT_MS }),
  /** A success with a line of what to do next under it (5 s, to be read). */
  successWith: (message: string, description: string) => toast.success(message, { description, duration: TOAST_DEFAULT_MS }),
  /**
   * A failed call (3 s): the section 8 message of `err` for a call of `kind`. Where the
   * spec names the screen's own failure message (`title`, e.g. 'Error in Approving
   * User'), that heads the toast and the section 8 message is shown below it.
   */
  failure: (err: unknown, kind: ErrorKind, title?: string) => {
    const message = errorMessage(err, kind);
    return title
      ? toast.error(title, { description: message, duration: TOAST_SHORT_MS })
      : toast.error(message, { duration: TOAST_SHORT_MS });
  },
};
