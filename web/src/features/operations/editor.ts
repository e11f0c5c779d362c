/**
 * The operation editor's state, pure: `edit(state, action)` answers the next state, or
 * the message refusing the action (spec section 5 "Operation definition"):
 * - adding a process: at most `MAX_PROCESSES`, else 'An operation can contain at most 2
 *   process!'; a new process is named `Process {n}`, the first such name not taken;
 * - adding a step to a process whose last step's name is blank: 'Please finish the last
 *   step first!'; adding a sub-step to a step whose last sub-step is blank: 'Please finish
 *   the last sub-step first!' (blank as the save rules read it, `isBlank`);
 * - moving a step or sub-step up or down stays within its list; past either end is a
 *   no-op (the editor disables those buttons).
 *
 * A new operation (`newOperation`) allows every edit at once. Editing an existing task
 * (`editOperation`) runs the phases of spec section 4 "Task editing":
 * - add/delete: add and delete processes, steps and sub-steps, move steps and sub-steps;
 *   only the names of items added in this edit can be typed (renaming is the rename phase);
 * - merge: merge one step into another, in any process: its sub-steps are appended to the
 *   target (those the target already has, ignoring whitespace, are dropped) and it
 *   disappears; the last step of a process cannot be merged away ('A process must contain
 *   atleast one step!'), since no later phase could delete the emptied process;
 * - rename: rename processes, steps and sub-steps, nothing else.
 * Forward moves go add/delete → merge or rename, merge → rename; leaving add/delete needs
 * every name filled. Moving forward records the phase's changes in `session.record`;
 * back returns to add/delete with the operation as it was at the end of add/delete and
 * the later phases' records discarded. `changesOf` answers the record including the
 * current phase's changes (what saving sends).
 *
 * Every item has an id, stable across edits (React keys; which items are new). In an
 * edit, an original step's id is its index across processes in the original operation,
 * and ids from `session.firstNewId` on are items added in this edit.
 *
 * Invalid positions and actions the current phase does not allow leave the state as it
 * is (the same object), so nothing here throws.
 */
import type { Operation } from '@/api/generated';
import {
  clean,
  defaultProcessName,
  EMPTY_PROCESS_NAME_MESSAGE,
  EMPTY_STEPS_MESSAGE,
  isBlank,
  MAX_PROCESSES,
  type NameKind,
  PROCESS_WITHOUT_STEP_MESSAGE,
  TOO_MANY_PROCESSES_MESSAGE,
  withoutWhitespace,
} from '@/lib/operation';

export const UNFINISHED_STEP_MESSAGE = 'Please finish the last step first!';
export const UNFINISHED_SUBSTEP_MESSAGE = 'Please finish the last sub-step first!';

export type Phase = 'add-delete' | 'merge' | 'rename';
export const PHASES: readonly Phase[] = ['add-delete', 'merge', 'rename'];

export type DraftSubstep = { id: number; name: string };
export type DraftStep = { id: number; name: string; substeps: DraftSubstep[] };
export type DraftProcess = { id: number; name: string; steps: DraftStep[] };

/** A step by its index across processes and its (cleaned) name. */
export type StepRef = { index: number; name: string };
/** `from` was merged into `into`; indexes in the operation at the end of add/delete. */
export type Merge = { from: StepRef; into: StepRef };
export type Rename = { kind: NameKind; from: string; to: string };

/** What an edit of an existing task changed, phase by phase (spec section 4). */
export type ChangeRecord = {
  /** Steps added, by their index at the end of add/delete. */
  added: StepRef[];
  /** Steps of the original operation deleted, by their original index. */
  deleted: StepRef[];
  merged: Merge[];
  renamed: Rename[];
  /** Anything changed in add/delete: steps, sub-steps or processes added, deleted or moved. */
  is_step_added_and_deleted: boolean;
  is_step_merged: boolean;
  is_step_renamed: boolean;
};

export type EditSession = {
  phase: Phase;
  /** The task's operation before this edit. */
  original: Operation;
  /** Ids from this one on are items added in this edit. */
  firstNewId: number;
  /** The processes at the end of add/delete (what back restores); null in add/delete. */
  checkpoint: DraftProcess[] | null;
  /** The processes when the rename phase began (renames are read against them). */
  renameFrom: DraftProcess[] | null;
  /** The merges of the merge phase, recorded when moving forward. */
  merges: Merge[];
  /** The changes of the phases left forward. */
  record: ChangeRecord;
};

export type EditorState = {
  /** The operation's name (the task name): carried, not edited by the phases. */
  name: string;
  processes: DraftProcess[];
  nextId: number;
  /** Null for a new operation; the phases when editing an existing task. */
  session: EditSession | null;
};

type StepAt = { process: number; step: number };
type SubstepAt = StepAt & { substep: number };
type Direction = -1 | 1;

export type EditorAction =
  | { type: 'set-name'; name: string }
  | { type: 'add-process' }
  | { type: 'add-step'; process: number }
  | ({ type: 'add-substep' } & StepAt)
  | { type: 'rename-process'; process: number; name: string }
  | ({ type: 'rename-step'; name: string } & StepAt)
  | ({ type: 'rename-substep'; name: string } & SubstepAt)
  | { type: 'delete-process'; process: number }
  | ({ type: 'delete-step' } & StepAt)
  | ({ type: 'delete-substep' } & SubstepAt)
  | ({ type: 'move-step'; by: Direction } & StepAt)
  | ({ type: 'move-substep'; by: Direction } & SubstepAt)
  | { type: 'merge-step'; from: StepAt; into: StepAt }
  | { type: 'next'; to: 'merge' | 'rename' }
  | { type: 'back' };

export type EditorResult = { ok: true; state: EditorState } | { ok: false; message: string };

const emptyRecord = (): ChangeRecord => ({
  added: [],
  deleted: [],
  merged: [],
  renamed: [],
  is_step_added_and_deleted: false,
  is_step_merged: false,
  is_step_renamed: false,
});

/** Drafts of `op`'s processes with ids: steps first (0, 1, … across processes), then the rest. */
function draft(op: Operation): { processes: DraftProcess[]; nextId: number } {
  let stepId = 0;
  let next = op.processes.reduce((n, p) => n + p.steps.length, 0);
  const processes = op.processes.map((p) => ({
    id: next++,
    name: p.name,
    steps: p.steps.map((s) => ({ id: stepId++, name: s.name, substeps: s.substeps.map((name) => ({ id: next++, name })) })),
  }));
  return { processes, nextId: next };
}

/** The editor for a new operation (every edit allowed). */
export function newOperation(op: Operation = { name: '', processes: [] }): EditorState {
  return { name: op.name, ...draft(op), session: null };
}

/** The editor for an existing task's operation, in the add/delete phase. */
export function editOperation(op: Operation): EditorState {
  const d = draft(op);
  return {
    name: op.name,
    ...d,
    session: {
      phase: 'add-delete',
      original: structuredClone(op),
      firstNewId: d.nextId,
      checkpoint: null,
      renameFrom: null,
      merges: [],
      record: emptyRecord(),
    },
  };
}

const toProcesses = (ps: DraftProcess[]) =>
  ps.map((p) => ({ name: p.name, steps: p.steps.map((s) => ({ name: s.name, substeps: s.substeps.map((n) => n.name) })) }));

/** The operation the editor holds (names as typed; `print` and the server clean them). */
export function operationOf(state: EditorState): Operation {
  return { name: state.name, processes: toProcesses(state.processes) };
}

/** What the current mode allows: adding, deleting and moving; merging; which names can be typed. */
export function allowed(state: EditorState): { structure: boolean; merge: boolean; rename: 'all' | 'new' | 'none' } {
  const phase = state.session?.phase;
  return {
    structure: phase === undefined || phase === 'add-delete',
    merge: phase === 'merge',
    rename: phase === undefined || phase === 'rename' ? 'all' : phase === 'add-delete' ? 'new' : 'none',
  };
}

/** Whether the name of item `id` can be typed now. */
export function canRename(state: EditorState, id: number): boolean {
  const r = allowed(state).rename;
  return r === 'all' || (r === 'new' && id >= (state.session?.firstNewId ?? 0));
}

/** Every step with its position and its index across processes. */
export function stepList(processes: DraftProcess[]): (StepAt & { index: number; id: number; name: string })[] {
  let index = 0;
  return processes.flatMap((p, process) => p.steps.map((s, step) => ({ process, step, index: index++, id: s.id, name: s.name })));
}

const stepIndexOf = (processes: DraftProcess[], id: number) => stepList(processes).find((s) => s.id === id)?.index ?? -1;

function addDeleteChanges(session: EditSession, processes: DraftProcess[]): ChangeRecord {
  const originalSteps = session.original.processes.flatMap((p) => p.steps);
  const steps = stepList(processes);
  const kept = new Set(steps.map((s) => s.id));
  const added = steps.filter((s) => s.id >= session.firstNewId).map((s) => ({ index: s.index, name: clean(s.name) }));
  const deleted = originalSteps.flatMap((s, index) => (kept.has(index) ? [] : [{ index, name: clean(s.name) }]));
  const changed = JSON.stringify(toProcesses(processes)) !== JSON.stringify(toProcesses(draft(session.original).processes));
  return { ...emptyRecord(), added, deleted, is_step_added_and_deleted: changed };
}

function renamesBetween(before: DraftProcess[], after: DraftProcess[]): Rename[] {
  const old = new Map<number, string>();
  for (const p of before) {
    old.set(p.id, p.name);
    for (const s of p.steps) {
      old.set(s.id, s.name);
      for (const n of s.substeps) old.set(n.id, n.name);
    }
  }
  const out: Rename[] = [];
  const note = (kind: NameKind, id: number, name: string) => {
    const from = old.get(id);
    if (from !== undefined && clean(from) !== clean(name)) out.push({ kind, from: clean(from), to: clean(name) });
  };
  for (const p of after) {
    note('process', p.id, p.name);
    for (const s of p.steps) {
      note('step', s.id, s.name);
      for (const n of s.substeps) note('substep', n.id, n.name);
    }
  }
  return out;
}

/** The changes of this edit so far, the current phase's included; null for a new operation. */
export function changesOf(state: EditorState): ChangeRecord | null {
  const session = state.session;
  if (!session) return null;
  switch (session.phase) {
    case 'add-delete':
      return addDeleteChanges(session, state.processes);
    case 'merge':
      return { ...session.record, merged: session.merges, is_step_merged: session.merges.length > 0 };
    case 'rename': {
      const renamed = renamesBetween(session.renameFrom ?? [], state.processes);
      return { ...session.record, renamed, is_step_renamed: renamed.length > 0 };
    }
  }
}

const ok = (state: EditorState): EditorResult => ({ ok: true, state });
const refuse = (message: string): EditorResult => ({ ok: false, message });

/** The first `Process {n}` not taken, from the new process's position on. */
function freeProcessName(processes: DraftProcess[]): string {
  const taken = new Set(processes.map((p) => clean(p.name)));
  let n = processes.length + 1;
  while (taken.has(defaultProcessName(n))) n += 1;
  return defaultProcessName(n);
}

/** Swaps `list[i]` with its neighbour `by` away, or answers null past either end. */
function moved<T>(list: T[], i: number, by: Direction): T[] | null {
  const j = i + by;
  const a = list[i];
  const b = list[j];
  if (a === undefined || b === undefined) return null;
  const out = [...list];
  out[i] = b;
  out[j] = a;
  return out;
}

/** Applies `action` to `state`: the next state, or why it is refused. */
export function edit(state: EditorState, action: EditorAction): EditorResult {
  const can = allowed(state);
  const ps = state.processes;
  const withProcesses = (processes: DraftProcess[], nextId = state.nextId) => ok({ ...state, processes, nextId });
  const setProcess = (i: number, p: DraftProcess) => ps.map((q, k) => (k === i ? p : q));
  const setStep = (at: StepAt, s: DraftStep) => {
    const p = ps[at.process]!;
    return setProcess(at.process, { ...p, steps: p.steps.map((t, k) => (k === at.step ? s : t)) });
  };
  const stepOf = (at: StepAt) => ps[at.process]?.steps[at.step];
  const unchanged = ok(state);

  switch (action.type) {
    case 'set-name':
      return ok({ ...state, name: action.name });

    case 'add-process': {
      if (!can.structure) return unchanged;
      if (ps.length >= MAX_PROCESSES) return refuse(TOO_MANY_PROCESSES_MESSAGE);
      return withProcesses([...ps, { id: state.nextId, name: freeProcessName(ps), steps: [] }], state.nextId + 1);
    }
    case 'add-step': {
      const p = ps[action.process];
      if (!can.structure || !p) return unchanged;
      const last = p.steps[p.steps.length - 1];
      if (last && isBlank(last.name)) return refuse(UNFINISHED_STEP_MESSAGE);
      const step = { id: state.nextId, name: '', substeps: [] };
      return withProcesses(setProcess(action.process, { ...p, steps: [...p.steps, step] }), state.nextId + 1);
    }
    case 'add-substep': {
      const s = stepOf(action);
      if (!can.structure || !s) return unchanged;
      const last = s.substeps[s.substeps.length - 1];
      if (last && isBlank(last.name)) return refuse(UNFINISHED_SUBSTEP_MESSAGE);
      return withProcesses(setStep(action, { ...s, substeps: [...s.substeps, { id: state.nextId, name: '' }] }), state.nextId + 1);
    }

    case 'rename-process': {
      const p = ps[action.process];
      if (!p || !canRename(state, p.id)) return unchanged;
      return withProcesses(setProcess(action.process, { ...p, name: action.name }));
    }
    case 'rename-step': {
      const s = stepOf(action);
      if (!s || !canRename(state, s.id)) return unchanged;
      return withProcesses(setStep(action, { ...s, name: action.name }));
    }
    case 'rename-substep': {
      const s = stepOf(action);
      const n = s?.substeps[action.substep];
      if (!s || !n || !canRename(state, n.id)) return unchanged;
      const substeps = s.substeps.map((m, k) => (k === action.substep ? { ...m, name: action.name } : m));
      return withProcesses(setStep(action, { ...s, substeps }));
    }

    case 'delete-process':
      if (!can.structure || !ps[action.process]) return unchanged;
      return withProcesses(ps.filter((_, k) => k !== action.process));
    case 'delete-step': {
      const p = ps[action.process];
      if (!can.structure || !p?.steps[action.step]) return unchanged;
      return withProcesses(setProcess(action.process, { ...p, steps: p.steps.filter((_, k) => k !== action.step) }));
    }
    case 'delete-substep': {
      const s = stepOf(action);
      if (!can.structure || !s?.substeps[action.substep]) return unchanged;
      return withProcesses(setStep(action, { ...s, substeps: s.substeps.filter((_, k) => k !== action.substep) }));
    }

    case 'move-step': {
      const p = ps[action.process];
      const steps = p && can.structure ? moved(p.steps, action.step, action.by) : null;
      return p && steps ? withProcesses(setProcess(action.process, { ...p, steps })) : unchanged;
    }
    case 'move-substep': {
      const s = stepOf(action);
      const substeps = s && can.structure ? moved(s.substeps, action.substep, action.by) : null;
      return s && substeps ? withProcesses(setStep(action, { ...s, substeps })) : unchanged;
    }

    case 'merge-step':
      return merge(state, action.from, action.into);
    case 'next':
      return forward(state, action.to);
    case 'back':
      return back(state);
  }
}

function merge(state: EditorState, from: StepAt, into: StepAt): EditorResult {
  const session = state.session;
  const source = state.processes[from.process]?.steps[from.step];
  const target = state.processes[into.process]?.steps[into.step];
  if (session?.phase !== 'merge' || !source || !target || source === target) return { ok: true, state };
  // Nothing after add/delete could delete the process a merge emptied.
  if (state.processes[from.process]?.steps.length === 1) return refuse(PROCESS_WITHOUT_STEP_MESSAGE);
  const have = new Set(target.substeps.map((n) => withoutWhitespace(n.name)));
  const appended = source.substeps.filter((n) => {
    const key = withoutWhitespace(n.name);
    if (have.has(key)) return false;
    have.add(key);
    return true;
  });
  const merged = { ...target, substeps: [...target.substeps, ...appended] };
  const processes = state.processes.map((p, i) => ({
    ...p,
    steps: p.steps.flatMap((s, j) => (i === from.process && j === from.step ? [] : i === into.process && j === into.step ? [merged] : [s])),
  }));
  const checkpoint = session.checkpoint ?? [];
  const ref = (s: DraftStep) => ({ index: stepIndexOf(checkpoint, s.id), name: clean(s.name) });
  return {
    ok: true,
    state: { ...state, processes, session: { ...session, merges: [...session.merges, { from: ref(source), into: ref(target) }] } },
  };
}

function forward(state: EditorState, to: 'merge' | 'rename'): EditorResult {
  const session = state.session;
  if (!session) return { ok: true, state };
  const ps = state.processes;
  if (session.phase === 'add-delete') {
    if (ps.some((p) => p.steps.some((s) => isBlank(s.name) || s.substeps.some((n) => isBlank(n.name))))) {
      return refuse(EMPTY_STEPS_MESSAGE);
    }
    if (ps.some((p) => isBlank(p.name))) return refuse(EMPTY_PROCESS_NAME_MESSAGE);
    const record = addDeleteChanges(session, ps);
    return ok({
      ...state,
      session: { ...session, phase: to, checkpoint: ps, renameFrom: to === 'rename' ? ps : null, merges: [], record },
    });
  }
  if (session.phase === 'merge' && to === 'rename') {
    const record = { ...session.record, merged: session.merges, is_step_merged: session.merges.length > 0 };
    return ok({ ...state, session: { ...session, phase: 'rename', renameFrom: ps, record } });
  }
  return { ok: true, state };
}

function back(state: EditorState): EditorResult {
  const session = state.session;
  if (!session || session.phase === 'add-delete') return { ok: true, state };
  return ok({
    ...state,
    processes: session.checkpoint ?? state.processes,
    session: {
      ...session,
      phase: 'add-delete',
      checkpoint: null,
      renameFrom: null,
      merges: [],
      record: { ...session.record, merged: [], renamed: [], is_step_merged: false, is_step_renamed: false },
    },
  });
}
