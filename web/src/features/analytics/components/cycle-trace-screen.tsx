import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';

import { CHANGE_LABEL, cycleDetailsQuery } from '@/api/cycles';
import { stepColour } from '@/components/charts/palette';
import { CycleClipPlayer, segmentAt } from '@/components/cycles/cycle-clip';
import { CycleDialog } from '@/components/cycles/cycle-dialog';
import { StepBar, reasonText } from '@/components/cycles/recent-cycles';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { cycleTracePath, paths } from '@/config/paths';
import { can } from '@/lib/access/roles';
import { formatDateTime, seconds } from '@/lib/format';
import { useSession } from '@/lib/session';


/**
 * `/cycle-trace/{traceId}` (Cycle Trace): one cycle as its station recorded it: its
 * operation, device and times, good or bad with why, its steps on a timeline and as a
 * table (when each began in the cycle and how long it took), the station's previous and
 * next cycles, the changes people made to it; Change and In line as on the cycle lists.
 * Its video clip (recorded by the station's device around the cycle, uploaded after it)
 * plays beside the steps: the step being performed is highlighted on the clip's timeline
 * and in the table as the video plays, and any step can be played from its start.
 */
export default function CycleTraceScreen() {
  const { traceId } = useParams();
  const role = useSession().role;
  const [changing, setChanging] = useState(false);
  const [at, setAt] = useState<number | null>(null);
  const [seekTo, setSeekTo] = useState<{ at: number } | null>(null);
  const q = useQuery({ ...cycleDetailsQuery(traceId ?? ''), enabled: !!traceId });
  if (!traceId) {
    return (
      <section>
        <ScreenHeader title="Cycle Trace" />
        <EmptyState title="Choose a cycle on Trace, Analytics or the Issue Center." />
        <Link to={paths.user.trace}>Open Trace</Link>
      </section>
    );
  }
  const d = q.data;
  const c = d?.cycle;
  return (
    <section>
      <ScreenHeader title="Cycle Trace" />
      <QueryStatus pending={q.isPending} error={q.error} what="The cycle" />
      {d && c ? (
        <>
          <p className="cycle-title">
            <strong>{d.task_name ?? `Operation ${c.task}`}</strong> on {d.device_name ?? (c.device === null ? 'a removed device' : `Device ${c.device}`)},{' '}
            {formatDateTime(c.start_ms)} – {formatDateTime(c.end_ms)} ({seconds(c.end_ms - c.start_ms)}){' '}
            <span className={c.good ? 'badge status-online' : 'badge status-bad'}>{c.good ? 'Good' : 'Bad'}</span>{' '}
            {c.reasons.map((r) => reasonText(r, d.steps)).join('; ')}
            {d.archived_at_ms !== null ? <span className="muted"> (archived {formatDateTime(d.archived_at_ms)})</span> : null}
          </p>
          <nav className="toolbar" aria-label="Cycles of the station">
            {d.previous ? <Link to={cycleTracePath(d.previous)}>← Previous cycle</Link> : <span className="muted">No earlier cycle</span>}
            {d.next ? <Link to={cycleTracePath(d.next)}>Next cycle →</Link> : <span className="muted">No later cycle</span>}
            <Link to={`${paths.user.lineVisibility}?cycleId=${encodeURIComponent(c.id)}&taskId=${c.task}`}>In line</Link>
            {role !== null && can(role, 'ManageCycles') && d.archived_at_ms === null ? (
              <button type="button" className="secondary" onClick={() => setChanging(true)}>
                Change
              </button>
            ) : null}
          </nav>
          {Object.keys(d.metadata ?? {}).length > 0 ? (
            <dl className="cycle-metadata" aria-label="What the station's device read">
              {Object.entries(d.metadata ?? {}).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          ) : null}
          {d.clip ? (
            <CycleClipPlayer key={c.id} cycle={c} steps={d.steps} clip={d.clip} onTime={setAt} seekTo={seekTo} onExpired={() => q.refetch()} />
          ) : (
            <p className="muted">No video clip for this cycle yet: the station's device uploads it after the cycle (unless it keeps no clips).</p>
          )}
          <section aria-label="Steps">
            <h2>Steps</h2>
            <div className="trace-timeline">
              <StepBar cycle={c} steps={d.steps} />
            </div>
            <table className="data-table" aria-label="Step times">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Began at</th>
                  <th scope="col">Took</th>
                  {d.clip ? <th scope="col">Clip</th> : null}
                </tr>
              </thead>
              <tbody>
                {c.segments.map((s, i) => (
                  <tr key={i} className={d.clip && at !== null && i === segmentAt(c, at) ? 'current' : undefined} aria-current={d.clip && at !== null && i === segmentAt(c, at) ? 'step' : undefined}>
                    <td>
                      <span className="step-swatch" style={{ background: stepColour(s.step) }} /> {d.steps[s.step] ?? `Step ${s.step + 1}`}
                    </td>
                    <td>{seconds(s.start_ms - c.start_ms)}</td>
                    <td>{seconds(s.end_ms - s.start_ms)}</td>
                    {d.clip ? (
                      <td>
                        <button type="button" className="secondary small" onClick={() => setSeekTo({ at: s.start_ms })}>
                          Play from here
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
            {c.idle_ms > 0 ? <p className="muted">Idle within the cycle: {seconds(c.idle_ms)}.</p> : null}
          </section>
          <section aria-label="Changes">
            <h2>Changes</h2>
            {d.history.length === 0 ? (
              <p className="muted">No one has changed this cycle.</p>
            ) : (
              <ol className="cycle-history" aria-label="History">
                {d.history.map((h) => (
                  <li key={h.id}>
                    {CHANGE_LABEL[h.change] ?? h.change} {formatDateTime(h.at_ms)} by {h.by ?? 'a removed user'}
                    {h.reason ? `: ${h.reason}` : ''}
                  </li>
                ))}
              </ol>
            )}
          </section>
          {changing ? <CycleDialog cycle={c} onClose={() => setChanging(false)} /> : null}
        </>
      ) : null}
    </section>
  );
}
