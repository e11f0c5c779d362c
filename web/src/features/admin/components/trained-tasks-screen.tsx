import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';

import type { TrainStatus, TrainedTask } from '@/api/generated';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { SelectField } from '@/components/ui/field';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { QueryStatus } from '@/components/ui/query-status';
import { TRAIN_STATUS_LABEL, formatDateTime } from '@/lib/format';

import { TRAIN_STATUSES, taskVideosPath, trainedTaskQuery, trainedTasksQuery } from '../api/tasks';

const pct = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`;

const isStatus = (s: string | null): s is TrainStatus => TRAIN_STATUSES.includes(s as TrainStatus);

/**
 * `/admin/trained-tasks` (Trained Operations, super admin): an organisation's
 * operations by training status (trained by default; `?organization=`,
 * `?train_status=` and the operation opened, `?task=`, in the address). An operation
 * opened shows its training: labelled and ready videos, the latest run (its state,
 * progress, message, the videos trained on and held out) and the model version it
 * made with its held-out metrics.
 */
export default function TrainedTasksScreen() {
  const [params, setParams] = useSearchParams();
  const org = Number(params.get('organization')) || null;
  const raw = params.get('train_status');
  const status: TrainStatus = isStatus(raw) ? raw : 'trained';
  const opened = Number(params.get('task')) || null;
  const set = (patch: Record<string, string | null>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(patch)) {
          if (v === null || v === '') next.delete(k);
          else next.set(k, v);
        }
        return next;
      },
      { replace: true },
    );
  const list = useQuery({ ...trainedTasksQuery(org ?? 0, status), enabled: org !== null });

  return (
    <section>
      <div className="screen-header">
        <h1>Trained Operations</h1>
      </div>
      <OrganizationSelect value={org} none="Choose an organization…" onChange={(o) => set({ organization: o === null ? null : String(o), task: null })} />
      <div className="toolbar">
        <SelectField label="Training status" value={status} onChange={(e) => set({ train_status: e.target.value, task: null })}>
          {TRAIN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {TRAIN_STATUS_LABEL[s]}
            </option>
          ))}
        </SelectField>
      </div>
      {org === null ? (
        <EmptyState title="Choose an organization to see its operations by training status." />
      ) : (
        <DataTable
          label="Trained operations"
          query={{ isPending: list.isPending, error: list.error, data: list.data }}
          empty={<EmptyState title={`No operation is ${TRAIN_STATUS_LABEL[status].toLowerCase()}.`} />}
          columns={['Operation', 'Steps', 'Training', 'Actions']}
          row={(t) => (
            <tr key={t.id} aria-current={t.id === opened ? 'true' : undefined}>
              <td>{t.taskName}</td>
              <td>{t.stepsCount}</td>
              <td>{TRAIN_STATUS_LABEL[t.train_status]}</td>
              <td className="actions">
                <button type="button" className="secondary" aria-label={`Training of ${t.taskName}`} onClick={() => set({ task: String(t.id) })}>
                  Training
                </button>{' '}
                <Link to={taskVideosPath(t)} aria-label={`Videos of ${t.taskName}`}>
                  Videos
                </Link>
              </td>
            </tr>
          )}
        />
      )}
      {opened !== null ? <Training id={opened} /> : null}
    </section>
  );
}

/** One operation's training (`organization/trained_task/{id}`). */
function Training({ id }: { id: number }) {
  const q = useQuery(trainedTaskQuery(id));
  return (
    <div className="model-card">
      <QueryStatus pending={q.isPending} error={q.error} what="The training" />
      {q.data ? <TrainingView t={q.data} /> : null}
    </div>
  );
}

function TrainingView({ t }: { t: TrainedTask }) {
  const { run, model_version: model } = t;
  const m = model?.metrics ?? null;
  return (
    <>
      <h2>Training of {t.taskName}</h2>
      <dl className="metrics" aria-label={`Training state of ${t.taskName}`}>
        <dt>Status</dt>
        <dd>{TRAIN_STATUS_LABEL[t.train_status]}</dd>
        <dt>Videos</dt>
        <dd>
          {t.labelled_videos} labelled, {t.ready_videos} ready
        </dd>
        <dt>Latest run</dt>
        <dd>
          {run
            ? `${run.status}, ${pct(run.progress, 0)}${run.message ? ` — ${run.message}` : ''}`
            : 'Never trained'}
        </dd>
        {run ? (
          <>
            <dt>Videos trained on / held out</dt>
            <dd>
              {run.train_videos.length} / {run.holdout_videos.length}
            </dd>
            <dt>Started / finished</dt>
            <dd>
              {run.started_at !== null ? formatDateTime(run.started_at) : '—'} / {run.finished_at !== null ? formatDateTime(run.finished_at) : '—'}
            </dd>
          </>
        ) : null}
        <dt>Model version</dt>
        <dd>{model ? model.version : 'None yet'}</dd>
        {m ? (
          <>
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
            <dt>Verdict agreement</dt>
            <dd>{pct(m.verdict_agreement)}</dd>
            <dt>Held-out frames</dt>
            <dd>{m.frames}</dd>
          </>
        ) : null}
      </dl>
      {m ? (
        <table className="data-table" aria-label={`Steps of ${t.taskName}`}>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Precision</th>
              <th scope="col">Recall</th>
              <th scope="col">F1</th>
            </tr>
          </thead>
          <tbody>
            {m.per_label.map((l) => (
              <tr key={l.label}>
                <td>{l.label}</td>
                <td>{pct(l.precision)}</td>
                <td>{pct(l.recall)}</td>
                <td>{pct(l.f1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
