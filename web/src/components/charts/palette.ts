/**
 * The portal's one set of chart colours: every chart and every step swatch takes its
 * colours from here, so good is the same green and a step the same colour on every
 * screen. Plain values (no recharts): the cycle lists and the labeling timeline use them
 * without loading the charts.
 */

/** The colours with a meaning. */
export const palette = {
  /** Good cycles; the takt line (the pace to keep). */
  good: '#2e9e5b',
  /** Bad cycles; the bottleneck. */
  bad: '#d64d4d',
  /** A single series: counts, times, scores. */
  primary: '#2f6fdf',
  /** A second kind of figure beside `primary` (step times). */
  secondary: '#d9822b',
  /** Marks drawn over a series (the spread of a bar). */
  ink: '#555',
} as const;

/** One colour per step (or per series of a stacked chart), repeating after the last. */
export const STEP_COLOURS = ['#2f6fdf', '#d9822b', '#2e9e5b', '#a24dd6', '#d64d6b', '#1a9cb0', '#8a8f2b', '#6b6b6b'] as const;

/** The colour of step `step` (0-based). */
export const stepColour = (step: number): string => STEP_COLOURS[step % STEP_COLOURS.length] ?? palette.ink;
