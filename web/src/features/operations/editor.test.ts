import { validate } from '@/lib/operation';
import { PUMP_OPERATION } from '@/testing/operation';

import {
  changesOf,
  canRename,
  edit,
  type EditorAction,
  type EditorState,
  editOperation,
  newOperation,
  operationOf,
} from './editor';

/** Applies `actions` in turn, failing the test on a refusal. */
function run(state: EditorState, ...actions: EditorAction[]): EditorState {
  return actions.reduce((s, a) => {
    const r = edit(s, a);
    if (!r.ok) throw new Error(`${a.type} refused: ${r.message}`);
    return r.state;
  }, state);
}

/** The message refusing `action`, or null when it is applied. */
function refusal(state: EditorState, action: EditorAction): string | null {
  const r = edit(state, action);
  return r.ok ? null : r.message;
}

const stepNames = (s: EditorState) => operationOf(s).processes.map((p) => p.steps.map((t) => t.name));
const substeps = (s: EditorState, p: number, i: number) => operationOf(s).processes[p]?.steps[i]?.substeps;

describe('a new operation', () => {
  test('is built by adding a process, its steps and their sub-steps, and then passes the save rules', () => {
    const s = run(
      newOperation(),
      { type: 'set-name', name: 'Op' },
      { type: 'add-process' },
      { type: 'add-step', process: 0 },
      { type: 'rename-step', process: 0, step: 0, name: 'Fit' },
      { type: 'add-substep', process: 0, step: 0 },
      { type: 'rename-substep', process: 0, step: 0, substep: 0, name: 'Place' },
    );
    expect(operationOf(s)).toEqual({ name: 'Op', processes: [{ name: 'Process 1', steps: [{ name: 'Fit', substeps: ['Place'] }] }] });
    expect(validate(operationOf(s))).toBeNull();
    expect(changesOf(s)).toBeNull();
  });

  test('reads back the operation it starts from', () => {
    expect(operationOf(newOperation(PUMP_OPERATION))).toEqual(PUMP_OPERATION);
    expect(operationOf(newOperation())).toEqual({ name: '', processes: [] });
  });

  test('holds at most 2 processes', () => {
    const two = run(newOperation(), { type: 'add-process' }, { type: 'add-process' });
    expect(operationOf(two).processes.map((p) => p.name)).toEqual(['Process 1', 'Process 2']);
    expect(refusal(two, { type: 'add-process' })).toBe('An operation can contain at most 2 process!');
  });

  test('names a new process with the first free default name', () => {
    const s = run(newOperation(PUMP_OPERATION), { type: 'delete-process', process: 0 }, { type: 'add-process' });
    expect(operationOf(s).processes.map((p) => p.name)).toEqual(['Process 2', 'Process 3']);
  });

  test('refuses a step while the last step of that process has no name', () => {
    const s = run(newOperation(PUMP_OPERATION), { type: 'add-step', process: 0 });
    expect(stepNames(s)[0]).toEqual(['Fit housing', 'Check seal', '']);
    expect(refusal(s, { type: 'add-step', process: 0 })).toBe('Please finish the last step first!');
    // Blank is as the save rules read it: whitespace and byte-order marks only.
    const spaces = run(s, { type: 'rename-step', process: 0, step: 2, name: ' \u00A0\uFEFF' });
    expect(refusal(spaces, { type: 'add-step', process: 0 })).toBe('Please finish the last step first!');
    // The other process is not held up.
    expect(refusal(s, { type: 'add-step', process: 1 })).toBeNull();
    const named = run(s, { type: 'rename-step', process: 0, step: 2, name: 'Label' });
    expect(refusal(named, { type: 'add-step', process: 0 })).toBeNull();
  });

  test('refuses a sub-step while the last sub-step of that step is blank', () => {
    const s = run(newOperation(PUMP_OPERATION), { type: 'add-substep', process: 0, step: 1 });
    expect(substeps(s, 0, 1)).toEqual(['Inspect seal', '']);
    expect(refusal(s, { type: 'add-substep', process: 0, step: 1 })).toBe('Please finish the last sub-step first!');
    expect(refusal(s, { type: 'add-substep', process: 0, step: 0 })).toBeNull();
    const filled = run(s, { type: 'rename-substep', process: 0, step: 1, substep: 1, name: 'Wipe' });
    expect(refusal(filled, { type: 'add-substep', process: 0, step: 1 })).toBeNull();
    // A step's first sub-step needs nothing before it.
    const fresh = run(newOperation(), { type: 'add-process' }, { type: 'add-step', process: 0 });
    expect(refusal(fresh, { type: 'add-substep', process: 0, step: 0 })).toBeNull();
  });

  test('renames processes, steps and sub-steps, keeping what is typed', () => {
    const s = run(
      newOperation(PUMP_OPERATION),
      { type: 'rename-process', process: 1, name: 'Packing ' },
      { type: 'rename-step', process: 1, step: 0, name: 'Box it' },
      { type: 'rename-substep', process: 0, step: 0, substep: 1, name: ' Screw' },
    );
    expect(operationOf(s).processes[1]).toEqual({ name: 'Packing ', steps: [{ name: 'Box it', substeps: ['Put in box'] }] });
    expect(substeps(s, 0, 0)).toEqual(['Place housing', ' Screw']);
  });

  test('deletes processes, steps and sub-steps', () => {
    const s = run(
      newOperation(PUMP_OPERATION),
      { type: 'delete-substep', process: 0, step: 0, substep: 0 },
      { type: 'delete-step', process: 0, step: 1 },
      { type: 'delete-process', process: 1 },
    );
    expect(operationOf(s).processes).toEqual([{ name: 'Pre-assembly', steps: [{ name: 'Fit housing', substeps: ['Tighten screws'] }] }]);
  });

  test('moves steps and sub-steps within their list; past either end nothing changes', () => {
    const start = newOperation(PUMP_OPERATION);
    const down = run(start, { type: 'move-step', process: 0, step: 0, by: 1 });
    expect(stepNames(down)).toEqual([['Check seal', 'Fit housing'], ['Pack']]);
    expect(stepNames(run(down, { type: 'move-step', process: 0, step: 1, by: -1 }))).toEqual(stepNames(start));
    const sub = run(start, { type: 'move-substep', process: 0, step: 0, substep: 1, by: -1 });
    expect(substeps(sub, 0, 0)).toEqual(['Tighten screws', 'Place housing']);

    for (const a of [
      { type: 'move-step', process: 0, step: 0, by: -1 },
      { type: 'move-step', process: 0, step: 1, by: 1 },
      { type: 'move-step', process: 1, step: 0, by: 1 },
      { type: 'move-substep', process: 0, step: 0, substep: 0, by: -1 },
      { type: 'move-substep', process: 0, step: 0, substep: 1, by: 1 },
    ] as const) {
      expect(edit(start, a)).toEqual({ ok: true, state: start });
      expect((edit(start, a) as { state: EditorState }).state).toBe(start);
    }
  });

  test('keeps each item\'s id across moves, for stable keys', () => {
    const start = newOperation(PUMP_OPERATION);
    const ids = (s: EditorState) => s.processes[0]!.steps.map((t) => t.id);
    const [a, b] = ids(start);
    expect(ids(run(start, { type: 'move-step', process: 0, step: 0, by: 1 }))).toEqual([b, a]);
    const added = run(start, { type: 'add-step', process: 1 });
    const all = added.processes.flatMap((p) => [p.id, ...p.steps.flatMap((t) => [t.id, ...t.substeps.map((n) => n.id)])]);
    expect(new Set(all).size).toBe(all.length);
  });

  test('ignores positions that do not exist', () => {
    const start = newOperation(PUMP_OPERATION);
    for (const a of [
      { type: 'add-step', process: 5 },
      { type: 'add-substep', process: 0, step: 9 },
      { type: 'rename-step', process: 1, step: 3, name: 'x' },
      { type: 'delete-substep', process: 0, step: 0, substep: 7 },
      { type: 'delete-process', process: -1 },
      { type: 'move-step', process: 3, step: 0, by: 1 },
    ] as const) {
      expect((edit(start, a) as { state: EditorState }).state).toBe(start);
    }
  });

  test('has no phases: merging and moving between phases do nothing', () => {
    const start = newOperation(PUMP_OPERATION);
    for (const a of [
      { type: 'next', to: 'merge' },
      { type: 'back' },
      { type: 'merge-step', from: { process: 0, step: 0 }, into: { process: 0, step: 1 } },
    ] as const) {
      expect((edit(start, a) as { state: EditorState }).state).toBe(start);
    }
  });
});

describe('editing an existing task', () => {
  const start = () => editOperation(PUMP_OPERATION);
  const phase = (s: EditorState) => s.session?.phase;

  test('starts in add/delete, where only new items can be renamed', () => {
    const s = run(start(), { type: 'add-step', process: 1 }, { type: 'rename-step', process: 1, step: 1, name: 'Label' });
    expect(phase(s)).toBe('add-delete');
    expect(stepNames(s)[1]).toEqual(['Pack', 'Label']);
    // Existing names stay.
    for (const a of [
      { type: 'rename-step', process: 0, step: 0, name: 'x' },
      { type: 'rename-substep', process: 0, step: 0, substep: 0, name: 'x' },
      { type: 'rename-process', process: 0, name: 'x' },
    ] as const) {
      expect((edit(s, a) as { state: EditorState }).state).toBe(s);
    }
    expect(canRename(s, s.processes[0]!.steps[0]!.id)).toBe(false);
    expect(canRename(s, s.processes[1]!.steps[1]!.id)).toBe(true);
    // Adding, deleting and moving follow the same rules as for a new operation.
    expect(refusal(run(s, { type: 'add-step', process: 0 }), { type: 'add-step', process: 0 })).toBe('Please finish the last step first!');
    expect(refusal(s, { type: 'add-process' })).toBe('An operation can contain at most 2 process!');
    expect(stepNames(run(s, { type: 'move-step', process: 1, step: 1, by: -1 }))[1]).toEqual(['Label', 'Pack']);
  });

  test('moving forward records what add/delete changed', () => {
    const s = run(
      start(),
      { type: 'delete-step', process: 0, step: 0 },
      { type: 'add-step', process: 1 },
      { type: 'rename-step', process: 1, step: 1, name: ' Label ' },
      { type: 'add-substep', process: 1, step: 1 },
      { type: 'rename-substep', process: 1, step: 1, substep: 0, name: 'Stick label' },
      { type: 'next', to: 'merge' },
    );
    expect(phase(s)).toBe('merge');
    expect(s.session?.record).toEqual({
      added: [{ index: 2, name: 'Label' }],
      deleted: [{ index: 0, name: 'Fit housing' }],
      merged: [],
      renamed: [],
      is_step_added_and_deleted: true,
      is_step_merged: false,
      is_step_renamed: false,
    });
  });

  test('moving only a sub-step is a change of add/delete too; changing nothing is none', () => {
    const moved = run(start(), { type: 'move-substep', process: 0, step: 0, substep: 0, by: 1 }, { type: 'next', to: 'rename' });
    expect(moved.session?.record).toMatchObject({ added: [], deleted: [], is_step_added_and_deleted: true });
    const none = run(start(), { type: 'next', to: 'merge' });
    expect(none.session?.record.is_step_added_and_deleted).toBe(false);
    // Adding a step and deleting it again leaves nothing either.
    const undone = run(start(), { type: 'add-step', process: 0 }, { type: 'delete-step', process: 0, step: 2 }, { type: 'next', to: 'merge' });
    expect(undone.session?.record.is_step_added_and_deleted).toBe(false);
  });

  test('cannot leave add/delete with a blank name', () => {
    const blankStep = run(start(), { type: 'add-step', process: 0 });
    expect(refusal(blankStep, { type: 'next', to: 'merge' })).toBe('Please fill the empty steps!');
    const blankSub = run(start(), { type: 'add-substep', process: 0, step: 0 });
    expect(refusal(blankSub, { type: 'next', to: 'rename' })).toBe('Please fill the empty steps!');
    const blankProcess = run(
      start(),
      { type: 'delete-process', process: 1 },
      { type: 'add-process' },
      { type: 'rename-process', process: 1, name: '  ' },
    );
    expect(refusal(blankProcess, { type: 'next', to: 'merge' })).toBe('Please fill the empty process names!');
  });

  test('forward moves: add/delete to merge or rename, merge to rename; rename is the last', () => {
    expect(phase(run(start(), { type: 'next', to: 'merge' }))).toBe('merge');
    expect(phase(run(start(), { type: 'next', to: 'rename' }))).toBe('rename');
    const merging = run(start(), { type: 'next', to: 'merge' });
    expect(phase(run(merging, { type: 'next', to: 'rename' }))).toBe('rename');
    expect((edit(merging, { type: 'next', to: 'merge' }) as { state: EditorState }).state).toBe(merging);
    const renaming = run(merging, { type: 'next', to: 'rename' });
    expect((edit(renaming, { type: 'next', to: 'rename' }) as { state: EditorState }).state).toBe(renaming);
    expect((edit(start(), { type: 'back' }) as { state: EditorState }).state.session?.phase).toBe('add-delete');
  });

  test("merge: the merged step's sub-steps go to the target and the step disappears", () => {
    const s = run(
      start(),
      { type: 'next', to: 'merge' },
      { type: 'merge-step', from: { process: 0, step: 1 }, into: { process: 0, step: 0 } },
    );
    expect(stepNames(s)).toEqual([['Fit housing'], ['Pack']]);
    expect(substeps(s, 0, 0)).toEqual(['Place housing', 'Tighten screws', 'Inspect seal']);
    // Across processes too; a sub-step the target has already (ignoring spaces) is not repeated.
    const across = run(
      editOperation({
        name: 'Op',
        processes: [
          { name: 'P1', steps: [{ name: 'A', substeps: ['a b', 'c'] }] },
          { name: 'P2', steps: [{ name: 'B', substeps: ['ab', 'd'] }, { name: 'C', substeps: ['e'] }] },
        ],
      }),
      { type: 'next', to: 'merge' },
      { type: 'merge-step', from: { process: 1, step: 0 }, into: { process: 0, step: 0 } },
    );
    expect(operationOf(across).processes).toEqual([
      { name: 'P1', steps: [{ name: 'A', substeps: ['a b', 'c', 'd'] }] },
      { name: 'P2', steps: [{ name: 'C', substeps: ['e'] }] },
    ]);
    // The last step of a process cannot be merged away: no later phase could delete the process.
    expect(refusal(across, { type: 'merge-step', from: { process: 1, step: 0 }, into: { process: 0, step: 0 } })).toBe(
      'A process must contain atleast one step!',
    );
    expect(refusal(s, { type: 'merge-step', from: { process: 1, step: 0 }, into: { process: 0, step: 0 } })).toBe(
      'A process must contain atleast one step!',
    );
  });

  test('merge is the only edit of the merge phase, and a step cannot merge into itself', () => {
    const s = run(start(), { type: 'next', to: 'merge' });
    for (const a of [
      { type: 'add-step', process: 0 },
      { type: 'add-process' },
      { type: 'delete-step', process: 0, step: 0 },
      { type: 'move-step', process: 0, step: 0, by: 1 },
      { type: 'rename-step', process: 0, step: 0, name: 'x' },
      { type: 'merge-step', from: { process: 0, step: 0 }, into: { process: 0, step: 0 } },
      { type: 'merge-step', from: { process: 0, step: 0 }, into: { process: 3, step: 0 } },
    ] as const) {
      expect((edit(s, a) as { state: EditorState }).state).toBe(s);
    }
  });

  test('moving forward from merge records the merges, by their index at the end of add/delete', () => {
    const s = run(
      start(),
      { type: 'add-step', process: 1 },
      { type: 'rename-step', process: 1, step: 1, name: 'Label' },
      { type: 'add-substep', process: 1, step: 1 },
      { type: 'rename-substep', process: 1, step: 1, substep: 0, name: 'Stick label' },
      { type: 'next', to: 'merge' },
      { type: 'merge-step', from: { process: 1, step: 1 }, into: { process: 0, step: 1 } },
      { type: 'merge-step', from: { process: 0, step: 0 }, into: { process: 1, step: 0 } },
    );
    expect(operationOf(s).processes).toEqual([
      { name: 'Pre-assembly', steps: [{ name: 'Check seal', substeps: ['Inspect seal', 'Stick label'] }] },
      { name: 'Process 2', steps: [{ name: 'Pack', substeps: ['Put in box', 'Place housing', 'Tighten screws'] }] },
    ]);
    const merges = [
      { from: { index: 3, name: 'Label' }, into: { index: 1, name: 'Check seal' } },
      { from: { index: 0, name: 'Fit housing' }, into: { index: 2, name: 'Pack' } },
    ];
    // Recorded only when moving forward; `changesOf` includes the current phase's.
    expect(s.session?.record.merged).toEqual([]);
    expect(changesOf(s)).toMatchObject({ merged: merges, is_step_merged: true });
    const renaming = run(s, { type: 'next', to: 'rename' });
    expect(renaming.session?.record).toMatchObject({
      merged: merges,
      is_step_merged: true,
      added: [{ index: 3, name: 'Label' }],
      deleted: [],
    });
  });

  test('rename: every name can be typed, nothing else changes, and the renames are recorded from→to', () => {
    const s = run(
      start(),
      { type: 'next', to: 'rename' },
      { type: 'rename-step', process: 0, step: 1, name: 'Check gasket ' },
      { type: 'rename-substep', process: 0, step: 0, substep: 1, name: 'Screw' },
      { type: 'rename-process', process: 1, name: 'Packing' },
      // Only spaces added: no rename.
      { type: 'rename-step', process: 1, step: 0, name: ' Pack ' },
    );
    for (const a of [
      { type: 'add-substep', process: 0, step: 0 },
      { type: 'delete-substep', process: 0, step: 0, substep: 0 },
      { type: 'move-substep', process: 0, step: 0, substep: 0, by: 1 },
      { type: 'merge-step', from: { process: 0, step: 0 }, into: { process: 0, step: 1 } },
    ] as const) {
      expect((edit(s, a) as { state: EditorState }).state).toBe(s);
    }
    expect(changesOf(s)).toEqual({
      added: [],
      deleted: [],
      merged: [],
      renamed: [
        { kind: 'substep', from: 'Tighten screws', to: 'Screw' },
        { kind: 'step', from: 'Check seal', to: 'Check gasket' },
        { kind: 'process', from: 'Process 2', to: 'Packing' },
      ],
      is_step_added_and_deleted: false,
      is_step_merged: false,
      is_step_renamed: true,
    });
  });

  test('back returns to add/delete with the operation as it was there, and drops merges and renames', () => {
    const atEnd = run(
      start(),
      { type: 'delete-step', process: 0, step: 1 },
      { type: 'add-step', process: 1 },
      { type: 'rename-step', process: 1, step: 1, name: 'Label' },
      { type: 'add-substep', process: 1, step: 1 },
      { type: 'rename-substep', process: 1, step: 1, substep: 0, name: 'Stick label' },
    );
    const s = run(
      atEnd,
      { type: 'next', to: 'merge' },
      { type: 'merge-step', from: { process: 1, step: 1 }, into: { process: 0, step: 0 } },
      { type: 'next', to: 'rename' },
      { type: 'rename-step', process: 0, step: 0, name: 'Fit' },
      { type: 'back' },
    );
    expect(s.session?.phase).toBe('add-delete');
    expect(operationOf(s)).toEqual(operationOf(atEnd));
    expect(s.session?.record).toMatchObject({ merged: [], renamed: [], is_step_merged: false, is_step_renamed: false });
    expect(changesOf(s)).toMatchObject({
      added: [{ index: 2, name: 'Label' }],
      deleted: [{ index: 1, name: 'Check seal' }],
      merged: [],
      renamed: [],
    });
    // And forward again records afresh.
    const again = run(s, { type: 'next', to: 'rename' });
    expect(again.session?.record).toMatchObject({ deleted: [{ index: 1, name: 'Check seal' }], merged: [], is_step_merged: false });
    // From merge, back too.
    const fromMerge = run(
      atEnd,
      { type: 'next', to: 'merge' },
      { type: 'merge-step', from: { process: 1, step: 1 }, into: { process: 0, step: 0 } },
      { type: 'back' },
    );
    expect(operationOf(fromMerge)).toEqual(operationOf(atEnd));
  });

  test('the original operation is kept apart from the edits', () => {
    const op = structuredClone(PUMP_OPERATION);
    const s = run(editOperation(op), { type: 'delete-step', process: 0, step: 0 });
    op.processes[0]!.steps[0]!.name = 'changed outside';
    expect(changesOf(s)?.deleted).toEqual([{ index: 0, name: 'Fit housing' }]);
    expect(PUMP_OPERATION.processes[0]!.steps).toHaveLength(2);
  });
});
