import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { ScreenHeader } from '@/components/ui/screen-header';
import { CycleFilterChoice, DayRange } from '@/components/ui/range-fields';
import { useSession } from '@/lib/session';

import { type StatsParams, addDays, dayOf, isoDay, operationsQuery, startOfDay } from '../api/cycle-stats';
import { CyclesPage } from './cycles-page';

type Filter = NonNullable<StatsParams['cycleFilter']>;

/**
 * `/user/trace` (Trace): the organisation's cycles of a range of days (the last 7 by
 * default), all, good or bad ones, newest first, those with a video clip marked; each
 * opens on Cycle Trace. The choices live in the address.
 */
export default function TraceScreen() {
  const org = useSession().organization;
  const [params, setParams] = useSearchParams();
  const today = startOfDay(new Date());
  const from = params.get('from') ?? isoDay(addDays(today, -6));
  const to = params.get('to') ?? isoDay(today);
  const filter = (params.get('filter') ?? 'all_cycles') as Filter;
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v === '' || v === 'all_cycles') next.delete(k);
    else next.set(k, v);
    setParams(next, { replace: true });
  };
  const ops = useQuery(operationsQuery());
  const names = new Map((ops.data ?? []).map((t) => [t.id, t.taskName]));
  const taskSteps = Object.fromEntries((ops.data ?? []).map((t) => [t.id, t.steps]));
  const range: StatsParams = { start: dayOf(from), end: addDays(dayOf(to), 1), bucket: 'day', cycleFilter: filter };
  return (
    <section>
      <ScreenHeader title="Trace" />
      <form className="filters" aria-label="Trace filters" onSubmit={(e) => e.preventDefault()}>
        <DayRange from={from} to={to} onChange={set} />
        <CycleFilterChoice value={filter} onChange={(f) => set('filter', f)} />
      </form>
      {org !== null && range.end > range.start ? (
        <CyclesPage key={`${from}/${to}/${filter}`} org={org} params={range} label="Cycles" clips taskSteps={taskSteps} taskName={(id) => (id === null ? '—' : (names.get(id) ?? `Operation ${id}`))} />
      ) : null}
    </section>
  );
}
