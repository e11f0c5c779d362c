import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { Task, TaskParameters } from '@/api/generated';
import { Field } from '@/components/ui/field';
import { CHANGES_SAVED, CHANGES_SAVE_FAILED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { patchTask, putTask, type TaskChanges } from '../api/tasks';
import { NO_CYCLE_LIMIT, type ParameterErrors, type ParameterTexts, readParameters, shownName } from '../rules';

type StepsByProcess = Task['required_steps_for_start'];

type Draft = {
  texts: ParameterTexts;
  object_rotation: boolean;
  strict_step_order: boolean;
  add_background_time_to_step_time: boolean;
  start: StepsByProcess;
  end: StepsByProcess;
  negative: number[];
  optional: number[];
};

function draftOf(task: Task): Draft {
  const t = task.taskParameters.telemetryParams;
  const r = task.taskParameters.trainingParams;
  return {
    texts: {
      maximum_cycle_time: t.maximum_cycle_time >= NO_CYCLE_LIMIT ? '' : String(t.maximum_cycle_time),
      minimum_cycle_time: String(t.minimum_cycle_time),
      min_share: String(t.min_percentage_of_steps_required_to_end_cycle),
      temporal_smoothness: String(t.temporal_smoothness),
      verify_threshold: String(r.verify_threshold),
      background_time: String(r.background_time),
    },
    object_rotation: t.object_rotation,
    strict_step_order: t.strict_step_order,
    add_background_time_to_step_time: t.add_background_time_to_step_time,
    start: t.required_steps_for_start,
    end: t.required_steps_for_end,
    negative: task.negativeSteps,
    optional: task.optional_steps,
  };
}

/** `list` with step `i` on or off, in step order. */
const toggled = (list: readonly number[], i: number, on: boolean) =>
  on ? [...new Set([...list, i])].sort((a, b) => a - b) : list.filter((x) => x !== i);

/** A process's steps chosen in `map`: a process that had no entry gets one only once a
 * step is chosen (the defaults name process 0 only). */
function withProcess(map: StepsByProcess, process: number, steps: number[], original: StepsByProcess): StepsByProcess {
  const out = { ...map };
  if (steps.length === 0 && !(process in original)) delete out[process];
  else out[process] = steps;
  return out;
}

/**
 * The task's parameters (spec section 3): the telemetry parameters (cycle times, the
 * share of steps that ends a cycle, the steps that start and end a cycle per process,
 * temporal smoothness, object rotation, strict step order, background time added to step
 * time), the training parameters (verify threshold, background time), and the negative
 * and optional steps. Checked with the server's rules before sending; saved in one
 * patch: 'Your changes have been saved!', or 'Error occurred in saving your changes!'
 * with the server's reason.
 */
export function ParametersSection({ task, manage, translation }: { task: Task; manage: boolean; translation: Record<string, string> | null }) {
  const titleId = useId();
  const qc = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(task));
  const [errors, setErrors] = useState<ParameterErrors>({});
  const original = task.taskParameters.telemetryParams;

  const m = useMutation({
    mutationFn: (body: TaskChanges) => patchTask(task.id, body),
    onSuccess: async (t) => {
      notify.successShort(CHANGES_SAVED);
      await putTask(qc, t);
    },
    onError: (err) => notify.failure(err, 'post', CHANGES_SAVE_FAILED),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const base: TaskParameters = {
      telemetryParams: {
        ...original,
        object_rotation: draft.object_rotation,
        strict_step_order: draft.strict_step_order,
        add_background_time_to_step_time: draft.add_background_time_to_step_time,
        required_steps_for_start: draft.start,
        required_steps_for_end: draft.end,
      },
      trainingParams: task.taskParameters.trainingParams,
    };
    const read = readParameters(draft.texts, base);
    setErrors(read.ok ? {} : read.errors);
    if (!read.ok) return;
    m.mutate({ taskParameters: read.value, negativeSteps: draft.negative, optional_steps: draft.optional });
  }

  const text = (key: keyof ParameterTexts) => ({
    value: draft.texts[key],
    error: errors[key],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      setDraft({ ...draft, texts: { ...draft.texts, [key]: e.target.value } });
      setErrors({ ...errors, [key]: undefined });
    },
  });
  const flag = (key: 'object_rotation' | 'strict_step_order' | 'add_background_time_to_step_time', label: string) => (
    <label className="checkbox">
      <input type="checkbox" checked={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.target.checked })} />
      {label}
    </label>
  );

  // Steps numbered across processes, as the indexes are.
  const steps = task.processes.flatMap((p, process) => p.steps.map((s) => ({ process, name: shownName(s.name, translation) })));
  const numbered = steps.map((s, index) => ({ ...s, index }));
  const ofProcess = (p: number) => numbered.filter((s) => s.process === p);

  return (
    <section className="section" aria-labelledby={titleId}>
      <h3 id={titleId}>Parameters</h3>
      <form className="parameters-form" aria-label="Parameters" onSubmit={submit} noValidate>
        <fieldset disabled={!manage}>
          <legend>Telemetry</legend>
          <div className="field-grid">
            <Field label="Maximum cycle time (s)" type="number" min={0} placeholder="No limit" {...text('maximum_cycle_time')} />
            <Field label="Minimum cycle time (s)" type="number" min={0} {...text('minimum_cycle_time')} />
            <Field label="Minimum share of steps to end a cycle (0–1)" type="number" min={0} max={1} step={0.05} {...text('min_share')} />
            <Field label="Temporal smoothness (frames)" type="number" min={1} {...text('temporal_smoothness')} />
          </div>
          {flag('object_rotation', 'Object rotation')}
          {flag('strict_step_order', 'Strict step order')}
          {flag('add_background_time_to_step_time', 'Add background time to step time')}
          {task.processes.map((p, i) => (
            <div key={i} className="field-grid">
              <StepChoices
                legend={`Required steps for start: ${p.name}`}
                steps={ofProcess(i)}
                chosen={draft.start[i] ?? []}
                onChange={(list) => setDraft({ ...draft, start: withProcess(draft.start, i, list, original.required_steps_for_start) })}
              />
              <StepChoices
                legend={`Required steps for end: ${p.name}`}
                steps={ofProcess(i)}
                chosen={draft.end[i] ?? []}
                onChange={(list) => setDraft({ ...draft, end: withProcess(draft.end, i, list, original.required_steps_for_end) })}
              />
            </div>
          ))}
        </fieldset>
        <fieldset disabled={!manage}>
          <legend>Training</legend>
          <div className="field-grid">
            <Field label="Verify threshold (frames)" type="number" min={1} {...text('verify_threshold')} />
            <Field label="Background time (frames)" type="number" min={0} {...text('background_time')} />
          </div>
        </fieldset>
        <fieldset disabled={!manage} className="field-grid">
          <legend>Steps</legend>
          <StepChoices legend="Negative steps" steps={numbered} chosen={draft.negative} onChange={(negative) => setDraft({ ...draft, negative })} />
          <StepChoices legend="Optional steps" steps={numbered} chosen={draft.optional} onChange={(optional) => setDraft({ ...draft, optional })} />
        </fieldset>
        {manage ? (
          <div className="form-actions">
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDraft(draftOf(task));
                setErrors({});
              }}
            >
              Discard changes
            </button>
            <button type="submit" disabled={m.isPending}>
              {m.isPending ? 'Saving…' : 'Save parameters'}
            </button>
          </div>
        ) : null}
      </form>
    </section>
  );
}

/** A checkbox per step ("2. Check seal"); `chosen` holds step indexes. */
function StepChoices({
  legend,
  steps,
  chosen,
  onChange,
}: {
  legend: string;
  steps: { index: number; name: string }[];
  chosen: readonly number[];
  onChange: (list: number[]) => void;
}) {
  return (
    <fieldset className="step-choices">
      <legend>{legend}</legend>
      {steps.length === 0 ? <p className="muted">No step.</p> : null}
      {steps.map((s) => (
        <label key={s.index} className="checkbox">
          <input type="checkbox" checked={chosen.includes(s.index)} onChange={(e) => onChange(toggled(chosen, s.index, e.target.checked))} />
          {s.index + 1}. {s.name}
        </label>
      ))}
    </fieldset>
  );
}
