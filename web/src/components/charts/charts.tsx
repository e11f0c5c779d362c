/**
 * The portal's charts: recharts, wrapped once behind our own props, so every screen's
 * chart has the same frame (dashed grid, tooltip, margins, no animation) and its colours
 * from `palette.ts`. Screens import these, never recharts. The chart fills its parent's
 * width at `height` pixels; the screen gives it its figure and accessible name.
 */
import { type ReactElement, useId } from 'react';
import {
  Bar,
  BarChart as RBarChart,
  CartesianGrid,
  Cell,
  ErrorBar,
  Legend,
  Line,
  LineChart as RLineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

import { palette } from './palette';

/** A field of a row holding a value to draw. */
type Field<Row> = Extract<keyof Row, string>;

/** The frame every chart shares: its size, axes, tooltip and legend. */
export type ChartFrame<Row> = {
  data: Row[];
  /** Pixels. */
  height: number;
  /** The field naming each row along the x axis. */
  x: Field<Row>;
  /** Leave at least this many pixels between x labels (drops the others). */
  xMinGap?: number;
  /** Show every `xEvery + 1`-th x label. */
  xEvery?: number;
  /** Appended to the y axis's values (' s'). */
  yUnit?: string;
  /** Whole numbers only on the y axis (counts). */
  yIntegers?: boolean;
  /** The y axis's fixed range (else from the data). */
  yDomain?: [number, number];
  /** Name the series under the chart. */
  legend?: boolean;
  /** A value as the tooltip shows it (else as it is). */
  tooltipValue?: (value: number) => string;
};

/** One series of bars. */
export type BarSeries<Row> = {
  field: Field<Row>;
  /** The series' name in the tooltip and legend (else the field). */
  name?: string;
  colour: string;
  /** A bar's own colour, over `colour` (a bar to stand out). */
  colourOf?: (row: Row) => string;
  /** Striped as well as coloured (the whole series, or the bars it says): what means
   * "bad" is told apart without colour too (WCAG 1.4.1). */
  hatched?: boolean | ((row: Row) => boolean);
  /** Series with the same stack are drawn on top of each other. */
  stack?: string;
  /** The field holding each bar's spread, drawn as an error bar. */
  spread?: Field<Row>;
  /** A click on a bar picks its row. */
  onPick?: (row: Row) => void;
};

/** A horizontal line across the chart at `y` (a target), labelled. */
export type TargetLine = { y: number; label: string; colour: string };

const MARGIN = { top: 8, right: 16, bottom: 8, left: 0 };
/** Room above the plot for a target line's label. */
const MARGIN_WITH_TARGET = { ...MARGIN, top: 16 };

/** The grid, axes, tooltip and legend, as the chart's first children. */
function frame<Row>(f: ChartFrame<Row>): ReactElement[] {
  const tooltip = f.tooltipValue;
  return [
    <CartesianGrid key="grid" strokeDasharray="3 3" />,
    <XAxis key="x" dataKey={f.x} minTickGap={f.xMinGap} interval={f.xEvery} />,
    <YAxis key="y" unit={f.yUnit} allowDecimals={f.yIntegers ? false : undefined} domain={f.yDomain} />,
    <Tooltip key="tooltip" formatter={tooltip ? (v) => tooltip(Number(v)) : undefined} />,
    ...(f.legend ? [<Legend key="legend" />] : []),
  ];
}

/** White diagonal stripes over `colour`, as a fill (`url(#id)`). */
function Hatch({ id, colour }: { id: string; colour: string }) {
  return (
    <pattern id={id} width={6} height={6} patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width={6} height={6} fill={colour} />
      <line x1={0} y1={0} x2={0} y2={6} stroke="#fff" strokeWidth={3} />
    </pattern>
  );
}

/** Bars: one series, several side by side, or stacked. */
export function BarChart<Row>({ series, target, ...f }: ChartFrame<Row> & { series: BarSeries<Row>[]; target?: TargetLine }) {
  const uid = useId().replace(/[^\w-]/g, '');
  // One stripe pattern per colour a hatched bar may take.
  const colours = [...new Set(series.filter((s) => s.hatched).flatMap((s) => [s.colour, ...(s.colourOf ? f.data.map(s.colourOf) : [])]))];
  const hatchOf = (colour: string) => `url(#${uid}-hatch-${colours.indexOf(colour)})`;
  const fillOf = (s: BarSeries<Row>, row: Row | null) => {
    const colour = row !== null && s.colourOf ? s.colourOf(row) : s.colour;
    const hatched = typeof s.hatched === 'function' ? row !== null && s.hatched(row) : s.hatched === true;
    return hatched ? hatchOf(colour) : colour;
  };
  return (
    <ResponsiveContainer width="100%" height={f.height}>
      <RBarChart data={f.data} margin={target ? MARGIN_WITH_TARGET : MARGIN}>
        {colours.length > 0 ? (
          <defs>
            {colours.map((c, i) => (
              <Hatch key={c} id={`${uid}-hatch-${i}`} colour={c} />
            ))}
          </defs>
        ) : null}
        {frame(f)}
        {series.map((s) => (
          <Bar
            key={s.field}
            dataKey={s.field}
            name={s.name}
            stackId={s.stack}
            fill={fillOf(s, null)}
            isAnimationActive={false}
            onClick={s.onPick ? (_, i) => s.onPick!(f.data[i]!) : undefined}
            cursor={s.onPick ? 'pointer' : undefined}
          >
            {s.colourOf || typeof s.hatched === 'function' ? f.data.map((row, i) => <Cell key={i} fill={fillOf(s, row)} />) : null}
            {s.spread ? <ErrorBar dataKey={s.spread} width={6} stroke={palette.ink} /> : null}
          </Bar>
        ))}
        {target ? <ReferenceLine y={target.y} stroke={target.colour} strokeDasharray="6 3" label={target.label} /> : null}
      </RBarChart>
    </ResponsiveContainer>
  );
}

/** One series of a line chart. */
export type LineSeries<Row> = { field: Field<Row>; name?: string; colour: string };

/** Lines without dots; a missing value is bridged. */
export function LineChart<Row>({ series, ...f }: ChartFrame<Row> & { series: LineSeries<Row>[] }) {
  return (
    <ResponsiveContainer width="100%" height={f.height}>
      <RLineChart data={f.data} margin={MARGIN}>
        {frame(f)}
        {series.map((s) => (
          <Line key={s.field} dataKey={s.field} name={s.name} stroke={s.colour} dot={false} connectNulls isAnimationActive={false} />
        ))}
      </RLineChart>
    </ResponsiveContainer>
  );
}
