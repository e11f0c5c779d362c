import type { Task } from '@/api/generated';

import { carriedSettings, changeSummary } from './changes';
import { edit, type EditorAction, editOperation, type EditorState, newOperation } from './editor';
import { FakeTasks, PUMP } from './fixtures';

/** The task with the given settings (steps: 0 Fit housing, 1 Check seal | 2 Pack). */
function pump(settings: Parameters<FakeTasks['add']>[2] = {}): Task {
  return new FakeTasks().add('Assemble pump', PUMP, settings);
}

/** `actions` applied in order to an edit of `task`'s operation; each must be accepted. */
function edited(task: Task, ...actions: EditorAction[]): EditorState {
  return actions.reduce((s, a) => {
    const r = edit(s, a);
    if (!r.ok) throw new Error(r.message);
    return r.state;
  }, editOperation({ name: task.taskName, processes: task.processes }));
}

test('an unchanged operation carries nothing; a new operation has no settings to carry', () => {
  const task = pump({ settings: { negativeSteps: [2], optional_steps: [0] } });
  expect(carriedSettings(task, edited(task))).toEqual({});
  expect(carriedSettings(task, newOperation())).toEqual({});
  expect(changeSummary(edited(task))).toBeNull();
  expect(changeSummary(newOperation())).toBeNull();
});

test('indexes follow their steps when a step above is deleted or steps move', () => {
  const task = pump({ settings: { negativeSteps: [2], optional_steps: [0, 1], similarSteps: [[0, 2], [1, 2]] } });
  const deleted = edited(task, { type: 'delete-step', process: 0, step: 0 });
  expect(carriedSettings(task, deleted)).toEqual({
    negativeSteps: [1],
    optional_steps: [0],
    similarSteps: [[0, 1]],
    required_steps_for_start: { 0: [0] },
  });
  expect(changeSummary(deleted)).toBe('1 step deleted');

  const moved = edited(task, { type: 'move-step', process: 0, step: 0, by: 1 });
  // The same steps are optional and start a cycle; the groups name them by their new places.
  expect(carriedSettings(task, moved)).toEqual({ similarSteps: [[1, 2], [0, 2]] });
  expect(changeSummary(moved)).toBe('sub-steps, processes or order changed');
});

test('process keys follow their processes; a deleted process takes its entry along', () => {
  const task = pump({
    settings: {
      taskParameters: {
        ...pump().taskParameters,
        telemetryParams: { ...pump().taskParameters.telemetryParams, required_steps_for_start: { 0: [0], 1: [2] }, required_steps_for_end: { 0: [1], 1: [] } },
      },
    },
  });
  const s = edited(task, { type: 'delete-process', process: 0 });
  expect(carriedSettings(task, s)).toEqual({ required_steps_for_start: { 0: [0] }, required_steps_for_end: { 0: [] } });
});

test('a merged-away step loses its indexes; a renamed one keeps its translation, a swap included', () => {
  const task = pump({
    settings: {
      negativeSteps: [1, 2],
      translation: { 'Check seal': 'Dichtung prüfen', 'Fit housing': 'Gehäuse einsetzen', Pack: 'Verpacken', 'Put in box': 'In die Kiste' },
      translation_name: 'Deutsch',
    },
  });
  const s = edited(
    task,
    { type: 'next', to: 'merge' },
    { type: 'merge-step', from: { process: 0, step: 1 }, into: { process: 0, step: 0 } },
    { type: 'next', to: 'rename' },
    // Swap the names of the two remaining steps, and rename a sub-step.
    { type: 'rename-step', process: 0, step: 0, name: 'Pack' },
    { type: 'rename-step', process: 1, step: 0, name: ' Fit housing ' },
    { type: 'rename-substep', process: 1, step: 0, substep: 0, name: 'Put in crate' },
  );
  expect(carriedSettings(task, s)).toEqual({
    negativeSteps: [1],
    required_steps_for_start: { 0: [0] },
    translation: { Pack: 'Gehäuse einsetzen', 'Fit housing': 'Verpacken', 'Put in crate': 'In die Kiste' },
    translation_name: 'Deutsch',
  });
  expect(changeSummary(s)).toBe('1 step merged, 3 names changed');
});

test('a translation whose every name went is sent empty (deleting it), without its language', () => {
  const task = pump({ settings: { translation: { Pack: 'Verpacken' }, translation_name: 'Deutsch' } });
  const s = edited(task, { type: 'delete-step', process: 1, step: 0 }, { type: 'add-step', process: 1 }, { type: 'rename-step', process: 1, step: 0, name: 'Box' });
  expect(carriedSettings(task, s).translation).toEqual({});
  expect(carriedSettings(task, s).translation_name).toBeUndefined();
  expect(changeSummary(s)).toBe('1 step added, 1 step deleted');
});
