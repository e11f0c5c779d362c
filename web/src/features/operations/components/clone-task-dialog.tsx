import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Task } from '@/api/generated';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { DATA_CREATED } from '@/config/messages';
import { fieldErrors } from '@/lib/api-errors';
import { clean } from '@/lib/operation';
import { notify } from '@/lib/toast';

import { cloneTask, putTask } from '../api/tasks';
import { checkTaskName } from '../rules';
import { BODY_LIMITS } from '@/lib/validate';

/** Clone: a copy of the task's operation and settings under a new name (not its
 * training or history). The name is checked before sending. */
export function CloneTaskDialog({ task, onClose, onCloned }: { task: Task; onClose: () => void; onCloned: (id: number) => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(`${task.taskName} copy`);
  const [error, setError] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: (taskName: string) => cloneTask({ task: task.id, taskName }),
    onSuccess: async (copy) => {
      notify.successShort(DATA_CREATED);
      onCloned(copy.id);
      await putTask(qc, copy);
    },
    onError: (err) => {
      setError(fieldErrors(err).taskName ?? null);
      notify.failure(err, 'post');
    },
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const problem = checkTaskName(name);
    setError(problem);
    if (!problem) m.mutate(clean(name));
  }

  return (
    <Dialog title={`Clone ${task.taskName}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field
          label="Name of the copy"
          maxLength={BODY_LIMITS.CloneTask.taskName}
          value={name}
          error={error}
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
        />
        <p className="muted">The copy has the operation and settings, not the training or the history.</p>
        <DialogActions onCancel={onClose} submitLabel="Clone" pending={m.isPending} />
      </form>
    </Dialog>
  );
}
