import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { RectificationStep, Task } from '@/api/generated';
import { Field, SelectField } from '@/components/ui/field';
import { DATA_CREATED, DATA_DELETED } from '@/config/messages';
import { fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';
import { BODY_LIMITS } from '@/lib/validate';

import { addRectificationStep, byStep, deleteRectificationStep, rectificationKey, rectificationQuery } from '../api/rectification';

/**
 * The task's rectification steps: under each step, what the operator does to put a
 * cycle right when that step is missed or done wrong, in order. Those who change the
 * task add one to a step (appended) or delete one; those of a step the operation no
 * longer has show apart, to delete.
 */
export function RectificationSection({ task, manage }: { task: Task; manage: boolean }) {
  const titleId = useId();
  const qc = useQueryClient();
  const q = useQuery(rectificationQuery(task.id));
  const [step, setStep] = useState(0);
  const [text, setText] = useState('');
  const [errors, setErrors] = useState<{ step?: string; description?: string }>({});
  const invalidate = () => qc.invalidateQueries({ queryKey: rectificationKey(task.id) });

  const add = useMutation({
    mutationFn: () => addRectificationStep({ task: task.id, step, description: text }),
    onSuccess: async () => {
      notify.successShort(DATA_CREATED);
      setText('');
      await invalidate();
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setErrors({ step: f.step, description: f.description });
      notify.failure(err, 'post');
    },
  });
  const remove = useMutation({
    mutationFn: (r: RectificationStep) => deleteRectificationStep(r.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      await invalidate();
    },
    onError: (err) => notify.failure(err, 'delete'),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (add.isPending) return;
    if (!text.trim()) {
      setErrors({ description: 'Describe what the operator does.' });
      return;
    }
    add.mutate();
  }

  const grouped = q.data ? byStep(task.steps, q.data) : null;
  const item = (r: RectificationStep) => (
    <li key={r.id}>
      {r.description}
      {manage ? (
        <>
          {' '}
          <button
            type="button"
            className="small secondary"
            aria-label={`Delete rectification step ${r.order} of ${r.step_name ?? `step ${r.step + 1}`}`}
            disabled={remove.isPending}
            onClick={() => remove.mutate(r)}
          >
            Delete
          </button>
        </>
      ) : null}
    </li>
  );

  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Rectification steps</h3>
      <p className="muted">What the operator does when a step of a cycle is missed or done wrong.</p>
      {q.isError ? (
        <p role="alert" className="query-error">
          Could not load the rectification steps.{' '}
          <button type="button" className="small secondary" onClick={() => void q.refetch()}>
            Try again
          </button>
        </p>
      ) : null}
      {q.isPending ? <p>Loading rectification steps…</p> : null}
      {grouped ? (
        <ul className="rectification-steps" aria-label="Rectification steps by step">
          {grouped.steps.map((s) => (
            <li key={s.index}>
              <strong>{s.name}</strong>
              {s.rectification.length ? <ol aria-label={`Rectification of ${s.name}`}>{s.rectification.map(item)}</ol> : <span className="muted"> — none</span>}
            </li>
          ))}
          {grouped.gone.length ? (
            <li>
              <strong>Steps no longer in the operation</strong>
              <ol aria-label="Rectification of removed steps">{grouped.gone.map(item)}</ol>
            </li>
          ) : null}
        </ul>
      ) : null}
      {manage && task.steps.length > 0 ? (
        <form className="toolbar" onSubmit={submit} noValidate aria-label="Add a rectification step">
          <SelectField
            label="Step"
            value={step}
            error={errors.step}
            onChange={(e) => {
              setStep(Number(e.target.value));
              setErrors({});
            }}
          >
            {task.steps.map((name, i) => (
              <option key={i} value={i}>
                {i + 1}. {name}
              </option>
            ))}
          </SelectField>
          <Field
            label="Rectification"
            maxLength={BODY_LIMITS.RectificationStepCreate.description}
            value={text}
            error={errors.description}
            onChange={(e) => {
              setText(e.target.value);
              setErrors({});
            }}
          />
          <button type="submit" disabled={add.isPending}>
            Add rectification step
          </button>
        </form>
      ) : null}
    </section>
  );
}
