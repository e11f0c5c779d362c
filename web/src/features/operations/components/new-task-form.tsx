import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Operation, TaskCreate } from '@/api/generated';
import { Field } from '@/components/ui/field';
import { DATA_CREATED } from '@/config/messages';
import { fieldErrors } from '@/lib/api-errors';
import { clean } from '@/lib/operation';
import { notify } from '@/lib/toast';

import { createTask, putTask } from '../api/tasks';
import { type EditorState, newOperation } from '../editor';
import { checkedOperation } from './checked-operation';
import { OperationEditor } from './operation-editor';
import { BODY_LIMITS } from '@/lib/validate';

/**
 * Define a new operation: its name and processes → steps → sub-steps, every edit allowed
 * (no phases). Save checks the name (next to its field) and the save rules of section 5
 * (the first failing rule as a 3 s toast) and sends nothing while either fails; a 400's
 * first message shows as a toast (and next to the name when it is the name's). The new
 * task joins the list and is selected (spec section 4).
 */
export function NewTaskForm({ initial, onCreated, onCancel }: { initial: Operation; onCreated: (id: number) => void; onCancel: () => void }) {
  const qc = useQueryClient();
  const titleId = useId();
  const [state, setState] = useState<EditorState>(() => newOperation(initial));
  const [nameError, setNameError] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: (body: TaskCreate) => createTask(body),
    onSuccess: async (task) => {
      notify.successShort(DATA_CREATED);
      onCreated(task.id);
      await putTask(qc, task);
    },
    onError: (err) => {
      setNameError(fieldErrors(err).taskName ?? null);
      notify.failure(err, 'post');
    },
  });

  function save() {
    if (m.isPending) return;
    const op = checkedOperation(state, setNameError);
    if (!op) return;
    m.mutate({ taskName: clean(state.name), processes: op.processes });
  }

  return (
    // Not a <form>: the editor holds its own (merging), and Enter in a name must not save.
    <section className="task-form" aria-labelledby={titleId}>
      <h2 id={titleId}>New operation</h2>
      <Field
        label="Operation name"
        maxLength={BODY_LIMITS.TaskCreate.taskName}
        value={state.name}
        error={nameError}
        onChange={(e) => {
          setState({ ...state, name: e.target.value });
          setNameError(null);
        }}
      />
      <OperationEditor value={state} onChange={setState} />
      <div className="form-actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" disabled={m.isPending} onClick={save}>
          {m.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </section>
  );
}
