/**
 * Keeps a `<video>` going when its signed URL stops working. Media URLs end with the
 * session they were made in and at their expiry (docs/decisions.md "Media URLs end with
 * the session"), so a page left open long enough holds a dead URL: when the element
 * reports an error, `refresh` asks for the record again (which carries a new URL), and
 * once the new source loads the element goes back to where it was, playing on if it
 * played. One attempt per source: a URL that fails again is not an expired one.
 */
import { type RefObject, useEffect, useRef } from 'react';

export function useMediaRecovery(
  ref: RefObject<HTMLVideoElement | null>,
  src: string | null | undefined,
  refresh: () => unknown,
) {
  const resume = useRef<{ at: number; playing: boolean } | null>(null);
  const tried = useRef<string | null | undefined>(undefined);
  const latest = useRef(refresh);
  useEffect(() => {
    latest.current = refresh;
  });

  useEffect(() => {
    const v = ref.current;
    if (!v || !src) return;
    const onError = () => {
      if (tried.current === src) return;
      tried.current = src;
      resume.current = { at: v.currentTime, playing: !v.paused };
      void latest.current();
    };
    v.addEventListener('error', onError);
    return () => v.removeEventListener('error', onError);
  }, [ref, src]);

  useEffect(() => {
    const v = ref.current;
    const r = resume.current;
    if (!v || !r || !src || tried.current === src) return;
    resume.current = null;
    const restore = () => {
      v.currentTime = r.at;
      if (r.playing) void v.play().catch(() => undefined);
    };
    v.addEventListener('loadedmetadata', restore, { once: true });
    return () => v.removeEventListener('loadedmetadata', restore);
  }, [ref, src]);
}
