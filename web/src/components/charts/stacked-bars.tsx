/**
 * A light stacked bar chart in HTML and CSS, without recharts (issue 33): the
 * Dashboard's chart of today hour by hour draws with the screen, in its chunk, instead
 * of after the 128 KiB gzip charts chunk has come and run (recharts' first render was
 * the Dashboard's longest task). It keeps the frame of `charts.tsx`: dashed grid, whole
 * numbers on the y axis, every `xEvery + 1`-th x label, a legend, hatched series told
 * apart without colour, and a tooltip that follows the pointer or the arrow keys (the
 * plot takes the focus, as recharts' does). It fills its parent's width at `height`
 * pixels without measuring it (the columns are a CSS grid); the screen gives it its
 * figure and accessible name.
 */
import { type CSSProperties, type KeyboardEvent, useState } from 'react';

/** A field of a row holding a value to draw. */
type Field<Row> = Extract<keyof Row, string>;

/** One series of the stack, the first drawn at the bottom. */
export type StackSeries<Row> = {
  field: Field<Row>;
  /** The series' name in the tooltip and legend. */
  name: string;
  colour: string;
  /** Striped as well as coloured: what means "bad" is told apart without colour too
   * (WCAG 1.4.1). */
  hatched?: boolean;
};

/**
 * The y axis's ticks for counts up to `max`: whole numbers from 0, a step of 1, 2 or 5
 * times a power of ten, at most `count` steps, the last at or above `max`.
 */
export function countTicks(max: number, count = 4): number[] {
  const want = Math.max(1, max / count);
  const pow = 10 ** Math.floor(Math.log10(want));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= want) ?? 10 * pow;
  const steps = Math.max(1, Math.ceil(max / step));
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}

const pct = (v: number) => `${v * 100}%`;
const valueOf = (row: unknown, field: string) => {
  const v = Number((row as Record<string, unknown>)[field]);
  return Number.isFinite(v) ? v : 0;
};

export function StackedBars<Row>({
  data,
  height,
  x,
  xEvery = 0,
  series,
  legend,
  label,
}: {
  data: Row[];
  /** Pixels, the plot's (the x labels and the legend come under it). */
  height: number;
  /** The field naming each row along the x axis. */
  x: Field<Row>;
  /** Show every `xEvery + 1`-th x label. */
  xEvery?: number;
  series: StackSeries<Row>[];
  /** Name the series under the chart. */
  legend?: boolean;
  /** The plot's accessible name (it takes the focus). */
  label: string;
}) {
  const [active, setActive] = useState<number | null>(null);
  const totals = data.map((row) => series.reduce((n, s) => n + valueOf(row, s.field), 0));
  const ticks = countTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1] ?? 1;
  const columns: CSSProperties = { gridTemplateColumns: `repeat(${Math.max(1, data.length)}, minmax(0, 1fr))` };
  const shown = active !== null && active < data.length ? active : null;

  const onKey = (e: KeyboardEvent) => {
    const last = data.length - 1;
    const to =
      e.key === 'ArrowRight' ? Math.min(last, (shown ?? -1) + 1)
      : e.key === 'ArrowLeft' ? Math.max(0, (shown ?? 1) - 1)
      : e.key === 'Home' ? 0
      : e.key === 'End' ? last
      : e.key === 'Escape' ? null
      : undefined;
    if (to === undefined || last < 0) return;
    e.preventDefault();
    setActive(to);
  };

  return (
    <div className="bars">
      <div className="bars-y" aria-hidden="true" style={{ height }}>
        {ticks.map((t) => (
          <span key={t} style={{ bottom: pct(t / top) }}>
            {t}
          </span>
        ))}
      </div>
      <div
        className="bars-plot"
        style={{ height }}
        tabIndex={0}
        role="group"
        aria-label={`${label}: the arrow keys go from bar to bar`}
        onPointerLeave={() => setActive(null)}
        onBlur={() => setActive(null)}
        onKeyDown={onKey}
      >
        {ticks.map((t) => (
          <div key={t} className="bars-grid" style={{ bottom: pct(t / top) }} />
        ))}
        <div className="bars-columns" style={columns}>
          {data.map((row, i) => (
            <div key={i} className="bars-column" data-active={i === shown || undefined} onPointerEnter={() => setActive(i)}>
              {series.map((s) => {
                const v = valueOf(row, s.field);
                return v > 0 ? (
                  <span
                    key={s.field}
                    className={s.hatched ? 'bars-bar hatched' : 'bars-bar'}
                    data-series={s.field}
                    style={{ height: pct(v / top), '--bar': s.colour } as CSSProperties}
                  />
                ) : null;
              })}
            </div>
          ))}
        </div>
        {shown !== null ? (
          // Beside its bar, on the side with more room, so it never leaves the screen.
          <div
            className="bars-tooltip"
            role="status"
            style={shown < data.length / 2 ? { left: pct((shown + 1) / data.length) } : { right: pct(1 - shown / data.length) }}
          >
            <p>{String(data[shown]?.[x] ?? '')}</p>
            <ul>
              {series.map((s) => (
                <li key={s.field}>
                  <Swatch series={s} />
                  {s.name} : {valueOf(data[shown], s.field)}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div className="bars-x" aria-hidden="true" style={columns}>
        {data.map((row, i) => (
          <span key={i}>{i % (xEvery + 1) === 0 ? String(row[x]) : ''}</span>
        ))}
      </div>
      {legend ? (
        <ul className="bars-legend">
          {series.map((s) => (
            <li key={s.field}>
              <Swatch series={s} />
              {s.name}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A series' colour (and stripes) beside its name. */
function Swatch<Row>({ series }: { series: StackSeries<Row> }) {
  return <span className={series.hatched ? 'bars-swatch hatched' : 'bars-swatch'} style={{ '--bar': series.colour } as CSSProperties} aria-hidden="true" />;
}
