import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import type { RecentCycle } from '@/api/generated';
import { CycleDialog } from '@/components/cycles/cycle-dialog';
import { RecentCycles } from '@/components/cycles/recent-cycles';
import { Pager } from '@/components/ui/pager';
import { QueryStatus } from '@/components/ui/query-status';
import { cycleTracePath, paths } from '@/config/paths';
import { can } from '@/lib/access/roles';
import { formatDateTime, seconds } from '@/lib/format';
import { useSession } from '@/lib/session';

import { type StatsParams, cyclesPageQuery } from '../api/cycle-stats';

/**
 * The cycles `params` names, a page at a time (`telemetry/fetch_cycles/v2`), each with
 * its steps and verdict, its **Trace** and where it sits in its lines (**In line**); those who
 * may correct cycles (`ManageCycles`) open one (**Change**) to mark it or archive it.
 * `clips`: read through `telemetry/trace/v2`, each cycle with a video clip also says so
 * (**Play clip**, its length).
 */
export function CyclesPage({
  org,
  params,
  label,
  taskSteps,
  taskName,
  clips = false,
}: {
  org: number;
  params: StatsParams;
  /** The table's name. */
  label: string;
  taskSteps: { [task: number]: string[] | undefined };
  taskName: (id: number | null) => string;
  clips?: boolean;
}) {
  const [page, setPage] = useState(1);
  const role = useSession().role;
  const [open, setOpen] = useState<RecentCycle | null>(null);
  const q = useQuery(cyclesPageQuery(org, params, page, clips));
  const data = q.data && { count: q.data.count, results: q.data.results.map((t) => t.cycle) };
  const clipOf = new Map((q.data?.results ?? []).map((t) => [t.cycle.id, t.clip]));
  return (
    <>
      <QueryStatus pending={q.isPending} error={q.error} what="Cycles" />
      {data ? (
        <>
          <RecentCycles
            label={label}
            cycles={data.results}
            taskSteps={taskSteps}
            taskName={taskName}
            action={(c) => (
              <>
                {role !== null && can(role, 'ManageCycles') ? (
                  <button type="button" className="secondary" onClick={() => setOpen(c)} aria-label={`Change the cycle ended ${formatDateTime(c.end_ms)}`}>
                    Change
                  </button>
                ) : null}{' '}
                <Link to={cycleTracePath(c.id)} aria-label={`Trace of the cycle ended ${formatDateTime(c.end_ms)}`}>
                  Trace
                </Link>{' '}
                {clipOf.get(c.id) ? (
                  <>
                    <Link to={cycleTracePath(c.id)} aria-label={`Play clip (${seconds(clipOf.get(c.id)?.duration_ms)}) of the cycle ended ${formatDateTime(c.end_ms)}`}>
                      <span aria-hidden="true">▶ </span>Play clip ({seconds(clipOf.get(c.id)?.duration_ms)})
                    </Link>{' '}
                  </>
                ) : null}
                <Link to={`${paths.user.lineVisibility}?cycleId=${encodeURIComponent(c.id)}&taskId=${c.task}`} aria-label={`In line: the cycle ended ${formatDateTime(c.end_ms)}`}>
                  In line
                </Link>
              </>
            )}
          />
          <Pager page={page} count={data.count} onPage={setPage} label={label} />
        </>
      ) : null}
      {open ? <CycleDialog cycle={open} onClose={() => setOpen(null)} /> : null}
    </>
  );
}
