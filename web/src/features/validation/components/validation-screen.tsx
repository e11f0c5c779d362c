import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';

import type { ModelVersion, Segment, ValidationGroup, ValidationReport } from '@/api/generated';
import { tasksQuery } from '@/api/tasks';
import { NO_FILTER, videoListQuery } from '@/api/videos';
import { OperationSelect } from '@/components/media/operation-picker';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { ScreenHeader } from '@/components/ui/screen-header';
import { can } from '@/lib/access/roles';
import { api } from '@/lib/api-client';
import { formErrors } from '@/lib/api-errors';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { checkChosen } from '@/lib/validate';

import {
  addVideos,
  checkRecord,
  createGroup,
  deleteGroup,
  groupsQuery,
  groupVideosQuery,
  runQuery,
  recordsFromTrace,
  runVideosQuery,
  startRun,
  validationKey,
} from '../api/validation';
import { compareRows, pct, secs } from '../compare';
import { parseCycleIds } from '../records';

/**
 * `/user/validation` (Validation; docs/decisions.md "Validation groups, videos and
 * runs"): groups of an operation's labelled videos, a model version run over a group
 * through the agent's own evaluation, a run's report over the group, per step and per
 * video, and two runs side by side.
 */
export default function ValidationScreen() {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageTasks');
  const groups = useQuery(groupsQuery());
  const [open, setOpen] = useState<number | null>(null);
  const group = groups.data?.find((g) => g.id === open) ?? null;
  return (
    <section>
      <ScreenHeader title="Validation" />
      {manage ? <NewGroupForm onMade={setOpen} /> : null}
      <DataTable
        label="Validation groups"
        query={groups}
        empty={<EmptyState title="No validation groups yet.">Make one of an operation's labelled videos.</EmptyState>}
        columns={['Group', 'Operation', 'Videos', 'Runs', 'Actions']}
        row={(g) => (
          <tr key={g.id}>
            <td>{g.name}</td>
            <td>{g.task_name}</td>
            <td>
              {g.videos} ({g.checked_videos} checked)
            </td>
            <td>{g.runs.length}</td>
            <td>
              <button type="button" className="secondary" onClick={() => setOpen(g.id)}>
                Open
              </button>
            </td>
          </tr>
        )}
      />
      {group ? <GroupPanel key={group.id} group={group} manage={manage} onDeleted={() => setOpen(null)} /> : null}
    </section>
  );
}

function NewGroupForm({ onMade }: { onMade: (id: number) => void }) {
  const qc = useQueryClient();
  const tasks = useQuery(tasksQuery());
  const [name, setName] = useState('');
  const [task, setTask] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const m = useMutation({
    mutationFn: () => createGroup({ name, task: Number(task) }),
    onSuccess: async (g) => {
      setErrors({});
      setName('');
      notify.successShort('Data created successfully!');
      await qc.invalidateQueries({ queryKey: validationKey });
      onMade(g.id);
    },
    onError: (err) => setErrors(formErrors(err)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (m.isPending) return;
    const next: Record<string, string> = {};
    if (!name.trim()) next.name = 'Give it a name.';
    const noTask = checkChosen(task, 'Operation');
    if (noTask) next.task = noTask;
    setErrors(next);
    if (Object.keys(next).length === 0) m.mutate();
  };
  return (
    <form aria-label="New validation group" onSubmit={submit} className="upload-panel" noValidate>
      <h2>New validation group</h2>
      <Field label="Name" value={name} error={errors.name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      <OperationSelect tasks={tasks.data} value={task} error={errors.task} disabled={m.isPending} onChange={setTask} />
      <FormError message={errors.non_field_errors} />
      <button type="submit" disabled={m.isPending}>
        Create group
      </button>
    </form>
  );
}

function GroupPanel({ group, manage, onDeleted }: { group: ValidationGroup; manage: boolean; onDeleted: () => void }) {
  const qc = useQueryClient();
  const videos = useQuery(groupVideosQuery(group.id));
  const [confirm, setConfirm] = useState(false);
  const [shown, setShown] = useState<number | null>(null);
  const [compared, setCompared] = useState<number[]>([]);
  const del = useMutation({
    mutationFn: () => deleteGroup(group.id),
    onSuccess: async (r) => {
      notify.successShort(r.msg);
      setConfirm(false);
      onDeleted();
      await qc.invalidateQueries({ queryKey: validationKey });
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  const check = useMutation({
    mutationFn: ({ id, segments }: { id: number; segments: Segment[] }) => checkRecord(id, segments),
    onSuccess: async () => {
      notify.successShort('Data updated successfully!');
      await qc.invalidateQueries({ queryKey: validationKey });
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const toggle = (id: number) =>
    setCompared((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id].slice(-2)));
  return (
    <section aria-label={`Group ${group.name}`} className="panel">
      <h2>
        {group.name} <small>({group.task_name})</small>
      </h2>
      {manage ? (
        <button type="button" className="danger" onClick={() => setConfirm(true)}>
          Delete group
        </button>
      ) : null}
      <h3>Videos</h3>
      <DataTable
        label="Group videos"
        query={videos}
        empty={<EmptyState title="No videos in this group yet." />}
        columns={['Video', 'Length', 'Labels', manage && 'Actions']}
        row={(v) => (
          <tr key={v.id}>
            <td>{v.name}</td>
            <td>{(v.duration_ms / 1000).toFixed(1)} s</td>
            <td>{v.reviewed ? `${v.segments.length} steps, checked` : `${v.segments.length} steps, to check`}</td>
            {manage ? (
              <td>
                {v.reviewed ? null : (
                  <button type="button" className="secondary" onClick={() => check.mutate({ id: v.id, segments: v.segments })}>
                    Mark {v.name} checked
                  </button>
                )}
              </td>
            ) : null}
          </tr>
        )}
      />
      {manage ? <AddVideosForm group={group} /> : null}
      {manage ? <FromTraceForm group={group} /> : null}
      <h3>Runs</h3>
      {manage ? <StartRunForm group={group} onStarted={setShown} /> : null}
      {group.runs.length === 0 ? (
        <EmptyState title="No runs yet." />
      ) : (
        <table className="data-table" aria-label="Runs">
          <thead>
            <tr>
              <th scope="col">Model version</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Compare</th>
              <th scope="col">Report</th>
            </tr>
          </thead>
          <tbody>
            {group.runs.map((r) => (
              <tr key={r.id}>
                <td>{r.model_version_name}</td>
                <td>
                  <RunStatus id={r.id} listed={r.status} />
                </td>
                <td>{new Date(r.created_at).toLocaleString()}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Compare run ${r.id}`}
                    checked={compared.includes(r.id)}
                    onChange={() => toggle(r.id)}
                  />
                </td>
                <td>
                  <button type="button" className="secondary" onClick={() => setShown(r.id)}>
                    Report
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown !== null ? <RunReport id={shown} /> : null}
      {compared.length === 2 ? <Compare a={compared[0] ?? 0} b={compared[1] ?? 0} /> : null}
      {confirm ? (
        <ConfirmDialog
          title="Delete this group?"
          confirmLabel="Delete"
          busy={del.isPending}
          onConfirm={() => del.mutate()}
          onCancel={() => setConfirm(false)}
        >
          Its runs go with it; its videos stay, in no group.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** The operation's labelled videos, chosen to be copied into the group. */
function AddVideosForm({ group }: { group: ValidationGroup }) {
  const qc = useQueryClient();
  const list = useQuery(videoListQuery(group.task, 1, NO_FILTER));
  const labelled = (list.data?.results ?? []).filter((v) => v.status === 'ready' && v.labels !== 'none');
  const [chosen, setChosen] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: () => addVideos({ group_id: group.id, videos: chosen }),
    onSuccess: async (r) => {
      setChosen([]);
      setError(null);
      notify.successShort(r.msg);
      await qc.invalidateQueries({ queryKey: validationKey });
    },
    onError: (err) => setError(Object.values(formErrors(err))[0] ?? null),
  });
  if (labelled.length === 0) return <p>Label videos of {group.task_name} to add them here.</p>;
  return (
    <form
      aria-label="Add videos"
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen.length > 0 && !m.isPending) m.mutate();
      }}
    >
      <fieldset>
        <legend>Add labelled videos</legend>
        {labelled.map((v) => (
          <label key={v.id}>
            <input
              type="checkbox"
              checked={chosen.includes(v.id)}
              onChange={() => setChosen((c) => (c.includes(v.id) ? c.filter((x) => x !== v.id) : [...c, v.id]))}
            />
            {v.file_name}
          </label>
        ))}
      </fieldset>
      <FormError message={error} />
      <button type="submit" disabled={chosen.length === 0 || m.isPending}>
        Add to group
      </button>
    </form>
  );
}

/** Cycles (their ids, from Trace) whose clips become records of the group, to check. */
function FromTraceForm({ group }: { group: ValidationGroup }) {
  const qc = useQueryClient();
  const [ids, setIds] = useState('');
  const [error, setError] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: (cycles: string[]) => recordsFromTrace({ group_id: group.id, cycles }),
    onSuccess: async (made) => {
      setIds('');
      setError(null);
      notify.successShort(`${made.length} record${made.length === 1 ? '' : 's'} added: check their labels.`);
      await qc.invalidateQueries({ queryKey: validationKey });
    },
    onError: (err) => setError(Object.values(formErrors(err))[0] ?? null),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const cycles = parseCycleIds(ids);
    if (cycles.length === 0) setError('Give the ids of cycles with a clip (Trace lists them).');
    else if (!m.isPending) m.mutate(cycles);
  };
  return (
    <form aria-label="Records from traces" onSubmit={submit} noValidate>
      <Field label="Cycle ids" value={ids} onChange={(e) => setIds(e.target.value)} />
      <FormError message={error} />
      <button type="submit" disabled={m.isPending}>
        Add records
      </button>
    </form>
  );
}

function StartRunForm({ group, onStarted }: { group: ValidationGroup; onStarted: (id: number) => void }) {
  const qc = useQueryClient();
  const models = useQuery({
    queryKey: [...validationKey, 'models', group.task],
    queryFn: () => api.get<ModelVersion[]>('organization/model_version', { query: { task: group.task } }),
  });
  const usable = (models.data ?? []).filter((m) => !m.is_deleted);
  const [model, setModel] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const m = useMutation({
    mutationFn: () => startRun({ group_id: group.id, model_version: Number(model) }),
    onSuccess: async (r) => {
      setErrors({});
      onStarted(r.id);
      await qc.invalidateQueries({ queryKey: validationKey });
    },
    onError: (err) => setErrors(formErrors(err)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (m.isPending) return;
    const none = checkChosen(model, 'Model version');
    setErrors(none ? { model_version: none } : {});
    if (!none) m.mutate();
  };
  return (
    <form aria-label="Start a run" onSubmit={submit} noValidate>
      <SelectField label="Model version" value={model} error={errors.model_version} onChange={(e) => setModel(e.target.value)}>
        <option value="">{models.data && usable.length === 0 ? 'No model versions yet' : 'Choose a model version…'}</option>
        {usable.map((v) => (
          <option key={v.id} value={v.id}>
            {v.version}
          </option>
        ))}
      </SelectField>
      <FormError message={errors.group_id ?? errors.non_field_errors} />
      <button type="submit" disabled={m.isPending}>
        Start run
      </button>
    </form>
  );
}

/** A run's status as it moves on (its own query asks again while it runs). */
function RunStatus({ id, listed }: { id: number; listed: string }) {
  const run = useQuery(runQuery(id));
  return <>{run.data?.status ?? listed}</>;
}

function Figures({ r }: { r: ValidationReport }) {
  return (
    <dl className="figures">
      <dt>Frame accuracy</dt>
      <dd>{pct(r.frame_accuracy)}</dd>
      <dt>Cycles found</dt>
      <dd>
        {r.matched} of {r.true_cycles}
      </dd>
      <dt>Cycle-time error</dt>
      <dd>{secs(r.cycle_time_error_s)}</dd>
      <dt>Verdict agreement</dt>
      <dd>{pct(r.verdict_agreement)}</dd>
    </dl>
  );
}

function RunReport({ id }: { id: number }) {
  const run = useQuery(runQuery(id));
  const videos = useQuery(runVideosQuery(id, run.data?.status));
  const r = run.data;
  return (
    <section aria-label="Run report" className="panel">
      <QueryStatus pending={run.isPending} error={run.error} what="The run" />
      {r ? (
        <>
          <h3>
            {r.model_version_name} on {r.group_name}: {r.status}
          </h3>
          {r.status === 'queued' || r.status === 'running' ? (
            <p>
              Evaluated {r.done} of {r.of} videos…
            </p>
          ) : null}
          {r.error ? <p role="alert">{r.error}</p> : null}
          {r.report ? (
            <>
              <Figures r={r.report} />
              <table className="data-table" aria-label="Per step">
                <thead>
                  <tr>
                    <th scope="col">Step</th>
                    <th scope="col">Precision</th>
                    <th scope="col">Recall</th>
                    <th scope="col">F1</th>
                  </tr>
                </thead>
                <tbody>
                  {r.report.per_label.map((l) => (
                    <tr key={l.label}>
                      <td>{l.label}</td>
                      <td>{pct(l.precision)}</td>
                      <td>{pct(l.recall)}</td>
                      <td>{pct(l.f1)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
          <DataTable
            label="Per video"
            query={videos}
            empty={null}
            columns={['Video', 'Frame accuracy', 'Cycles found', 'Cycle-time error', 'Verdict agreement']}
            row={(v) => (
              <tr key={v.id}>
                <td>{v.name}</td>
                {v.report ? (
                  <>
                    <td>{pct(v.report.frame_accuracy)}</td>
                    <td>
                      {v.report.matched} of {v.report.true_cycles}
                    </td>
                    <td>{secs(v.report.cycle_time_error_s)}</td>
                    <td>{pct(v.report.verdict_agreement)}</td>
                  </>
                ) : (
                  <td colSpan={4}>{v.error ?? 'Waiting…'}</td>
                )}
              </tr>
            )}
          />
        </>
      ) : null}
    </section>
  );
}

function Compare({ a, b }: { a: number; b: number }) {
  const ra = useQuery(runQuery(a));
  const rb = useQuery(runQuery(b));
  if (!ra.data?.report || !rb.data?.report) return <p>Both runs need a report to compare.</p>;
  const rows = compareRows(ra.data.report, rb.data.report);
  return (
    <table className="data-table" aria-label="Runs side by side">
      <thead>
        <tr>
          <th scope="col">Figure</th>
          <th scope="col">{ra.data.model_version_name}</th>
          <th scope="col">{rb.data.model_version_name}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.figure}>
            <td>{row.figure}</td>
            <td className={row.better === 'a' ? 'better' : undefined}>{row.a}</td>
            <td className={row.better === 'b' ? 'better' : undefined}>{row.b}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
