import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';

import { tasksQuery } from '@/api/tasks';
import { OperationSelect } from '@/components/media/operation-picker';
import { EmptyState } from '@/components/ui/empty-state';
import { FormError, SelectField } from '@/components/ui/field';
import { ScreenHeader } from '@/components/ui/screen-header';
import { formErrors } from '@/lib/api-errors';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { checkChosen } from '@/lib/validate';

import { modelTypesQuery } from '../api/model-types';
import { modelVersionsKey, registerModelVersion } from '../api/model-versions';
import { ModelVersionsTable } from './model-versions-table';

/**
 * `/user/models` (model versions): the organisation's model versions with the soft
 * delete, and registering a model file of the model types (made elsewhere) as a model
 * version of an operation whose steps its labels name.
 */
export default function ModelsScreen() {
  const s = useSession();
  const manage = s.role !== null && can(s.role, 'ManageTasks');
  return (
    <section>
      <ScreenHeader title="Model versions" />
      {manage ? <RegisterForm /> : null}
      <ModelVersionsTable
        manage={manage}
        empty={<EmptyState title="No model versions yet.">Train one in Train Model, or register a model file.</EmptyState>}
      />
    </section>
  );
}

/** Register a model file: an operation and a file (by model type, with its version and
 * labels); the server checks the labels are the operation's steps then background. */
function RegisterForm() {
  const qc = useQueryClient();
  const tasks = useQuery(tasksQuery());
  const types = useQuery(modelTypesQuery());
  const [task, setTask] = useState('');
  const [file, setFile] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const withFiles = (types.data ?? []).filter((t) => t.model_files.length > 0);

  const m = useMutation({
    mutationFn: () => registerModelVersion({ task: Number(task), model_file: Number(file) }),
    onSuccess: async (v) => {
      setErrors({});
      setFile('');
      notify.successShort(`Model version ${v.version} registered.`);
      await qc.invalidateQueries({ queryKey: modelVersionsKey });
    },
    onError: (err) => setErrors(formErrors(err)),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (m.isPending) return;
    const next: Record<string, string> = {};
    const noTask = checkChosen(task, 'Operation');
    const noFile = checkChosen(file, 'Model file');
    if (noTask) next.task = noTask;
    if (noFile) next.model_file = noFile;
    setErrors(next);
    if (Object.keys(next).length === 0) m.mutate();
  };

  return (
    <form aria-label="Register a model file" onSubmit={submit} className="upload-panel" noValidate>
      <h2>Register a model file</h2>
      <OperationSelect tasks={tasks.data} value={task} error={errors.task} disabled={m.isPending} onChange={setTask} />
      <SelectField label="Model file" value={file} error={errors.model_file} disabled={m.isPending} onChange={(e) => setFile(e.target.value)}>
        <option value="">{types.data && withFiles.length === 0 ? 'No model files yet' : 'Choose a model file…'}</option>
        {withFiles.map((t) => (
          <optgroup key={t.id} label={t.name}>
            {t.model_files.map((f) => (
              <option key={f.id} value={f.id}>
                {`${f.version} · ${f.name} · ${f.labels.join(', ')}`}
              </option>
            ))}
          </optgroup>
        ))}
      </SelectField>
      <FormError message={errors.non_field_errors} />
      <button type="submit" disabled={m.isPending}>
        {m.isPending ? 'Registering…' : 'Register'}
      </button>
    </form>
  );
}
