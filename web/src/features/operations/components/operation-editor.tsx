import { useEffect, useRef, useState } from 'react';

import { SelectField } from '@/components/ui/field';
import { notify } from '@/lib/toast';

import {
  allowed,
  canRename,
  type DraftProcess,
  type DraftStep,
  edit,
  type EditorAction,
  type EditorState,
  type Phase,
  PHASES,
  stepList,
} from '../editor';

const PHASE_LABEL: Record<Phase, string> = { 'add-delete': 'Add/Delete', merge: 'Merge', rename: 'Rename' };
const PHASE_HINT: Record<Phase, string> = {
  'add-delete': 'Add or delete processes, steps and sub-steps, and move steps and sub-steps. Existing names change in the Rename phase.',
  merge: 'Merge a step into another: its sub-steps move to the other step, and it disappears.',
  rename: 'Rename processes, steps and sub-steps.',
};

type Dispatch = (action: EditorAction, focus?: string) => void;

/** After moving item `id` from `i` by `by` in a list of `length`: its button to focus, the
 * same direction's unless that one is now disabled at the end of the list. */
function focusAfterMove(id: number, i: number, length: number, by: -1 | 1): string {
  const to = i + by;
  const up = by === -1 ? to > 0 : to === length - 1;
  return `${up ? 'up' : 'down'}-${id}`;
}

/**
 * The operation editor (spec section 5 "Operation definition"): processes → steps →
 * sub-steps as inputs with add, delete and move buttons, controlled by `value`
 * (`newOperation()` or, for an existing task, `editOperation(op)` with the phase stepper
 * of section 4). A refused edit ('Please finish the last step first!', …) is shown by
 * `onMessage`, a 3 s error toast by default. The focus follows the item just added or
 * moved, and goes to the list's add button after a delete.
 */
export function OperationEditor({
  value,
  onChange,
  onMessage = notify.errorShort,
}: {
  value: EditorState;
  onChange: (state: EditorState) => void;
  onMessage?: (message: string) => void;
}) {
  // After an edit the focus moves to the element marked `data-focus-key={focusNext}`.
  const box = useRef<HTMLDivElement>(null);
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    const key = focusNext.current;
    focusNext.current = null;
    if (key) box.current?.querySelector<HTMLElement>(`[data-focus-key="${key}"]`)?.focus();
  }, [value]);
  const dispatch: Dispatch = (action, focus) => {
    const r = edit(value, action);
    if (!r.ok) {
      onMessage(r.message);
      return;
    }
    if (r.state === value) return;
    focusNext.current = focus ?? null;
    onChange(r.state);
  };

  const can = allowed(value);
  const phase = value.session?.phase;
  const indexOf = new Map(stepList(value.processes).map((s) => [s.id, s.index]));
  return (
    <div className="operation-editor" ref={box}>
      {phase ? <PhaseStepper phase={phase} dispatch={dispatch} /> : null}
      {phase === 'merge' ? <MergeForm processes={value.processes} dispatch={dispatch} /> : null}
      {value.processes.length === 0 ? <p className="muted">No process yet.</p> : null}
      {value.processes.map((p, i) => (
        <ProcessItem key={p.id} state={value} process={p} at={i} indexOf={indexOf} dispatch={dispatch} />
      ))}
      {can.structure ? (
        <button
          type="button"
          className="secondary"
          data-focus-key="add-process"
          onClick={() => dispatch({ type: 'add-process' }, `name-${value.nextId}`)}
        >
          Add process
        </button>
      ) : null}
    </div>
  );
}

function PhaseStepper({ phase, dispatch }: { phase: Phase; dispatch: Dispatch }) {
  return (
    <div className="operation-phases">
      <ol className="steps" aria-label="Editing phases">
        {PHASES.map((p, i) => (
          <li key={p} aria-current={p === phase ? 'step' : undefined}>
            {i + 1}. {PHASE_LABEL[p]}
          </li>
        ))}
      </ol>
      <p className="muted">{PHASE_HINT[phase]}</p>
      <div className="toolbar">
        {phase !== 'add-delete' ? (
          <button type="button" className="secondary" onClick={() => dispatch({ type: 'back' })}>
            Back
          </button>
        ) : null}
        {phase !== 'rename' ? (
          <button type="button" onClick={() => dispatch({ type: 'next', to: phase === 'add-delete' ? 'merge' : 'rename' })}>
            Next
          </button>
        ) : null}
        {phase === 'add-delete' ? (
          <button type="button" className="secondary" onClick={() => dispatch({ type: 'next', to: 'rename' })}>
            Skip to Rename
          </button>
        ) : null}
      </div>
    </div>
  );
}

/** "Merge step A into step B": two choices of step and a button. */
function MergeForm({ processes, dispatch }: { processes: DraftProcess[]; dispatch: Dispatch }) {
  const [from, setFrom] = useState('');
  const [into, setInto] = useState('');
  const steps = stepList(processes);
  const source = steps.find((s) => String(s.id) === from);
  const target = steps.find((s) => String(s.id) === into && s.id !== source?.id);
  const label = (s: (typeof steps)[number]) => `${s.index + 1}. ${s.name}`;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!source || !target) return;
    dispatch({
      type: 'merge-step',
      from: { process: source.process, step: source.step },
      into: { process: target.process, step: target.step },
    });
    setFrom('');
    setInto('');
  }

  return (
    <form className="inline-form" aria-label="Merge steps" onSubmit={submit} noValidate>
      <SelectField label="Merge step" value={source ? from : ''} onChange={(e) => setFrom(e.target.value)}>
        <option value="">Select a step</option>
        {steps.map((s) => (
          <option key={s.id} value={s.id}>
            {label(s)}
          </option>
        ))}
      </SelectField>
      <SelectField label="Into step" value={target ? into : ''} onChange={(e) => setInto(e.target.value)}>
        <option value="">Select a step</option>
        {steps
          .filter((s) => s.id !== source?.id)
          .map((s) => (
            <option key={s.id} value={s.id}>
              {label(s)}
            </option>
          ))}
      </SelectField>
      <button type="submit" disabled={!source || !target}>
        Merge
      </button>
    </form>
  );
}

function ProcessItem({
  state,
  process,
  at,
  indexOf,
  dispatch,
}: {
  state: EditorState;
  process: DraftProcess;
  at: number;
  /** Each step's index across processes, by id. */
  indexOf: Map<number, number>;
  dispatch: Dispatch;
}) {
  const can = allowed(state);
  return (
    <fieldset className="operation-process">
      <legend>Process {at + 1}</legend>
      <NameInput
        label="Process name"
        state={state}
        item={process}
        onChange={(name) => dispatch({ type: 'rename-process', process: at, name })}
      />
      {can.structure ? (
        <button type="button" className="small danger" onClick={() => dispatch({ type: 'delete-process', process: at }, 'add-process')}>
          Delete process
        </button>
      ) : null}
      {process.steps.length === 0 ? <p className="muted">No step yet.</p> : null}
      <ol className="operation-steps" aria-label={`Steps of process ${at + 1}`}>
        {process.steps.map((s, j) => (
          <li key={s.id}>
            <StepItem
              state={state}
              step={s}
              at={{ process: at, step: j }}
              index={indexOf.get(s.id) ?? j}
              last={j === process.steps.length - 1}
              dispatch={dispatch}
              addStepKey={`add-step-${process.id}`}
            />
          </li>
        ))}
      </ol>
      {can.structure ? (
        <AddButton
          label="Add step"
          focusKey={`add-step-${process.id}`}
          state={state}
          onAdd={(focus) => dispatch({ type: 'add-step', process: at }, focus)}
        />
      ) : null}
    </fieldset>
  );
}

function StepItem({
  state,
  step,
  at,
  index,
  last,
  dispatch,
  addStepKey,
}: {
  state: EditorState;
  step: DraftStep;
  at: { process: number; step: number };
  index: number;
  last: boolean;
  dispatch: Dispatch;
  addStepKey: string;
}) {
  const can = allowed(state);
  const count = state.processes[at.process]?.steps.length ?? 0;
  const move = (by: -1 | 1) => dispatch({ type: 'move-step', ...at, by }, focusAfterMove(step.id, at.step, count, by));
  return (
    <fieldset className="operation-step">
      <legend>Step {index + 1}</legend>
      <NameInput label="Step name" state={state} item={step} onChange={(name) => dispatch({ type: 'rename-step', ...at, name })} />
      {can.structure ? (
        <ItemButtons
          what="step"
          first={at.step === 0}
          last={last}
          id={step.id}
          onMove={move}
          onDelete={() => dispatch({ type: 'delete-step', ...at }, addStepKey)}
        />
      ) : null}
      <ol className="operation-substeps" aria-label={`Sub-steps of step ${index + 1}`}>
        {step.substeps.map((n, k) => {
          const lastSub = k === step.substeps.length - 1;
          const moveSub = (by: -1 | 1) =>
            dispatch({ type: 'move-substep', ...at, substep: k, by }, focusAfterMove(n.id, k, step.substeps.length, by));
          return (
            <li key={n.id}>
              <div role="group" aria-label={`Sub-step ${k + 1}`} className="operation-substep">
                <NameInput
                  label="Sub-step name"
                  state={state}
                  item={n}
                  onChange={(name) => dispatch({ type: 'rename-substep', ...at, substep: k, name })}
                />
                {can.structure ? (
                  <ItemButtons
                    what="sub-step"
                    first={k === 0}
                    last={lastSub}
                    id={n.id}
                    onMove={moveSub}
                    onDelete={() => dispatch({ type: 'delete-substep', ...at, substep: k }, `add-substep-${step.id}`)}
                  />
                ) : null}
              </div>
            </li>
          );
        })}
      </ol>
      {can.structure ? (
        <AddButton
          label="Add sub-step"
          focusKey={`add-substep-${step.id}`}
          state={state}
          onAdd={(focus) => dispatch({ type: 'add-substep', ...at }, focus)}
        />
      ) : null}
    </fieldset>
  );
}

/** An item's name: an input (focus key `name-{id}`), read-only where the phase keeps the name. */
function NameInput({
  label,
  state,
  item,
  onChange,
}: {
  label: string;
  state: EditorState;
  item: { id: number; name: string };
  onChange: (name: string) => void;
}) {
  return (
    <input
      data-focus-key={`name-${item.id}`}
      aria-label={label}
      placeholder={label}
      value={item.name}
      readOnly={!canRename(state, item.id)}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** A list's add button (focus key `focusKey`, where a delete in the list leaves the focus);
 * `onAdd` is given the focus key of the new item's name. */
function AddButton({
  label,
  focusKey,
  state,
  onAdd,
}: {
  label: string;
  focusKey: string;
  state: EditorState;
  onAdd: (focus: string) => void;
}) {
  return (
    <button type="button" className="small secondary" data-focus-key={focusKey} onClick={() => onAdd(`name-${state.nextId}`)}>
      {label}
    </button>
  );
}

/** Move up, move down (disabled at the ends of the list) and delete. */
function ItemButtons({
  what,
  id,
  first,
  last,
  onMove,
  onDelete,
}: {
  what: 'step' | 'sub-step';
  /** The item's id, for the focus keys `up-{id}` and `down-{id}`. */
  id: number;
  first: boolean;
  last: boolean;
  onMove: (by: -1 | 1) => void;
  onDelete: () => void;
}) {
  return (
    <span className="operation-item-buttons">
      <button
        type="button"
        className="small secondary"
        data-focus-key={`up-${id}`}
        aria-label={`Move ${what} up`}
        title={`Move ${what} up`}
        disabled={first}
        onClick={() => onMove(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="small secondary"
        data-focus-key={`down-${id}`}
        aria-label={`Move ${what} down`}
        title={`Move ${what} down`}
        disabled={last}
        onClick={() => onMove(1)}
      >
        ↓
      </button>
      <button type="button" className="small danger" aria-label={`Delete ${what}`} title={`Delete ${what}`} onClick={onDelete}>
        ✕
      </button>
    </span>
  );
}
