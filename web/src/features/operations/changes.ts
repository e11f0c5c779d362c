/**
 * Saving an edit of an existing task's operation: what else the patch carries, and what
 * the edit changed in words.
 *
 * The task's other settings name steps by their index across processes (negative,
 * optional and similar steps, the start and end steps per process) and by their English
 * name (the translation). The server only drops indexes past the new end and names that
 * are gone (`prune`), so an index would silently name another step after a step above
 * it was deleted or moved. The editor knows where every original step went (an original
 * step's id is its original index, `editor.ts`), so the portal sends these settings
 * moved along: each index follows its step, a deleted or merged-away step's index is
 * dropped, a process key follows its process, and a renamed step or sub-step keeps its
 * translation under the new name.
 */
import type { Task } from '@/api/generated';
import { clean } from '@/lib/operation';

import type { TaskChanges } from './api/tasks';
import { changesOf, editOperation, type EditorState, operationOf, stepList } from './editor';
import { translatableNames } from './rules';

type StepsByProcess = Task['required_steps_for_start'];

/** Old index → new index, for the original items still there. */
type IndexMap = Map<number, number>;

const remap = (list: readonly number[], map: IndexMap) =>
  [...new Set(list.flatMap((i) => (map.has(i) ? [map.get(i)!] : [])))].sort((a, b) => a - b);

function remapByProcess(byProcess: StepsByProcess, processes: IndexMap, steps: IndexMap): StepsByProcess {
  const out: StepsByProcess = {};
  for (const [key, list] of Object.entries(byProcess)) {
    const to = processes.get(Number(key));
    if (to !== undefined && list) out[to] = remap(list, steps);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The settings of `task` that name steps, moved along with the edit `state` (an
 * `editOperation` of the task's operation); only those that change.
 */
export function carriedSettings(task: Task, state: EditorState): TaskChanges {
  const session = state.session;
  if (!session) return {};
  // Original step i has id i; original processes have the ids a fresh edit gives them.
  const steps: IndexMap = new Map(stepList(state.processes).flatMap((s) => (s.id < session.firstNewId ? [[s.id, s.index] as const] : [])));
  const originalIds = editOperation(session.original).processes.map((p) => p.id);
  const processes: IndexMap = new Map(
    originalIds.flatMap((id, i) => {
      const to = state.processes.findIndex((p) => p.id === id);
      return to < 0 ? [] : [[i, to] as const];
    }),
  );

  const out: TaskChanges = {};
  const negative = remap(task.negativeSteps, steps);
  if (!same(negative, task.negativeSteps)) out.negativeSteps = negative;
  const optional = remap(task.optional_steps, steps);
  if (!same(optional, task.optional_steps)) out.optional_steps = optional;
  const similar = task.similarSteps.map((g) => remap(g, steps)).filter((g) => g.length > 1);
  if (!same(similar, task.similarSteps)) out.similarSteps = similar;
  const t = task.taskParameters.telemetryParams;
  const start = remapByProcess(t.required_steps_for_start, processes, steps);
  if (!same(start, t.required_steps_for_start)) out.required_steps_for_start = start;
  const end = remapByProcess(t.required_steps_for_end, processes, steps);
  if (!same(end, t.required_steps_for_end)) out.required_steps_for_end = end;

  if (Object.keys(task.translation).length > 0) {
    const renamed = new Map<string, string>();
    for (const r of changesOf(state)?.renamed ?? []) {
      if (r.kind !== 'process' && !renamed.has(r.from)) renamed.set(r.from, r.to);
    }
    const names = new Set(translatableNames(operationOf(state)).map((n) => n.name));
    const translation: Record<string, string> = {};
    for (const [from, to] of Object.entries(task.translation)) {
      const name = renamed.get(from) ?? from;
      if (names.has(name) && !(name in translation)) translation[name] = to;
    }
    if (!same(translation, task.translation)) {
      out.translation = translation;
      // An empty translation deletes it (and its language) on the server.
      if (Object.keys(translation).length > 0 && task.translation_name) out.translation_name = task.translation_name;
    }
  }
  return out;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The edit so far in words: "1 step added, 1 step merged, 2 names changed", or null. */
export function changeSummary(state: EditorState): string | null {
  const c = changesOf(state);
  if (!c) return null;
  const parts: string[] = [];
  if (c.added.length) parts.push(`${count(c.added.length, 'step', 'steps')} added`);
  if (c.deleted.length) parts.push(`${count(c.deleted.length, 'step', 'steps')} deleted`);
  if (c.is_step_added_and_deleted && !c.added.length && !c.deleted.length) parts.push('sub-steps, processes or order changed');
  if (c.merged.length) parts.push(`${count(c.merged.length, 'step', 'steps')} merged`);
  if (c.renamed.length) parts.push(`${count(c.renamed.length, 'name', 'names')} changed`);
  return parts.length ? parts.join(', ') : null;
}

/** Whether `name` (typed) is the task's name as the server keeps it. */
export const sameName = (task: Task, name: string) => clean(name) === task.taskName;
