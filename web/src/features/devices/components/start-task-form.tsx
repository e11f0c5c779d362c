import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { StartTask, Task } from '@/api/generated';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { DATA_UPDATED } from '@/config/messages';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';
import { checkChosen, requiredMessage, trimWs } from '@/lib/validate';

import { putDevice, startTask } from '../api/devices';

/** The camera a new task starts on unless the user names another. */
export const DEFAULT_CAMERA = 'cam0';

type Errors = { camera?: string | null; task?: string | null };

/**
 * Start a task on a camera of the device: the camera's name ("cam0" unless changed) and
 * one of the organisation's tasks. Empty fields are refused before sending; a 400's
 * messages show next to their fields, other failures as a toast.
 */
export function StartTaskForm({ device, tasks, tasksError }: { device: number; tasks: readonly Task[] | undefined; tasksError: unknown }) {
  const qc = useQueryClient();
  const titleId = useId();
  const [camera, setCamera] = useState(DEFAULT_CAMERA);
  const [task, setTask] = useState('');
  const [errors, setErrors] = useState<Errors>({});

  const m = useMutation({
    mutationFn: (body: StartTask) => startTask(device, body),
    onSuccess: async (d) => {
      notify.successShort(DATA_UPDATED);
      await putDevice(qc, d);
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setErrors({ camera: f.camera ?? null, task: f.task ?? null });
      if (!f.camera && !f.task) notify.failure(err, 'post');
    },
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const next: Errors = {
      camera: trimWs(camera) === '' ? requiredMessage('Camera') : null,
      task: checkChosen(task, 'Task'),
    };
    setErrors(next);
    if (next.camera || next.task) return;
    m.mutate({ camera: trimWs(camera), task: Number(task) });
  }

  return (
    <form className="inline-form" aria-labelledby={titleId} onSubmit={submit} noValidate>
      <h3 id={titleId} className="form-title">
        Start a task
      </h3>
      <Field
        label="Camera"
        value={camera}
        error={errors.camera}
        onChange={(e) => {
          setCamera(e.target.value);
          setErrors((x) => ({ ...x, camera: null }));
        }}
      />
      <SelectField
        label="Task"
        value={task}
        error={errors.task}
        disabled={!tasks}
        onChange={(e) => {
          setTask(e.target.value);
          setErrors((x) => ({ ...x, task: null }));
        }}
      >
        <option value="">{tasks && tasks.length === 0 ? 'No task defined yet' : 'Choose a task'}</option>
        {(tasks ?? []).map((t) => (
          <option key={t.id} value={t.id}>
            {t.taskName}
          </option>
        ))}
      </SelectField>
      <button type="submit" disabled={m.isPending}>
        {m.isPending ? 'Starting…' : 'Start'}
      </button>
      {tasksError ? <FormError message={`Tasks could not be loaded: ${errorMessage(tasksError, 'account')}`} /> : null}
    </form>
  );
}
