import { useEffect, useRef, useState } from 'react';

import type { CycleClip } from '@/api/generated/CycleClip';
import type { RecentCycle } from '@/api/generated/RecentCycle';
import { stepColour } from '@/components/charts/palette';
import { seconds } from '@/lib/format';
import { useMediaRecovery } from '@/lib/media-recovery';

/** The step being performed at `at` (ms on the cycle's clock): its index in the cycle's segments, or -1. */
export function segmentAt(cycle: RecentCycle, at: number): number {
  return cycle.segments.findIndex((s) => at >= s.start_ms && at < s.end_ms);
}

/** Where the clip's moment `at` stands, in words: what is done, and when in the cycle. */
function where(cycle: RecentCycle, steps: readonly string[], at: number): [string, string] {
  if (at < cycle.start_ms) return ['Before the cycle', `${seconds(cycle.start_ms - at)} before it starts`];
  if (at >= cycle.end_ms) return ['After the cycle', `${seconds(at - cycle.end_ms)} after it ended`];
  const s = cycle.segments[segmentAt(cycle, at)];
  const what = s ? (steps[s.step] ?? `Step ${s.step + 1}`) : 'Between steps';
  return [what, `${seconds(at - cycle.start_ms)} into the cycle`];
}

/**
 * A cycle's video clip beside its steps: the video (the station's camera, from a little
 * before the cycle to a little after) over a timeline of the steps on the clip's time,
 * with a playhead; the step being performed is highlighted as the video plays (and named
 * for screen readers); a step on the timeline jumps the video to its start. `at` tells
 * the parent where the video is (on the cycle's clock), `seek` lets it jump.
 */
export function CycleClipPlayer({
  cycle,
  steps,
  clip,
  onTime,
  seekTo,
  onExpired,
}: {
  cycle: RecentCycle;
  steps: readonly string[];
  clip: CycleClip;
  /** The video's moment on the cycle's clock, as it plays or is moved. */
  onTime?: (at: number) => void;
  /** A moment (cycle's clock) to jump to; a new object each time. */
  seekTo?: { at: number } | null;
  /** The clip's URL stopped working (a page left open): ask for the cycle again. */
  onExpired?: () => unknown;
}) {
  const video = useRef<HTMLVideoElement>(null);
  useMediaRecovery(video, clip.url, () => onExpired?.());
  const [at, setAt] = useState(clip.start_ms);
  const from = Math.min(clip.start_ms, cycle.start_ms);
  const to = Math.max(clip.start_ms + clip.duration_ms, cycle.end_ms);
  const span = Math.max(to - from, 1);
  const size = (ms: number) => `${((ms / span) * 100).toFixed(3)}%`;
  const pct = (ms: number) => size(ms - from);

  // Follows the video closely while it plays (timeupdate alone comes a few times a second).
  useEffect(() => {
    const v = video.current;
    if (!v) return;
    let frame = 0;
    const read = () => {
      const t = clip.start_ms + v.currentTime * 1000;
      setAt(t);
      onTime?.(t);
    };
    const loop = () => {
      read();
      if (!v.paused && !v.ended) frame = requestAnimationFrame(loop);
    };
    const play = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(loop);
    };
    v.addEventListener('play', play);
    v.addEventListener('seeked', read);
    v.addEventListener('timeupdate', read);
    return () => {
      cancelAnimationFrame(frame);
      v.removeEventListener('play', play);
      v.removeEventListener('seeked', read);
      v.removeEventListener('timeupdate', read);
    };
  }, [clip.start_ms, onTime]);

  const jump = (ms: number) => {
    const v = video.current;
    if (!v) return;
    v.currentTime = Math.min(Math.max((ms - clip.start_ms) / 1000, 0), clip.duration_ms / 1000);
  };
  useEffect(() => {
    if (seekTo) jump(seekTo.at);
    // jump reads only the ref and the clip.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [seekTo]);

  const current = segmentAt(cycle, at);
  const [what, when] = where(cycle, steps, at);
  return (
    <section className="cycle-clip" aria-label="Clip">
      <video ref={video} src={clip.url} controls muted playsInline preload="metadata" aria-label="Cycle clip" />
      <div className="clip-timeline" aria-label="Steps on the clip">
        <span className="clip-cycle" style={{ left: pct(cycle.start_ms), width: size(cycle.end_ms - cycle.start_ms) }} />
        {cycle.segments.map((s, i) => {
          const name = steps[s.step] ?? `Step ${s.step + 1}`;
          return (
            <button
              key={i}
              type="button"
              className={i === current ? 'clip-step current' : 'clip-step'}
              aria-current={i === current ? 'step' : undefined}
              aria-label={`Play ${name} from ${seconds(s.start_ms - cycle.start_ms)}`}
              title={`${name}: ${seconds(s.end_ms - s.start_ms)}`}
              style={{ left: pct(s.start_ms), width: size(Math.max(s.end_ms - s.start_ms, 0)), background: stepColour(s.step) }}
              onClick={() => jump(s.start_ms)}
            />
          );
        })}
        <span className="clip-playhead" style={{ left: pct(at) }} />
      </div>
      <p className="clip-now" role="status" aria-label="Now playing">
        <strong>{what}</strong> · {when}
      </p>
    </section>
  );
}
