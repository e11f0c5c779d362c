/**
 * Analytics' choices: the days, the operation and device, which cycles, the period to
 * compare with and the bucket. Each change goes to the address through `onChange`.
 */
import type { CycleStats } from '@/api/generated';
import { BucketChoice, CycleFilterChoice, DayRange } from '@/components/ui/range-fields';

import type { Bucket, StatsParams } from '../api/cycle-stats';

export type Filter = NonNullable<StatsParams['cycleFilter']>;

/** The filters form; `stats` names the operations and devices to choose from. */
export function AnalyticsFilters({
  from,
  to,
  task,
  device,
  filter,
  compare,
  bucket,
  stats,
  onChange: set,
}: {
  from: string;
  to: string;
  task: number | undefined;
  device: number | undefined;
  filter: Filter;
  compare: boolean;
  bucket: Bucket;
  stats: CycleStats | undefined;
  onChange: (k: string, v: string | undefined) => void;
}) {
  return (
    <form className="filters" aria-label="Analytics filters" onSubmit={(e) => e.preventDefault()}>
      <DayRange from={from} to={to} onChange={set} />
      <IdChoice label="Operation" all="All operations" value={task} options={options(stats, 'task')} onChange={(v) => set('task', v)} />
      <IdChoice label="Device" all="All devices" value={device} options={options(stats, 'device')} onChange={(v) => set('device', v)} />
      <CycleFilterChoice value={filter} onChange={(f) => set('filter', f === 'all_cycles' ? undefined : f)} />
      <label>
        Compare with{' '}
        <select aria-label="Compare with" value={compare ? 'previous' : ''} onChange={(e) => set('compare', e.target.value)}>
          <option value="">Nothing</option>
          <option value="previous">The period before</option>
        </select>
      </label>
      <BucketChoice value={bucket} onChange={(b) => set('bucket', b === 'day' ? undefined : b)} />
    </form>
  );
}

/** One of some ids by name, or all of them (''). */
function IdChoice({
  label,
  all,
  value,
  options,
  onChange,
}: {
  label: string;
  all: string;
  value: number | undefined;
  options: [number, string][];
  onChange: (v: string) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">{all}</option>
        {options.map(([id, name]) => (
          <option key={id} value={id}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The operations or devices with cycles in the range, by name. */
function options(stats: CycleStats | undefined, what: 'task' | 'device'): [number, string][] {
  const m = new Map<number, string>();
  for (const st of stats?.stations ?? []) {
    if (what === 'task') m.set(st.task, st.task_name ?? `Operation ${st.task}`);
    else if (st.device !== null) m.set(st.device, st.device_name ?? `Device ${st.device}`);
  }
  return [...m].sort((a, b) => a[1].localeCompare(b[1]));
}
