import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';

/**
 * Goes to `to` (replacing the current entry) `ms` after `to` is set, so a message can
 * be read first (spec section 9: 3 s after sign-up, sign-in or e-mail verification).
 * Leaving the screen earlier cancels it.
 */
export function useRedirectAfter(to: string | null, ms: number) {
  const navigate = useNavigate();
  const nav = useRef(navigate);
  useEffect(() => {
    nav.current = navigate;
  }, [navigate]);
  useEffect(() => {
    if (to === null) return;
    const t = setTimeout(() => void nav.current(to, { replace: true }), ms);
    return () => clearTimeout(t);
  }, [to, ms]);
}
