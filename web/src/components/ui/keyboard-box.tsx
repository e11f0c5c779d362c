import { useId, useState } from 'react';

import { type Box, START_BOX, boxKey, describeBox } from '@/lib/box-keys';

/** How a drawing surface is worked by keyboard, for its hint. */
export const KEYBOARD_BOX_HELP =
  'By keyboard: focus the picture, move the box with the arrow keys, resize it with Alt or Ctrl and the arrows (or + and −), Shift for bigger steps; Enter draws it, Escape cancels.';

/**
 * Drawing a box on a picture by keyboard (the pointer's drag has a keyboard twin): the
 * surface takes the focus and shows a cursor box (`cursor`, drawn while the surface has
 * the keyboard focus); the keys of `lib/box-keys.ts` move and resize it, Enter hands it
 * to `onDraw`, Escape calls `onCancel` (without one, it puts a moved box back, and an
 * unmoved box lets the Escape through, to close a dialog). Each step is said in
 * `announcement` (polite live region).
 */
export function useKeyboardBox({ name, onDraw, onCancel }: { name: string; onDraw: (b: Box) => void; onCancel?: () => void }) {
  const [box, setBox] = useState<Box>(START_BOX);
  const [moved, setMoved] = useState(false);
  const [said, setSaid] = useState('');
  const helpId = useId();
  const onKeyDown = (e: React.KeyboardEvent<HTMLElement>) => {
    if (e.target !== e.currentTarget) return;
    const a = boxKey(box, e);
    if (!a) return;
    if (a.kind === 'cancel') {
      if (!onCancel && !moved) return;
      setBox(START_BOX);
      setMoved(false);
      setSaid(`${name} cancelled.`);
      onCancel?.();
    } else if (a.kind === 'draw') {
      setMoved(false);
      setSaid(`${name} drawn ${describeBox(a.box)}.`);
      onDraw(a.box);
    } else {
      setBox(a.box);
      setMoved(true);
      setSaid(`${name} ${describeBox(a.box)}.`);
    }
    e.preventDefault();
    e.stopPropagation();
  };
  return {
    /** Spread on the drawing surface. */
    surface: { tabIndex: 0, onKeyDown, 'aria-describedby': helpId },
    /** Rendered inside the surface (positioned over the picture) and beside it. */
    cursor: <KeyboardBoxCursor box={box} said={said} helpId={helpId} />,
  };
}

function KeyboardBoxCursor({ box, said, helpId }: { box: Box; said: string; helpId: string }) {
  const pct = (v: number) => `${v * 100}%`;
  return (
    <>
      <div
        className="keyboard-box"
        style={{ left: pct(box.x), top: pct(box.y), width: pct(box.width), height: pct(box.height) }}
        aria-hidden="true"
      />
      <span id={helpId} className="visually-hidden">
        {KEYBOARD_BOX_HELP}
      </span>
      <span className="visually-hidden" aria-live="polite">
        {said}
      </span>
    </>
  );
}
