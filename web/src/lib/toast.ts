/**
 * Toasts (spec section 9): top-right, at most 3 at once, 5 s by default, 3 s for most
 * messages, 2 s for hints. The `<Toaster>` with these settings is in `app/provider.tsx`.
 */
import { toast } from 'sonner';

import { TOAST_DEFAULT_MS, TOAST_HINT_MS, TOAST_SHORT_MS } from '@/config/constants';

export const notify = {
  success: (message: string, duration = TOAST_DEFAULT_MS) => toast.success(message, { duration }),
  error: (message: string, duration = TOAST_DEFAULT_MS) => toast.error(message, { duration }),
  /** The 3 s toast most messages use. */
  successShort: (message: string) => toast.success(message, { duration: TOAST_SHORT_MS }),
  errorShort: (message: string) => toast.error(message, { duration: TOAST_SHORT_MS }),
  hint: (message: string) => toast(message, { duration: TOAST_HINT_MS }),
};
