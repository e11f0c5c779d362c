import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Task } from '@/api/generated';
import { Field, SelectField } from '@/components/ui/field';
import { DATA_UPDATED, MODEL_UPDATE_FAILED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { modelChoicesQuery, patchTask, putTask, type TaskChanges } from '../api/tasks';
import { RESTART_FOR_MODEL } from '../messages';
import { readModelVersion } from '../rules';

/**
 * The task's model: its kind (`model_choices`) and version. A change tells the user to
 * restart the task for it to take effect (spec section 4); a failure says 'error
 * occurred in updating the model on Task!' with the server's reason. A model once set
 * is changed, not removed (the API has no way to clear it).
 */
export function ModelSection({ task, manage }: { task: Task; manage: boolean }) {
  const titleId = useId();
  const qc = useQueryClient();
  const choices = useQuery(modelChoicesQuery());
  const [choice, setChoice] = useState(task.model_choice ?? '');
  const [version, setVersion] = useState(task.model_version == null ? '' : String(task.model_version));
  const [error, setError] = useState<string | null>(null);

  const m = useMutation({
    mutationFn: (body: TaskChanges) => patchTask(task.id, body),
    onSuccess: async (t) => {
      notify.successWith(DATA_UPDATED, RESTART_FOR_MODEL);
      await putTask(qc, t);
    },
    onError: (err) => notify.failure(err, 'post', MODEL_UPDATE_FAILED),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const v = readModelVersion(version);
    if (!v.ok || (v.value === null && task.model_version != null)) {
      setError(v.ok ? 'The model version is required!' : v.message);
      return;
    }
    const body: TaskChanges = {};
    if (choice !== '' && choice !== task.model_choice) body.model_choice = choice;
    if (v.value !== null && v.value !== task.model_version) body.model_version = v.value;
    if (Object.keys(body).length === 0) {
      notify.hint('No changes to save.');
      return;
    }
    m.mutate(body);
  }

  const options = choices.data ?? [];
  const known = options.some((o) => o.value === task.model_choice);
  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Model</h3>
      <form className="inline-form" aria-label="Model" onSubmit={submit} noValidate>
        <SelectField label="Model" value={choice} disabled={!manage} onChange={(e) => setChoice(e.target.value)}>
          {task.model_choice == null ? <option value="">Select a model</option> : null}
          {task.model_choice != null && !known ? <option value={task.model_choice}>{task.model_choice}</option> : null}
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </SelectField>
        <Field
          label="Model version"
          type="number"
          min={1}
          value={version}
          error={error}
          disabled={!manage}
          onChange={(e) => {
            setVersion(e.target.value);
            setError(null);
          }}
        />
        {manage ? (
          <button type="submit" disabled={m.isPending}>
            {m.isPending ? 'Saving…' : 'Update model'}
          </button>
        ) : null}
      </form>
    </section>
  );
}
