/**
 * The fields the cycle screens share in their filter forms: a range of local days, the
 * trend's buckets, and the spec's cycle filter (section 9).
 */

/** From and To, local days (`YYYY-MM-DD`); `onChange('from' | 'to', day)`. */
export function DayRange({ from, to, onChange }: { from: string; to: string; onChange: (field: 'from' | 'to', day: string) => void }) {
  return (
    <>
      <label>
        From <input type="date" aria-label="From" value={from} max={to} onChange={(e) => onChange('from', e.target.value)} />
      </label>
      <label>
        To <input type="date" aria-label="To" value={to} min={from} onChange={(e) => onChange('to', e.target.value)} />
      </label>
    </>
  );
}

/** The trend's buckets: hour, day, week or month. */
export function BucketChoice({ value, onChange }: { value: string; onChange: (bucket: string) => void }) {
  return (
    <label>
      By{' '}
      <select aria-label="By" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="hour">Hour</option>
        <option value="day">Day</option>
        <option value="week">Week</option>
        <option value="month">Month</option>
      </select>
    </label>
  );
}

/** The spec's cycle filter: all, good or bad cycles. */
export function CycleFilterChoice({ value, onChange }: { value: string; onChange: (filter: string) => void }) {
  return (
    <label>
      Cycles{' '}
      <select aria-label="Cycles" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="all_cycles">All Cycles</option>
        <option value="good_cycles">Good Cycles</option>
        <option value="bad_cycles">Bad Cycles</option>
      </select>
    </label>
  );
}
