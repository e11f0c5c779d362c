import { useRef, useState } from 'react';

import type { Segment } from '@/api/generated';
import { stepColour } from '@/components/charts/palette';
import { exactSeconds } from '@/lib/format';

import { timelineGesture } from '../labels';

type Props = {
  /** The part of the video shown (ms). */
  view: { from: number; to: number };
  segments: readonly Segment[];
  /** The steps' names, by index. */
  steps: readonly string[];
  /** A start marked and not yet ended (ms). */
  start: number | null;
  /** The playhead (ms). */
  now: number;
  /** Dragging marks a segment (editable); else every press seeks. */
  canMark: boolean;
  /** Its accessible name. */
  label: string;
  onSeek: (ms: number) => void;
  onMark: (from: number, to: number) => void;
};

/**
 * The labeling timeline: the segments in their steps' colours, a marked start, the
 * playhead. With a mouse, pen or finger (pointer events): a tap goes to that moment, a
 * drag along it marks the chosen step between where it began and ended (shown while
 * dragging); vertical moves still scroll the page on a touch screen. With the keyboard
 * it is a slider over the part shown: Home and End go to its ends, Page Up / Page Down a
 * tenth of it back or on (the arrows step frames, as everywhere in the editor).
 */
export function LabelTimeline({ view, segments, steps, start, now, canMark, label, onSeek, onMark }: Props) {
  const span = view.to - view.from;
  const pct = (ms: number) => `${span > 0 ? ((ms - view.from) / span) * 100 : 0}%`;
  const press = useRef<{ id: number; x0: number } | null>(null);
  const [drag, setDrag] = useState<{ left: number; right: number } | null>(null);
  const x = (e: React.PointerEvent<HTMLDivElement>) => e.clientX - e.currentTarget.getBoundingClientRect().left;
  const width = (e: React.PointerEvent<HTMLDivElement>) => e.currentTarget.getBoundingClientRect().width;
  const end = () => {
    press.current = null;
    setDrag(null);
  };

  return (
    <div
      className={canMark ? 'timeline markable' : 'timeline'}
      role="slider"
      tabIndex={0}
      aria-label={label}
      aria-valuemin={Math.round(view.from)}
      aria-valuemax={Math.round(view.to)}
      aria-valuenow={Math.round(now)}
      aria-valuetext={exactSeconds(now)}
      onKeyDown={(e) => {
        const to = { Home: view.from, End: view.to, PageUp: now - span / 10, PageDown: now + span / 10 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        onSeek(Math.min(Math.max(view.from, to), view.to));
      }}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.currentTarget.setPointerCapture?.(e.pointerId);
        press.current = { id: e.pointerId, x0: x(e) };
      }}
      onPointerMove={(e) => {
        const p = press.current;
        if (!p || p.id !== e.pointerId) return;
        const g = timelineGesture({ from: 0, to: width(e) }, width(e), p.x0, x(e), canMark);
        setDrag('mark' in g ? { left: g.mark[0], right: g.mark[1] } : null);
      }}
      onPointerUp={(e) => {
        const p = press.current;
        if (!p || p.id !== e.pointerId) return;
        const g = timelineGesture(view, width(e), p.x0, x(e), canMark);
        end();
        if ('mark' in g) onMark(g.mark[0], g.mark[1]);
        else onSeek(g.seek);
      }}
      onPointerCancel={end}
    >
      {segments.map((sg) => (
        <span
          key={`${sg.start_ms}-${sg.end_ms}`}
          className="timeline-segment"
          style={{ left: pct(sg.start_ms), width: pct(view.from + sg.end_ms - sg.start_ms), background: stepColour(sg.step) }}
          title={`${sg.step + 1}. ${steps[sg.step] ?? ''}: ${exactSeconds(sg.start_ms)}–${exactSeconds(sg.end_ms)}`}
        />
      ))}
      {drag ? <span className="timeline-drag" data-testid="timeline-drag" style={{ left: drag.left, width: drag.right - drag.left }} /> : null}
      {start !== null ? <span className="timeline-start" style={{ left: pct(start) }} /> : null}
      <span className="timeline-head" style={{ left: pct(now) }} />
    </div>
  );
}
