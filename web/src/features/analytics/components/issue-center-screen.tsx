import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Issue, IssueCenter } from '@/api/generated';
import { REASON_MAX } from '@/api/cycles';
import { cyclesKey } from '@/api/device-stream';
import { BarChart } from '@/components/charts/charts';
import { stepColour } from '@/components/charts/palette';
import { Dialog } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { BucketChoice, DayRange } from '@/components/ui/range-fields';
import { DATA_UPDATED } from '@/config/messages';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { type Bucket, type StatsParams, addDays, bucketLabel, dayOf, isoDay, startOfDay } from '../api/cycle-stats';
import { issueText, issuesQuery, reviewIssue } from '../api/issues';
import { CyclesPage } from './cycles-page';
import { DeviceHealth } from './device-health';

/** Issues drawn one by one in the chart; the rest are summed as "Other issues". */
const CHART_ISSUES = 6;

/**
 * `/user/issue-center` (Issue Center): the bad cycles of a range of days (the last 7 by
 * default), of one operation or all, grouped by reason: a missed step, a step out of
 * order, a step not to do, over time, or marked bad by a person. Each issue with its
 * cycles, how many nobody has reviewed, and a chart of them over time; an issue opens
 * its cycles, and those who correct cycles mark its open ones reviewed (with a note
 * kept in their history). Below, the range's device health events (`DeviceHealth`).
 * The choices live in the address.
 */
export default function IssueCenterScreen() {
  const s = useSession();
  const org = s.organization;
  const [params, setParams] = useSearchParams();
  const today = startOfDay(new Date());
  const from = params.get('from') ?? isoDay(addDays(today, -6));
  const to = params.get('to') ?? isoDay(today);
  const bucket = (params.get('bucket') ?? 'day') as Bucket;
  const task = params.get('task') ? Number(params.get('task')) : undefined;
  const [opened, setOpened] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState<Issue | null>(null);
  const set = (k: string, v: string | undefined) => {
    const next = new URLSearchParams(params);
    if (v === undefined || v === '') next.delete(k);
    else next.set(k, v);
    setParams(next, { replace: true });
    setOpened(null);
  };
  const range: StatsParams = { start: dayOf(from), end: addDays(dayOf(to), 1), bucket, task };
  const badRange = !(range.end > range.start);
  const q = useQuery({ ...issuesQuery(org ?? 0, range), enabled: org !== null && !badRange });
  const data = q.data;
  const manage = s.role !== null && can(s.role, 'ManageCycles');

  if (org === null) {
    return (
      <section>
        <h1>Issue Center</h1>
        <EmptyState title="User is not assigned to any organization" />
      </section>
    );
  }
  const tasks = new Map((data?.issues ?? []).map((i) => [i.task, i.task_name ?? `Operation ${i.task}`]));
  if (task !== undefined && !tasks.has(task)) tasks.set(task, `Operation ${task}`);
  return (
    <section>
      <ScreenHeader title="Issue Center" />
      <form className="filters" aria-label="Issue filters" onSubmit={(e) => e.preventDefault()}>
        <DayRange from={from} to={to} onChange={set} />
        <label>
          Operation{' '}
          <select aria-label="Operation" value={task ?? ''} onChange={(e) => set('task', e.target.value)}>
            <option value="">All operations</option>
            {[...tasks].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <BucketChoice value={bucket} onChange={(b) => set('bucket', b === 'day' ? undefined : b)} />
      </form>
      {badRange ? <p role="alert">The end must come after the start.</p> : null}
      <QueryStatus pending={q.isPending && !badRange} error={q.error} what="Issues" />
      {data ? (
        data.issues.length === 0 ? (
          <EmptyState title="No bad cycles in this range." />
        ) : (
          <>
            <dl className="summary" aria-label="Bad cycles">
              <dt>Bad cycles</dt>
              <dd>{data.bad}</dd>
              <dt>Not reviewed</dt>
              <dd>{data.open}</dd>
            </dl>
            <IssuesChart data={data} />
            <table className="data-table" aria-label="Issues">
              <thead>
                <tr>
                  <th scope="col">Issue</th>
                  <th scope="col">Operation</th>
                  <th scope="col">Bad cycles</th>
                  <th scope="col">Not reviewed</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {data.issues.map((i) => {
                  const id = `${i.task}/${i.key}`;
                  const name = `${issueText(i)} (${i.task_name ?? `Operation ${i.task}`})`;
                  return (
                    <tr key={id} className={opened === id ? 'selected' : undefined}>
                      <td>{issueText(i)}</td>
                      <td>{i.task_name ?? `Operation ${i.task}`}</td>
                      <td>{i.cycles}</td>
                      <td>{i.open}</td>
                      <td className="actions">
                        <button type="button" className="secondary" aria-pressed={opened === id} onClick={() => setOpened(opened === id ? null : id)} aria-label={`Cycles of ${name}`}>
                          Cycles
                        </button>{' '}
                        {manage && i.open > 0 ? (
                          <button type="button" className="secondary" onClick={() => setReviewing(i)} aria-label={`Mark reviewed: ${name}`}>
                            Mark reviewed
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {data.issues
              .filter((i) => `${i.task}/${i.key}` === opened)
              .map((i) => (
                <section key={opened} aria-label={`Cycles of ${issueText(i)}`} className="drill-down">
                  <h3>
                    {issueText(i)}: {i.cycles} bad cycles
                  </h3>
                  <CyclesPage
                    org={org}
                    params={{ ...range, task: i.task, cycleFilter: 'bad_cycles', reason: i.key }}
                    label={`Cycles of ${issueText(i)}`}
                    taskSteps={{ [i.task]: stepNames(data.issues, i.task) }}
                    taskName={() => i.task_name ?? `Operation ${i.task}`}
                  />
                </section>
              ))}
          </>
        )
      ) : null}
      {badRange ? null : <DeviceHealth org={org} start={range.start} end={range.end} />}
      {reviewing ? <ReviewDialog issue={reviewing} range={range} onClose={() => setReviewing(null)} /> : null}
    </section>
  );
}

/** The names of a task's steps the issues give (others are shown as "Step n"). */
function stepNames(issues: readonly Issue[], task: number): string[] {
  const names: string[] = [];
  for (const i of issues) if (i.task === task && i.step !== null && i.step_name !== null) names[i.step] = i.step_name;
  return names;
}

/** Bad cycles over time, stacked by issue: the largest drawn one by one, the rest summed. */
function IssuesChart({ data }: { data: IssueCenter }) {
  const shown = data.issues.slice(0, CHART_ISSUES);
  const rest = data.issues.slice(CHART_ISSUES);
  const names = shown.map((i) => `${issueText(i)}${new Set(data.issues.map((x) => x.task)).size > 1 ? ` (${i.task_name ?? i.task})` : ''}`);
  const rows = data.buckets.map((b, k) => {
    const row: Record<string, number | string> = { label: bucketLabel(b, data.bucket) };
    shown.forEach((i, n) => (row[names[n]!] = i.trend[k] ?? 0));
    if (rest.length > 0) row['Other issues'] = rest.reduce((sum, i) => sum + (i.trend[k] ?? 0), 0);
    return row;
  });
  const series = rest.length > 0 ? [...names, 'Other issues'] : names;
  return (
    <figure className="chart wide" aria-label="Bad cycles by issue over time">
      <BarChart
        data={rows}
        height={240}
        x="label"
        yIntegers
        legend
        series={series.map((name, n) => ({ field: name, stack: 'issues', colour: stepColour(n) }))}
      />
    </figure>
  );
}

/** Mark an issue's open cycles of the range reviewed, with an optional note. */
function ReviewDialog({ issue, range, onClose }: { issue: Issue; range: StatsParams; onClose: () => void }) {
  const qc = useQueryClient();
  const [note, setNote] = useState('');
  const m = useMutation({
    mutationFn: () => reviewIssue(issue, range, note.trim()),
    onSuccess: async (r) => {
      notify.successShort(DATA_UPDATED);
      notify.hint(`${r.reviewed} ${r.reviewed === 1 ? 'cycle' : 'cycles'} marked reviewed.`);
      onClose();
      await qc.invalidateQueries({ queryKey: cyclesKey });
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  return (
    <Dialog title={`Mark ${issueText(issue)} reviewed`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!m.isPending) m.mutate();
        }}
        noValidate
      >
        <p>
          {issue.open} bad {issue.open === 1 ? 'cycle' : 'cycles'} of {issue.task_name ?? `Operation ${issue.task}`} in this range, not reviewed yet.
        </p>
        <Field label="Note (optional)" value={note} maxLength={REASON_MAX} onChange={(e) => setNote(e.target.value)} />
        <div className="dialog-actions">
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={m.isPending}>
            Mark reviewed
          </button>
        </div>
      </form>
    </Dialog>
  );
}
