import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import type { Deployment, ModelVersion } from '@/api/generated';
import { canTakeWork, orgDevicesQuery, trainingKey } from '@/api/training';
import { OperationPicker, useTaskParam } from '@/components/media/operation-picker';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { FormError, SelectField } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { useIdSet } from '@/lib/use-id-set';

import { deploy, deploymentsQuery, modelVersionsQuery } from '../api/model-versions';

const STATUS: Record<Deployment['status'], string> = {
  installing: 'Installing…',
  installed: 'Installed',
  failed: 'Failed',
};

const modelLabel = (m: ModelVersion) =>
  `${m.version}${m.metrics ? ` · ${(m.metrics.frame_accuracy * 100).toFixed(1)}% frame accuracy` : ''} · ${new Date(
    m.created_at,
  ).toLocaleString()}`;

/**
 * `/user/deploy` (Deploy Model): choose an operation and one of its model versions,
 * choose devices (online ones), and send it; each device downloads the model, checks
 * it, swaps it in on its cameras running the operation and answers. The table follows
 * each device until it answers, and says what its cameras run now.
 */
export default function DeployScreen() {
  const s = useSession();
  const [task] = useTaskParam();
  return (
    <section>
      <OperationPicker title="Deploy Model" />
      {task !== null && s.organization !== null ? <Deploy key={task} task={task} org={s.organization} /> : null}
    </section>
  );
}

function Deploy({ task, org }: { task: number; org: number }) {
  const s = useSession();
  const operate = s.role !== null && can(s.role, 'OperateDevices');
  const models = useQuery(modelVersionsQuery(task));
  const live = (models.data ?? []).filter((m) => !m.is_deleted);
  const [chosenModel, setChosenModel] = useState<number | null>(null);
  const model = live.find((m) => m.id === chosenModel) ?? live[0] ?? null;
  if (models.data && live.length === 0) {
    return (
      <EmptyState title="No model for this operation yet.">
        <p>
          Train one in <Link to={`${paths.user.train}?task=${task}`}>Train Model</Link> first.
        </p>
      </EmptyState>
    );
  }
  if (!model) return <p>Loading model versions…</p>;
  return (
    <>
      <SelectField label="Model version" value={model.id} onChange={(e) => setChosenModel(Number(e.target.value))}>
        {live.map((m) => (
          <option key={m.id} value={m.id}>
            {modelLabel(m)}
          </option>
        ))}
      </SelectField>
      {operate ? <DevicePicker key={model.id} model={model} org={org} /> : null}
      <Deployments model={model.id} />
    </>
  );
}

function DevicePicker({ model, org }: { model: ModelVersion; org: number }) {
  const qc = useQueryClient();
  const devices = useQuery(orgDevicesQuery(org));
  const [chosen, toggle, setChosen] = useIdSet();
  const [error, setError] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: () => deploy(model.id, [...chosen]),
    onSuccess: async (d) => {
      setChosen(new Set());
      setError(null);
      notify.successShort(`Model ${model.version} sent to ${d.length} device${d.length === 1 ? '' : 's'}.`);
      await qc.invalidateQueries({ queryKey: trainingKey });
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setError(f.devices ?? f.non_field_errors ?? errorMessage(err, 'post'));
    },
  });
  return (
    <div className="deploy-devices">
      <DataTable
        label="Devices"
        query={{ isPending: devices.isPending, error: devices.error, data: devices.data }}
        empty={<EmptyState title="No devices yet.">Add a workstation in Add Device.</EmptyState>}
        columns={['', 'Device', 'State', 'Running now']}
        row={(d) => {
          const online = canTakeWork(d);
          const running = [...new Set((d.status?.cameras ?? []).flatMap((c) => (c.model_version ? [c.model_version] : [])))];
          return (
            <tr key={d.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Deploy to ${d.display_name}`}
                  checked={chosen.has(d.id)}
                  disabled={!online}
                  onChange={() => toggle(d.id)}
                />
              </td>
              <td>{d.display_name}</td>
              <td>{online ? 'online' : 'offline'}</td>
              <td>{running.length > 0 ? running.join(', ') : '—'}</td>
            </tr>
          );
        }}
      />
      <FormError message={error} />
      <button type="button" disabled={chosen.size === 0 || send.isPending} onClick={() => send.mutate()}>
        {send.isPending ? 'Sending…' : `Deploy ${model.version} to ${chosen.size} device${chosen.size === 1 ? '' : 's'}`}
      </button>
    </div>
  );
}

function Deployments({ model }: { model: number }) {
  const q = useQuery(deploymentsQuery(model));
  return (
    <>
      <h2>Deployments</h2>
      <DataTable
        label="Deployments"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<p className="muted">Not deployed yet.</p>}
        columns={['Device', 'Sent', 'Progress', 'Answer', 'Running now']}
        row={(d) => (
          <tr key={d.id}>
            <td>{d.device_name}</td>
            <td>{new Date(d.created_at).toLocaleString()}</td>
            <td>
              <span className={`badge deploy-${d.status}`}>{STATUS[d.status]}</span>
            </td>
            <td>{d.message || '—'}</td>
            <td>{d.running_versions.length > 0 ? d.running_versions.join(', ') : '—'}</td>
          </tr>
        )}
      />
    </>
  );
}
