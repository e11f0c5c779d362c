import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';

import type { Msg } from '@/api/generated';
import { errorMessage } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { TOKEN_INVALID, isBadToken } from '../messages';

/**
 * What a mailed link's confirmation says: the server's answer, 'Token expired/Invalid!'
 * for a bad or used token, or `null` while it is asked; toasted once per outcome (React
 * may run effects twice in development).
 */
export function useLinkOutcome(q: UseQueryResult<Msg>): string | null {
  const message = q.isSuccess ? q.data.msg : q.isError ? (isBadToken(q.error) ? TOKEN_INVALID : errorMessage(q.error, 'account')) : null;
  const toasted = useRef<string | null>(null);
  useEffect(() => {
    if (message === null || toasted.current === message) return;
    toasted.current = message;
    if (q.isSuccess) notify.success(message);
    else notify.errorShort(message);
  }, [message, q.isSuccess]);
  return message;
}
