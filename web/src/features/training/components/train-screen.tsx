import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';

import type { Metrics, ModelVersion, TrainedTask } from '@/api/generated';
import { trainingKey } from '@/api/training';
import { BarChart } from '@/components/charts/charts';
import { palette } from '@/components/charts/palette';
import { OperationPicker, useTaskParam } from '@/components/media/operation-picker';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { DEFAULT_EPOCHS, MAX_EPOCHS } from '@/config/constants';
import { paths } from '@/config/paths';
import { fieldErrors, errorMessage } from '@/lib/api-errors';
import { can } from '@/lib/access/roles';
import { exactSeconds, TRAIN_STATUS_LABEL } from '@/lib/format';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { wholeNumber } from '@/lib/validate';

import { annotationsCheckQuery, isActive, startTraining, stopTraining, trainedTaskQuery } from '../api/trained-task';

const pct = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`;

/**
 * `/user/train` (Train Model): choose an operation, start training its step model on
 * the labelled videos, follow the run (progress, what it is doing, stop), and read the
 * model it made: frame accuracy, cycle-time error, F1 per step (chart) and the
 * confusion matrix on the held-out footage.
 */
export default function TrainScreen() {
  const [task] = useTaskParam();
  return (
    <section>
      <OperationPicker title="Train Model" />
      {task !== null ? <Training key={task} task={task} /> : null}
    </section>
  );
}

function Training({ task }: { task: number }) {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageTasks');
  const q = useQuery(trainedTaskQuery(task));
  const t = q.data;
  if (!t) return <QueryStatus pending={q.isPending} error={q.error} what="Training" />;
  return (
        <>
          <div className="train-status">
            <span>
              Status: <strong>{TRAIN_STATUS_LABEL[t.train_status]}</strong>
            </span>
            <span className="muted">
              {t.labelled_videos} of {t.ready_videos} video{t.ready_videos === 1 ? '' : 's'} labelled
            </span>
          </div>
          {t.labelled_videos === 0 ? (
            <EmptyState title="No labelled video yet.">
              <p>
                Label the steps of at least one video in{' '}
                <Link to={`${paths.user.labelData}?task=${task}`}>Label Training Set</Link> first.
              </p>
            </EmptyState>
          ) : (
            <>
              <LabelsCheck task={task} model={t.model_version?.id ?? null} />
              {manage && !isActive(t) ? <StartForm task={task} /> : null}
            </>
          )}
          {t.run ? <RunView t={t} manage={manage} /> : null}
          {t.model_version ? <ModelView model={t.model_version} /> : null}
        </>
  );
}

/** What training would learn from: each step's labelled time, and what stands in the way
 * of a good model (a step never labelled, guesses waiting for review). */
function LabelsCheck({ task, model }: { task: number; model: number | null }) {
  const q = useQuery(annotationsCheckQuery(task, model));
  const c = q.data;
  if (!c) return <QueryStatus pending={q.isPending} error={q.error} what="Labels check" />;
  return (
    <section aria-label="Labels check">
      <p className="muted">Labelled time per step: {c.steps.map((name, i) => `${name} ${exactSeconds(c.step_ms[i] ?? 0)}`).join(' · ')}</p>
      {c.problems.length > 0 ? (
        <ul className="labels-problems">
          {c.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function StartForm({ task }: { task: number }) {
  const qc = useQueryClient();
  const [epochs, setEpochs] = useState(String(DEFAULT_EPOCHS));
  const [error, setError] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: (n: number) => startTraining(task, n),
    onSuccess: (t) => {
      qc.setQueryData(trainedTaskQuery(task).queryKey, t);
      notify.successShort('Training started.');
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setError(f.epochs ?? f.train_status ?? f.non_field_errors ?? errorMessage(err, 'post'));
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const n = wholeNumber(epochs, 1, MAX_EPOCHS);
    if (n === null) {
      setError(`Ensure this value is between 1 and ${MAX_EPOCHS}.`);
      return;
    }
    setError(null);
    start.mutate(n);
  };
  return (
    <form className="train-form" onSubmit={submit} noValidate>
      <Field label="Epochs" type="number" min={1} max={MAX_EPOCHS} value={epochs} onChange={(e) => setEpochs(e.target.value)} />
      <FormError message={error} />
      <button type="submit" disabled={start.isPending}>
        {start.isPending ? 'Starting…' : 'Start training'}
      </button>
      <button type="button" className="secondary" onClick={() => void qc.invalidateQueries({ queryKey: trainingKey })}>
        Refresh
      </button>
    </form>
  );
}

function RunView({ t, manage }: { t: TrainedTask; manage: boolean }) {
  const run = t.run!;
  const qc = useQueryClient();
  const [asking, setAsking] = useState(false);
  const stop = useMutation({
    mutationFn: () => stopTraining(t.id),
    onSuccess: async () => {
      setAsking(false);
      notify.successShort('Training stopped.');
      await qc.invalidateQueries({ queryKey: trainingKey });
    },
    onError: (err) => {
      setAsking(false);
      notify.failure(err, 'post');
    },
  });
  const active = isActive(t);
  return (
    <div className="train-run" aria-label="Training run">
      <h2>
        Training run {run.id}: {run.status}
      </h2>
      {active ? (
        <div className="upload-progress">
          <progress aria-label="Training progress" max={100} value={Math.round(run.progress * 100)} />
          <span>
            {Math.round(run.progress * 100)}% · {run.message}
          </span>
          {manage ? (
            <button type="button" className="danger" onClick={() => setAsking(true)}>
              Stop training
            </button>
          ) : null}
        </div>
      ) : run.status === 'failed' ? (
        <p role="alert" className="form-error">
          Training failed: {run.message}
        </p>
      ) : run.status === 'stopped' ? (
        <p className="muted">Stopped; the labels are kept and training can start again.</p>
      ) : null}
      <p className="muted">
        {run.train_videos.length} video{run.train_videos.length === 1 ? '' : 's'} trained on;{' '}
        {run.holdout_videos.length > 0
          ? `${run.holdout_videos.length} held out`
          : 'the last fifth of the video held out'}
        .
      </p>
      {asking ? (
        <ConfirmDialog
          title="Stop training?"
          confirmLabel="Stop training"
          busy={stop.isPending}
          onConfirm={() => stop.mutate()}
          onCancel={() => setAsking(false)}
        >
          The run ends now and makes no model; the labels are kept.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

function ModelView({ model }: { model: ModelVersion }) {
  const m = model.metrics;
  return (
    <div className="model-card" aria-label={`Model ${model.version}`}>
      <h2>Model {model.version}</h2>
      <p className="muted">
        Made {new Date(model.created_at).toLocaleString()} · {(model.size_bytes / 1024).toFixed(0)} KiB · SHA-256{' '}
        <code>{model.sha256.slice(0, 12)}…</code>
      </p>
      {m ? <MetricsView m={m} /> : <p className="muted">No held-out metrics for this model.</p>}
    </div>
  );
}

function MetricsView({ m }: { m: Metrics }) {
  const f1 = m.per_label.map((l) => ({ label: l.label, f1: Math.round(l.f1 * 1000) / 10 }));
  return (
    <>
      <dl className="metrics" aria-label="Held-out metrics">
        <dt>Frame accuracy</dt>
        <dd>{pct(m.frame_accuracy)}</dd>
        <dt>Cycle-time error</dt>
        <dd>
          {pct(m.cycle_time_error_share, 2)} ({m.cycle_time_error_s.toFixed(2)} s)
        </dd>
        <dt>Cycles (reference / found / matched)</dt>
        <dd>
          {m.true_cycles} / {m.found_cycles} / {m.matched_cycles}
        </dd>
        <dt>Held-out frames</dt>
        <dd>{m.frames}</dd>
      </dl>
      <h3>F1 per step (%)</h3>
      <div role="img" aria-label={`F1 per step: ${f1.map((x) => `${x.label} ${x.f1}%`).join(', ')}`} className="chart">
        <BarChart data={f1} height={220} x="label" yDomain={[0, 100]} series={[{ field: 'f1', name: 'F1 %', colour: palette.primary }]} />
      </div>
      <h3>Confusion matrix (frames; rows: labelled, columns: predicted)</h3>
      <Confusion m={m} />
    </>
  );
}

function Confusion({ m }: { m: Metrics }) {
  const max = Math.max(1, ...m.confusion.flat());
  return (
    <table className="confusion" aria-label="Confusion matrix">
      <thead>
        <tr>
          <th scope="col">Labelled \ predicted</th>
          {m.labels.map((l) => (
            <th scope="col" key={l}>
              {l}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {m.confusion.map((row, i) => (
          <tr key={m.labels[i]}>
            <th scope="row">{m.labels[i]}</th>
            {row.map((n, j) => (
              <td
                key={m.labels[j]}
                className={i === j ? 'diagonal' : undefined}
                style={{ backgroundColor: `rgba(47, 111, 222, ${(n / max) * 0.6})` }}
              >
                {n}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
