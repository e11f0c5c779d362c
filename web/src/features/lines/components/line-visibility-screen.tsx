import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import type { Line, TracedStation } from '@/api/generated';
import { cycleDetailsQuery } from '@/api/cycles';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { formatDateTime } from '@/lib/format';

import { type TraceBy, lineTraceQuery, linesQuery, stationText } from '../api/lines';

/**
 * `/user/line-visibility?cycleId=&taskId=` (Line Visibility): where a cycle sits in the
 * lines its operation is a station of: each line's stations in order, the cycle's own
 * marked, and at every other station the cycle of the same part as the line's times
 * show it (`trace/line_traceability/`), or, for a cycle whose device read the part's
 * barcode, the cycles with the same barcode ("Trace by", `by=barcode` in the address).
 * Opened from a cycle's "In line".
 */
export default function LineVisibilityScreen() {
  const [params, setParams] = useSearchParams();
  const cycle = params.get('cycleId');
  const task = Number(params.get('taskId')) || null;
  const lines = useQuery(linesQuery());
  const details = useQuery({ ...cycleDetailsQuery(cycle ?? ''), enabled: cycle !== null });
  const barcode = details.data?.metadata.barcode;
  const by: TraceBy = barcode !== undefined && params.get('by') === 'barcode' ? 'barcode' : 'time';
  const mine = (lines.data ?? []).filter((l) => task === null || l.stations.some((s) => s.task === task));
  return (
    <section>
      <ScreenHeader title="Line Visibility" />
      {cycle === null ? (
        <EmptyState title="Choose a cycle: open In line on a cycle of Analytics or the Issue Center." />
      ) : (
        <>
          <QueryStatus pending={lines.isPending} error={lines.error} what="Lines" />
          {lines.data && mine.length === 0 ? <EmptyState title="This cycle's operation is on no line." /> : null}
          {barcode !== undefined && mine.length > 0 ? (
            <label className="field">
              Trace by
              <select
                value={by}
                onChange={(e) => {
                  const next = new URLSearchParams(params);
                  if (e.target.value === 'barcode') next.set('by', 'barcode');
                  else next.delete('by');
                  setParams(next, { replace: true });
                }}
              >
                <option value="time">Time (first in, first out)</option>
                <option value="barcode">Barcode {barcode}</option>
              </select>
            </label>
          ) : null}
          {mine.map((l) => (
            <LineTraceView key={l.id} line={l} cycle={cycle} by={by} />
          ))}
        </>
      )}
    </section>
  );
}

function LineTraceView({ line, cycle, by }: { line: Line; cycle: string; by: TraceBy }) {
  const q = useQuery(lineTraceQuery(line.id, cycle, by));
  return (
    <section aria-label={line.name} className="line-trace">
      <h2>{line.name}</h2>
      <QueryStatus pending={q.isPending} error={q.error} what="The part's way along the line" />
      {q.data ? (
        <ol className="line-stations" aria-label={`Stations of ${line.name}`}>
          {q.data.stations.map((s) => (
            <StationBox key={s.position} s={s} here={s.position === q.data.position} />
          ))}
        </ol>
      ) : null}
    </section>
  );
}

function StationBox({ s, here }: { s: TracedStation; here: boolean }) {
  const c = s.cycle;
  return (
    <li className={here ? 'line-station here' : 'line-station'} aria-current={here ? 'step' : undefined}>
      <strong>
        {s.position + 1}. {stationText(s)}
      </strong>
      {c ? (
        <p>
          {formatDateTime(c.start_ms)}, {((c.end_ms - c.start_ms) / 1000).toFixed(1)} s,{' '}
          <span className={c.good ? 'badge status-online' : 'badge status-bad'}>{c.good ? 'Good' : 'Bad'}</span>
          {here ? <span className="muted"> (this cycle)</span> : null}
        </p>
      ) : (
        <p className="muted">No cycle found for this part.</p>
      )}
    </li>
  );
}
