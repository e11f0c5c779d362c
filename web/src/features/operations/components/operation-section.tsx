import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Operation, Task } from '@/api/generated';
import { Field } from '@/components/ui/field';
import { DATA_UPDATED } from '@/config/messages';
import { fieldErrors } from '@/lib/api-errors';
import { clean, print } from '@/lib/operation';
import { notify } from '@/lib/toast';

import { patchTask, putTask, type TaskChanges } from '../api/tasks';
import { carriedSettings, changeSummary, sameName } from '../changes';
import { editOperation, type EditorState } from '../editor';
import { beingTrainedMessage } from '../messages';
import { shownName } from '../rules';
import { checkedOperation } from './checked-operation';
import { OperationEditor } from './operation-editor';

/** An edit in progress, and the operation text it started from. */
type Editing = { state: EditorState; base: string };

const operationOfTask = (task: Task): Operation => ({ name: task.taskName, processes: task.processes });

/**
 * The task's operation: shown (in the chosen language), or edited through the phases
 * add/delete → merge → rename (spec section 4) with its name. A task in training is not
 * edited (its message, as the server's). Save checks the name and the save rules of
 * section 5 and sends the processes (and a new name) with the settings that name steps
 * moved along (`changes.ts`). An edit whose task changed meanwhile (a revert) ends.
 */
export function OperationSection({ task, manage, translation }: { task: Task; manage: boolean; translation: Record<string, string> | null }) {
  const titleId = useId();
  const qc = useQueryClient();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  const active = editing?.base === task.task_detail ? editing : null;

  const m = useMutation({
    mutationFn: (body: TaskChanges) => patchTask(task.id, body),
    onSuccess: async (t) => {
      notify.successShort(DATA_UPDATED);
      setEditing(null);
      await putTask(qc, t);
    },
    onError: (err) => {
      setNameError(fieldErrors(err).taskName ?? null);
      notify.failure(err, 'post');
    },
  });

  function start() {
    if (task.train_status === 'training') {
      notify.errorShort(beingTrainedMessage(task.taskName));
      return;
    }
    setNameError(null);
    setEditing({ state: editOperation(operationOfTask(task)), base: task.task_detail });
  }

  function save(state: EditorState) {
    if (m.isPending) return;
    const op = checkedOperation(state, setNameError);
    if (!op) return;
    const renamed = !sameName(task, state.name);
    if (!renamed && print({ ...op, name: task.taskName }) === task.task_detail) {
      notify.hint('No changes to save.');
      setEditing(null);
      return;
    }
    m.mutate({ ...(renamed ? { taskName: clean(state.name) } : {}), processes: op.processes, ...carriedSettings(task, state) });
  }

  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Operation</h3>
      {active ? (
        <div className="task-form">
          <Field
            label="Operation name"
            value={active.state.name}
            error={nameError}
            onChange={(e) => {
              setEditing({ ...active, state: { ...active.state, name: e.target.value } });
              setNameError(null);
            }}
          />
          <OperationEditor value={active.state} onChange={(state) => setEditing({ ...active, state })} />
          <p className="muted" aria-live="polite">
            {changeSummary(active.state) ?? 'No change to the steps yet.'}
          </p>
          <div className="form-actions">
            <button type="button" className="secondary" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button type="button" disabled={m.isPending} onClick={() => save(active.state)}>
              {m.isPending ? 'Saving…' : 'Save'}
            </button>
          </div>
        </div>
      ) : (
        <>
          <OperationView operation={operationOfTask(task)} translation={translation} />
          {manage ? (
            <button type="button" onClick={start}>
              Edit operation
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

/** The operation read-only: processes, their steps numbered across processes, sub-steps. */
export function OperationView({ operation, translation }: { operation: Operation; translation: Record<string, string> | null }) {
  // Each process's first step number (steps are numbered across processes).
  const firsts = operation.processes.map((_, i) => 1 + operation.processes.slice(0, i).reduce((n, p) => n + p.steps.length, 0));
  return (
    <div className="operation-view">
      {operation.processes.map((p, i) => (
        <section key={i} className="operation-process" aria-label={`Process ${i + 1}: ${p.name}`}>
          <h4>{p.name}</h4>
          <ol className="operation-steps" start={firsts[i]}>
            {p.steps.map((s) => (
              <li key={s.name}>
                <span className="step-name">{shownName(s.name, translation)}</span>
                <ul className="operation-substeps">
                  {s.substeps.map((n) => (
                    <li key={n}>{shownName(n, translation)}</li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        </section>
      ))}
    </div>
  );
}
