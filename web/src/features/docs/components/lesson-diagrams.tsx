/**
 * One diagram per Fundamentals lesson, by the lesson's number, drawn in code from the
 * shapes of `diagram-parts.tsx`. The numbers in them are the lessons' own worked
 * examples, so the drawing and the text say the same thing.
 */
import type { ReactNode } from 'react';

import { STEP_COLOURS, palette } from '@/components/charts/palette';

import { Bars, Figure, Flow, Label } from './diagram-parts';

const c = (i: number) => STEP_COLOURS[i % STEP_COLOURS.length] ?? palette.primary;

/** Tiles in a grid, each a coloured square with its word. */
function Tiles({ tiles, perRow }: { tiles: readonly string[]; perRow: number }) {
  const gap = 8;
  const tw = (360 - 20 - gap * (perRow - 1)) / perRow;
  const th = 40;
  return (
    <g>
      {tiles.map((t, i) => {
        const x = 10 + (i % perRow) * (tw + gap);
        const y = 10 + Math.floor(i / perRow) * (th + gap);
        return (
          <g key={t}>
            <rect x={x} y={y} width={tw} height={th} rx={6} fill={c(i)} opacity={0.15} stroke={c(i)} />
            <Label x={x + tw / 2} y={y + th / 2} text={t} width={tw} size={10.5} />
          </g>
        );
      })}
    </g>
  );
}

/** Boxes from top to bottom, each a little further right: a chain of answers. */
function Chain({ items }: { items: readonly string[] }) {
  return (
    <g>
      {items.map((t, i) => (
        <g key={t}>
          <rect x={10 + i * 18} y={8 + i * 34} width={270} height={26} rx={5} fill="none" stroke={i === items.length - 1 ? palette.good : palette.primary} strokeWidth={2} />
          <Label x={10 + i * 18 + 135} y={8 + i * 34 + 13} text={t} width={260} size={10.5} />
        </g>
      ))}
    </g>
  );
}

const DIAGRAMS: Record<number, () => ReactNode> = {
  1: () => (
    <Figure title="The plan, do, check, act loop" caption="Every kaizen goes round the same loop, then starts again." height={100}>
      <Flow boxes={['Plan', 'Do', 'Check', 'Act']} loop colours />
    </Figure>
  ),
  2: () => (
    <Figure title="The eight wastes: DOWNTIME" caption="Defects, Overproduction, Waiting, Non-used talent, Transportation, Inventory, Motion, Extra processing." height={108}>
      <Tiles tiles={['Defects', 'Overproduction', 'Waiting', 'Non-used talent', 'Transportation', 'Inventory', 'Motion', 'Extra processing']} perRow={4} />
    </Figure>
  ),
  3: () => (
    <Figure title="From the figures to the real place and back" caption="The figures choose where to look; the walk finds why." height={70}>
      <Flow boxes={['Figures', 'Choose where', 'Go and see', 'Ask', 'Improve']} />
    </Figure>
  ),
  4: () => (
    <Figure title="The three parts of standard work" caption="The sequence, the takt time and the work in process make the standard." height={70}>
      <Flow boxes={['Work sequence', 'Takt time', 'Standard work in process']} colours />
    </Figure>
  ),
  5: () => (
    <Figure title="Station cycle times against a 30 second takt time" caption="Station 3 is above takt: it cannot keep the pace the demand asks for." height={170}>
      <Bars
        max={40}
        unit=" s"
        line={{ value: 30, label: 'takt 30 s' }}
        bars={[
          { label: 'Station 1', value: 24 },
          { label: 'Station 2', value: 25 },
          { label: 'Station 3', value: 34, colour: palette.bad },
          { label: 'Station 4', value: 21 },
        ]}
      />
    </Figure>
  ),
  6: () => (
    <Figure title="Cycle times are short; the lead time is mostly waiting" caption="Coloured: work at each station (cycle time). Grey: waiting between stations. The whole is the lead time." height={80}>
      {[0, 1, 2].map((i) => (
        <g key={i}>
          <rect x={10 + i * 120} y={20} width={24} height={24} fill={c(i)} rx={3} />
          {i < 2 ? <rect x={34 + i * 120} y={28} width={96} height={8} fill={palette.ink} opacity={0.25} /> : null}
        </g>
      ))}
      <line x1={10} x2={274} y1={58} y2={58} stroke="currentColor" />
      <line x1={10} x2={10} y1={52} y2={64} stroke="currentColor" />
      <line x1={274} x2={274} y1={52} y2={64} stroke="currentColor" />
      <text x={142} y={74} textAnchor="middle" fontSize={11} fill="currentColor">
        lead time
      </text>
      <text x={22} y={14} textAnchor="middle" fontSize={10} fill="currentColor">
        cycle
      </text>
    </Figure>
  ),
  7: () => (
    <Figure title="Four stations of 20, 25, 40 and 15 seconds: a balance of 62.5%" caption="Balance = (20 + 25 + 40 + 15) ÷ (4 × 40) = 62.5%. Moving work off station 3 raises it." height={170}>
      <Bars
        max={45}
        unit=" s"
        line={{ value: 30, label: 'takt 30 s' }}
        bars={[
          { label: 'Station 1', value: 20 },
          { label: 'Station 2', value: 25 },
          { label: 'Station 3', value: 40, colour: palette.bad },
          { label: 'Station 4', value: 15 },
        ]}
      />
    </Figure>
  ),
  8: () => (
    <Figure title="The bottleneck sets the line's pace" caption="At 40 s a part, the bottleneck makes 3,600 ÷ 40 = 90 parts an hour: so does the line." height={170}>
      <Bars
        max={45}
        unit=" s"
        bars={[
          { label: 'Cut', value: 22 },
          { label: 'Weld', value: 40, colour: palette.bad },
          { label: 'Paint', value: 30 },
          { label: 'Pack', value: 18 },
        ]}
      />
    </Figure>
  ),
  9: () => (
    <Figure title="The normal and the maximum reach of the hands" caption="Keep parts and tools inside the inner arc; reaching to the outer arc costs time and strain." height={150}>
      <path d="M65,140 A115,115 0 0 1 295,140" fill="none" stroke={palette.secondary} strokeWidth={2} strokeDasharray="5 4" />
      <path d="M110,140 A70,70 0 0 1 250,140" fill={palette.good} opacity={0.15} stroke={palette.good} strokeWidth={2} />
      <circle cx={180} cy={140} r={8} fill="currentColor" />
      <text x={180} y={105} textAnchor="middle" fontSize={11} fill="currentColor">
        normal reach
      </text>
      <text x={180} y={14} textAnchor="middle" fontSize={11} fill="currentColor">
        maximum reach
      </text>
    </Figure>
  ),
  10: () => (
    <Figure title="A distribution of cycle times with a long tail" caption="Most cycles near the average; the tail on the right holds the special causes worth finding." height={170}>
      <Bars
        max={40}
        bars={[24, 27, 30, 33, 36, 39, 42, 45, 48].map((s, i) => ({
          label: `${s}s`,
          value: [4, 14, 36, 30, 12, 5, 3, 2, 2][i] ?? 0,
          colour: s >= 42 ? palette.bad : palette.primary,
        }))}
      />
    </Figure>
  ),
  11: () => (
    <Figure title="100 parts started, 92 right the first time" caption="First-pass yield 92%: the 8 reworked parts still ship, but the rework was waste." height={90}>
      <rect x={10} y={20} width={300} height={26} fill={palette.good} opacity={0.8} rx={3} />
      <rect x={286} y={20} width={24} height={26} fill={palette.bad} rx={3} />
      <text x={148} y={37} textAnchor="middle" fontSize={11} fill="#fff">
        92 right the first time
      </text>
      <text x={298} y={64} textAnchor="middle" fontSize={10} fill="currentColor">
        8 rework
      </text>
      <text x={10} y={80} fontSize={10} fill="currentColor">
        0
      </text>
      <text x={310} y={80} textAnchor="end" fontSize={10} fill="currentColor">
        100 parts
      </text>
    </Figure>
  ),
  12: () => (
    <Figure title="The five steps of 5S" caption="Sort, set in order, shine, standardise, sustain: then keep going round." height={100}>
      <Flow boxes={['Sort', 'Set in order', 'Shine', 'Standardise', 'Sustain']} loop colours />
    </Figure>
  ),
  13: () => (
    <Figure title="An hour-by-hour board: plan against actual" caption="Green on plan, yellow close, red behind: anyone walking by sees where help is needed." height={96}>
      {[
        ['07', 60, 61],
        ['08', 60, 58],
        ['09', 60, 44],
        ['10', 60, 60],
        ['11', 60, 55],
      ].map(([h, plan, actual], i) => {
        const p = Number(plan);
        const a = Number(actual);
        const colour = a >= p ? palette.good : a >= p * 0.9 ? '#c9a227' : palette.bad;
        return (
          <g key={String(h)}>
            <rect x={10 + i * 68} y={10} width={60} height={74} rx={5} fill={colour} opacity={0.18} stroke={colour} />
            <text x={40 + i * 68} y={30} textAnchor="middle" fontSize={11} fill="currentColor">
              {h}:00
            </text>
            <text x={40 + i * 68} y={52} textAnchor="middle" fontSize={10} fill="currentColor">
              plan {p}
            </text>
            <text x={40 + i * 68} y={72} textAnchor="middle" fontSize={12} fontWeight="bold" fill="currentColor">
              {a}
            </text>
          </g>
        );
      })}
    </Figure>
  ),
  14: () => (
    <Figure title="Prevention before detection before inspection" caption="The earlier a mistake is stopped, the cheaper it is." height={70}>
      <Flow boxes={['Prevent: cannot happen', 'Detect: caught at once', 'Inspect: found later']} colours />
    </Figure>
  ),
  15: () => (
    <Figure title="A changeover before and after SMED" caption="External work moves out of the stop; what stays inside is made shorter." height={110}>
      <text x={10} y={22} fontSize={11} fill="currentColor">
        before
      </text>
      <rect x={60} y={10} width={280} height={18} fill={palette.bad} opacity={0.8} rx={3} />
      <text x={10} y={62} fontSize={11} fill="currentColor">
        after
      </text>
      <rect x={60} y={50} width={90} height={18} fill={palette.secondary} opacity={0.5} rx={3} />
      <rect x={150} y={50} width={70} height={18} fill={palette.bad} opacity={0.8} rx={3} />
      <rect x={220} y={50} width={50} height={18} fill={palette.secondary} opacity={0.5} rx={3} />
      <text x={10} y={92} fontSize={10} fill="currentColor">
        red: line stopped (internal) · orange: while it runs (external)
      </text>
    </Figure>
  ),
  16: () => (
    <Figure title="Five whys from a bad cycle to its cause" caption="Each answer is asked why again, until one you can act on." height={180}>
      <Chain items={['Bad cycle: seal not inserted', 'The seal bin was empty', 'Refilled only twice a shift', 'Refill planned for an old takt', 'Material plan not updated: fix this']} />
    </Figure>
  ),
  17: () => (
    <Figure title="Gemba's figures and the lean ideas they measure" caption="Each figure in the portal is a lean measure, taken on every cycle." height={168}>
      {[
        ['Cycle time', 'Cycle time (6)'],
        ['Takt time, Target', 'Takt (5)'],
        ['Good share', 'First-pass yield (11)'],
        ['Spread', 'Variation (10)'],
        ['Bottleneck, Pace', 'Constraints (8)'],
        ['Balance', 'Line balancing (7)'],
      ].map(([figure, idea], i) => (
        <g key={figure}>
          <rect x={10} y={6 + i * 27} width={140} height={22} rx={4} fill="none" stroke={palette.primary} />
          <Label x={80} y={6 + i * 27 + 11} text={figure ?? ''} width={136} size={10.5} />
          <line x1={152} x2={206} y1={17 + i * 27} y2={17 + i * 27} stroke="currentColor" strokeDasharray="3 3" />
          <rect x={208} y={6 + i * 27} width={142} height={22} rx={4} fill="none" stroke={palette.good} />
          <Label x={279} y={6 + i * 27 + 11} text={idea ?? ''} width={138} size={10.5} />
        </g>
      ))}
    </Figure>
  ),
};

/** The diagram of lesson `n`, or nothing for a lesson without one. */
export function LessonDiagram({ n }: { n: number }) {
  return DIAGRAMS[n]?.() ?? null;
}

/** The lesson numbers that have a diagram (the tests check each lesson has one). */
export const DIAGRAM_LESSONS: readonly number[] = Object.keys(DIAGRAMS).map(Number);
