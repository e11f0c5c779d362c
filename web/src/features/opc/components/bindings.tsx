import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Device, OpcuaBindingCreate, OpcuaBindingRecord, OpcuaNode } from '@/api/generated';
import { tasksQuery } from '@/api/tasks';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { DATA_DELETED } from '@/config/messages';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { bindingsKey, bindingsQuery, createBinding, deleteBinding } from '../api/bindings';
import { type BindingErrors, type BindingForm, EMPTY_FORM, ROLES, ROLE_LABELS, bindingBody, roleText, taskText } from '../binding-form';

const BOUND = 'Node bound.';

/** Binds `node` of `endpoint` to a camera of `device` (a task, a role). */
export function BindForm({ device, endpoint, node }: { device: Device; endpoint: string; node: OpcuaNode }) {
  const qc = useQueryClient();
  const titleId = useId();
  const tasks = useQuery(tasksQuery());
  const [form, setForm] = useState<BindingForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<BindingErrors & { non_field_errors?: string }>({});
  const cameras = (device.status?.cameras ?? []).map((c) => c.camera);
  const live = (tasks.data ?? []).filter((t) => !t.is_deleted);

  const m = useMutation({
    mutationFn: (body: OpcuaBindingCreate) => createBinding(device.id, body),
    onSuccess: async () => {
      notify.successShort(BOUND);
      setForm(EMPTY_FORM);
      await qc.invalidateQueries({ queryKey: bindingsKey(device.id) });
    },
    onError: (err) => {
      const f = fieldErrors(err);
      const mine = { camera: f.camera, role: f.role, key: f.key };
      const other = f.non_field_errors ?? f.endpoint ?? f.node_id ?? f.task;
      setErrors({ ...mine, non_field_errors: other ?? (Object.keys(f).length === 0 ? errorMessage(err, 'account') : undefined) });
    },
  });

  const set = (change: Partial<BindingForm>) => {
    setForm((x) => ({ ...x, ...change }));
    setErrors({});
  };

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const r = bindingBody(endpoint, node.node_id, form);
    if (r.errors) {
      setErrors(r.errors);
      return;
    }
    m.mutate(r.body);
  }

  return (
    <form className="inline-form" aria-labelledby={titleId} onSubmit={submit} noValidate>
      <h3 id={titleId} className="form-title">
        Bind {node.display_name} to a camera
      </h3>
      <SelectField label="Camera" value={form.camera} error={errors.camera} onChange={(e) => set({ camera: e.target.value })}>
        <option value="">{cameras.length === 0 ? 'The device reports no camera' : 'Choose a camera'}</option>
        {cameras.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </SelectField>
      <SelectField label="Task" value={form.task} onChange={(e) => set({ task: e.target.value })}>
        <option value="">Any task</option>
        {live.map((t) => (
          <option key={t.id} value={t.id}>
            {t.taskName}
          </option>
        ))}
      </SelectField>
      <SelectField label="Role" value={form.role} error={errors.role} onChange={(e) => set({ role: e.target.value as BindingForm['role'] })}>
        <option value="">Choose what it does</option>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </SelectField>
      {form.role === 'metadata' ? <Field label="Metadata key" value={form.key} error={errors.key} onChange={(e) => set({ key: e.target.value })} /> : null}
      <FormError message={errors.non_field_errors} />
      <button type="submit" disabled={m.isPending}>
        {m.isPending ? 'Binding…' : 'Bind'}
      </button>
    </form>
  );
}

/** The bindings of `device`; `editable` adds Remove (confirmed). */
export function Bindings({ device, editable }: { device: Device; editable: boolean }) {
  const qc = useQueryClient();
  const q = useQuery(bindingsQuery(device.id));
  const [removing, setRemoving] = useState<OpcuaBindingRecord | null>(null);
  const remove = useMutation({
    mutationFn: (b: OpcuaBindingRecord) => deleteBinding(device.id, b.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setRemoving(null);
      await qc.invalidateQueries({ queryKey: bindingsKey(device.id) });
    },
    onError: (err) => {
      notify.error(errorMessage(err, 'account'));
      setRemoving(null);
    },
  });

  return (
    <div className="section">
      <h2>Bindings of {device.display_name}</h2>
      {q.error ? (
        <p role="alert" className="query-error">
          The bindings could not be loaded: {errorMessage(q.error, 'account')}
        </p>
      ) : !q.data ? (
        <p className="muted">Loading bindings…</p>
      ) : q.data.length === 0 ? (
        <p className="muted">No node is bound yet: browse a server, choose a node and bind it to a camera.</p>
      ) : (
        <table className="data-table" aria-label={`Bindings of ${device.display_name}`}>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Server</th>
              <th scope="col">Camera</th>
              <th scope="col">Task</th>
              <th scope="col">Does</th>
              {editable ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {q.data.map((b) => (
              <tr key={b.id}>
                <td>{b.node_id}</td>
                <td>{b.endpoint}</td>
                <td>{b.camera}</td>
                <td>{taskText(b)}</td>
                <td>{roleText(b)}</td>
                {editable ? (
                  <td className="actions">
                    <button type="button" className="secondary small" aria-label={`Remove the binding of ${b.node_id} (${roleText(b)})`} onClick={() => setRemoving(b)}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {removing ? (
        <ConfirmDialog title="Remove the binding?" confirmLabel="Remove" busy={remove.isPending} onConfirm={() => remove.mutate(removing)} onCancel={() => setRemoving(null)}>
          {removing.node_id} will no longer {roleText(removing).toLowerCase()} on {removing.camera}.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
