/**
 * The Dashboard's chart of today hour by hour: good and bad cycles stacked. Its own
 * chunk (with recharts), loaded after the screen is drawn (`home-screen.tsx`).
 */
import type { CycleStats } from '@/api/generated';
import { BarChart } from '@/components/charts/charts';
import { palette } from '@/components/charts/palette';
import { BREAKPOINTS, below, useMediaQuery } from '@/lib/media-query';

export default function TodayChart({ stats, height }: { stats: CycleStats | undefined; height: number }) {
  // A phone's width has room for every sixth hour's label.
  const narrow = useMediaQuery(below(BREAKPOINTS.cards));
  const data = (stats?.trend ?? []).map((p) => ({
    hour: `${String(new Date(p.start_ms).getHours()).padStart(2, '0')}:00`,
    good: p.good,
    bad: p.bad,
  }));
  return (
    <BarChart
      data={data}
      height={height}
      x="hour"
      xEvery={narrow ? 5 : 2}
      yIntegers
      legend
      series={[
        { field: 'good', name: 'Good', stack: 'c', colour: palette.good },
        { field: 'bad', name: 'Bad', stack: 'c', colour: palette.bad, hatched: true },
      ]}
    />
  );
}
