/**
 * The few shapes the lessons' diagrams are drawn from, as SVG (no chart library: these
 * are drawings, not data). Each takes plain values; `lesson-diagrams.tsx` gives them
 * the lessons' numbers and words. Text is `currentColor`, so it follows the page.
 */
import { type ReactNode, useId } from 'react';

import { STEP_COLOURS, palette } from '@/components/charts/palette';

import styles from '../docs.module.css';

const W = 360;

/** A drawing with its accessible name (`title`) and a caption under it. */
export function Figure({ title, caption, height, children }: { title: string; caption: string; height: number; children: ReactNode }) {
  const id = useId();
  return (
    <figure className={styles.figure}>
      <svg viewBox={`0 0 ${W} ${height}`} role="img" aria-labelledby={id} className={styles.diagram}>
        <title id={id}>{title}</title>
        {children}
      </svg>
      <figcaption>{caption}</figcaption>
    </figure>
  );
}

export type Bar = { label: string; value: number; colour?: string };

/** Vertical bars over a base line, each labelled under it and its value over it, and
 * optionally a horizontal reference line (the takt time). */
export function Bars({
  bars,
  line,
  max,
  unit = '',
  x = 0,
  width = W,
  height = 170,
}: {
  bars: readonly Bar[];
  line?: { value: number; label: string };
  max: number;
  unit?: string;
  x?: number;
  width?: number;
  height?: number;
}) {
  const base = height - 22;
  const top = 18;
  const y = (v: number) => base - ((base - top) * v) / max;
  const slot = (width - 20) / bars.length;
  const bw = Math.min(44, slot * 0.6);
  return (
    <g>
      <line x1={x + 10} x2={x + width - 10} y1={base} y2={base} stroke="currentColor" strokeWidth={1} />
      {bars.map((b, i) => {
        const cx = x + 10 + slot * (i + 0.5);
        return (
          <g key={`${b.label}-${i}`}>
            <rect x={cx - bw / 2} y={y(b.value)} width={bw} height={base - y(b.value)} fill={b.colour ?? palette.primary} rx={2} />
            <text x={cx} y={y(b.value) - 4} textAnchor="middle" fontSize={10} fill="currentColor">
              {b.value}
              {unit}
            </text>
            <text x={cx} y={base + 14} textAnchor="middle" fontSize={10} fill="currentColor">
              {b.label}
            </text>
          </g>
        );
      })}
      {line ? (
        <g>
          <line x1={x + 10} x2={x + width - 10} y1={y(line.value)} y2={y(line.value)} stroke={palette.good} strokeWidth={2} strokeDasharray="6 4" />
          <text x={x + width - 10} y={y(line.value) - 4} textAnchor="end" fontSize={10} fill={palette.good}>
            {line.label}
          </text>
        </g>
      ) : null}
    </g>
  );
}

/** Boxes joined by arrows, left to right in rows of `perRow`; `loop` joins the last to
 * the first (drawn as a return arrow under the row). */
export function Flow({ boxes, perRow = boxes.length, loop = false, colours = false }: { boxes: readonly string[]; perRow?: number; loop?: boolean; colours?: boolean }) {
  // The arrow head's id, unique on the page (an SVG reference: letters and digits).
  const arrow = `arrow-${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  const gap = 14;
  const bw = (W - 20 - gap * (perRow - 1)) / perRow;
  const bh = 44;
  return (
    <g>
      <defs>
        <marker id={arrow} viewBox="0 0 10 10" refX={9} refY={5} markerWidth={6} markerHeight={6} orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
        </marker>
      </defs>
      {boxes.map((label, i) => {
        const row = Math.floor(i / perRow);
        const col = i % perRow;
        const bx = 10 + col * (bw + gap);
        const by = 10 + row * (bh + 24);
        const colour = colours ? (STEP_COLOURS[i % STEP_COLOURS.length] ?? palette.primary) : palette.primary;
        return (
          <g key={label}>
            <rect x={bx} y={by} width={bw} height={bh} rx={6} fill="none" stroke={colour} strokeWidth={2} />
            <Label x={bx + bw / 2} y={by + bh / 2} text={label} width={bw} />
            {col < perRow - 1 && i < boxes.length - 1 ? (
              <line x1={bx + bw + 1} x2={bx + bw + gap - 1} y1={by + bh / 2} y2={by + bh / 2} stroke="currentColor" markerEnd={`url(#${arrow})`} />
            ) : null}
          </g>
        );
      })}
      {loop ? (
        <path
          d={`M${10 + (Math.min(boxes.length, perRow) - 1) * (bw + gap) + bw / 2},${10 + bh} v14 H${10 + bw / 2} v-12`}
          fill="none"
          stroke="currentColor"
          markerEnd={`url(#${arrow})`}
        />
      ) : null}
    </g>
  );
}

/** Centred text at (x, y), split over two lines when it is wider than `width`. */
export function Label({ x, y, text, width, size = 11 }: { x: number; y: number; text: string; width: number; size?: number }) {
  const fits = Math.floor(width / (size * 0.55));
  if (text.length <= fits || !text.includes(' ')) {
    return (
      <text x={x} y={y + size / 3} textAnchor="middle" fontSize={size} fill="currentColor">
        {text}
      </text>
    );
  }
  const words = text.split(' ');
  let cut = 1;
  while (cut < words.length - 1 && words.slice(0, cut + 1).join(' ').length <= fits) cut++;
  return (
    <text x={x} y={y - size / 3} textAnchor="middle" fontSize={size} fill="currentColor">
      <tspan x={x}>{words.slice(0, cut).join(' ')}</tspan>
      <tspan x={x} dy={size + 2}>
        {words.slice(cut).join(' ')}
      </tspan>
    </text>
  );
}
