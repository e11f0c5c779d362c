import { useRef, useState } from 'react';

import type { Rect } from '@/api/generated';
import { useKeyboardBox } from '@/components/ui/keyboard-box';

import { type Point, drawable, pointIn, rectBetween, rectStyle } from '../blur-rects';

/**
 * The camera's frame with its blur regions over it, numbered; with `onDraw`, a drag
 * (mouse, pen or a finger: pointer events, captured, the page not scrolled meanwhile)
 * draws a new one. A second finger while drawing is ignored; a click draws nothing.
 * By keyboard, the frame takes the focus and a cursor box is drawn with Enter
 * (`useKeyboardBox`).
 */
export function BlurFrame({
  picture,
  rects,
  highlighted,
  label,
  onDraw,
}: {
  /** The camera's picture, or what shows on the empty frame in its place. */
  picture: React.ReactNode;
  rects: readonly Rect[];
  /** The region whose entry has the pointer or the focus. */
  highlighted: number | null;
  label: string;
  onDraw?: (r: Rect) => void;
}) {
  const surface = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ pointer: number; from: Point; to: Point } | null>(null);
  const keys = useKeyboardBox({ name: 'Region', onDraw: (r) => onDraw?.(r) });
  const at = (e: React.PointerEvent) => pointIn(e.clientX, e.clientY, surface.current!.getBoundingClientRect());

  const draw = onDraw
    ? {
        ...keys.surface,
        onPointerDown: (e: React.PointerEvent<HTMLDivElement>) => {
          if (drag || e.button !== 0) return;
          e.preventDefault();
          const el = e.currentTarget;
          if (typeof el.setPointerCapture === 'function') el.setPointerCapture(e.pointerId);
          const p = at(e);
          setDrag({ pointer: e.pointerId, from: p, to: p });
        },
        onPointerMove: (e: React.PointerEvent<HTMLDivElement>) => {
          if (drag?.pointer === e.pointerId) setDrag({ ...drag, to: at(e) });
        },
        onPointerUp: (e: React.PointerEvent<HTMLDivElement>) => {
          if (drag?.pointer !== e.pointerId) return;
          const r = rectBetween(drag.from, at(e));
          setDrag(null);
          if (drawable(r)) onDraw(r);
        },
        onPointerCancel: (e: React.PointerEvent<HTMLDivElement>) => {
          if (drag?.pointer === e.pointerId) setDrag(null);
        },
      }
    : {};
  const drawing = drag ? rectBetween(drag.from, drag.to) : null;

  return (
    <div className="blur-frame">
      {picture}
      <div ref={surface} className={onDraw ? 'blur-surface drawable' : 'blur-surface'} role="group" aria-label={label} {...draw}>
        {rects.map((r, i) => (
          <div key={i} className={highlighted === i ? 'blur-rect highlighted' : 'blur-rect'} style={rectStyle(r)} aria-hidden="true">
            {i + 1}
          </div>
        ))}
        {drawing ? <div className="blur-rect drawing" style={rectStyle(drawing)} aria-hidden="true" /> : null}
        {onDraw ? keys.cursor : null}
      </div>
    </div>
  );
}
