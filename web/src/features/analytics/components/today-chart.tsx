/**
 * The Dashboard's chart of today hour by hour: good and bad cycles stacked. Drawn with
 * the screen (`home-screen.tsx`) by the light `StackedBars` (no recharts: issue 33), its
 * frame at its final size before the figures come.
 */
import type { CycleStats } from '@/api/generated';
import { palette } from '@/components/charts/palette';
import { StackedBars } from '@/components/charts/stacked-bars';
import { BREAKPOINTS, below, useMediaQuery } from '@/lib/media-query';

export function TodayChart({ stats, height }: { stats: CycleStats | undefined; height: number }) {
  // A phone's width has room for every sixth hour's label.
  const narrow = useMediaQuery(below(BREAKPOINTS.cards));
  const data = (stats?.trend ?? []).map((p) => ({
    hour: `${String(new Date(p.start_ms).getHours()).padStart(2, '0')}:00`,
    good: p.good,
    bad: p.bad,
  }));
  return (
    <StackedBars
      data={data}
      height={height}
      x="hour"
      xEvery={narrow ? 5 : 2}
      legend
      label="Cycles today by hour"
      series={[
        { field: 'good', name: 'Good', colour: palette.good },
        { field: 'bad', name: 'Bad', colour: palette.bad, hatched: true },
      ]}
    />
  );
}
