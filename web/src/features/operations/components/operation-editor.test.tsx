import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { toast } from 'sonner';

import { validate } from '@/lib/operation';
import { PUMP_OPERATION } from '@/testing/operation';

import { type EditorState, editOperation, newOperation, operationOf } from '../editor';
import { OperationEditor } from './operation-editor';

/** The editor holding its state as a screen would; `latest()` is the last state it sent. */
function renderEditor(initial: EditorState) {
  let latest = initial;
  function Screen() {
    const [state, setState] = useState(initial);
    return (
      <OperationEditor
        value={state}
        onChange={(s) => {
          latest = s;
          setState(s);
        }}
      />
    );
  }
  render(<Screen />);
  return { latest: () => latest, operation: () => operationOf(latest) };
}

const group = (name: string) => screen.getByRole('group', { name });
const names = (label: string) => screen.getAllByRole('textbox', { name: label }).map((i) => (i as HTMLInputElement).value);

test('a new operation is built from processes, steps and sub-steps, the focus on each new name', async () => {
  const user = userEvent.setup();
  const { operation } = renderEditor(newOperation({ name: 'Op', processes: [] }));
  expect(screen.getByText('No process yet.')).toBeInTheDocument();
  expect(screen.queryByRole('list', { name: 'Editing phases' })).toBeNull();

  await user.click(screen.getByRole('button', { name: 'Add process' }));
  expect(screen.getByRole('textbox', { name: 'Process name' })).toHaveFocus();
  expect(names('Process name')).toEqual(['Process 1']);
  await user.click(screen.getByRole('button', { name: 'Add step' }));
  expect(within(group('Step 1')).getByRole('textbox', { name: 'Step name' })).toHaveFocus();
  await user.keyboard('Fit housing');
  await user.click(within(group('Step 1')).getByRole('button', { name: 'Add sub-step' }));
  expect(within(within(group('Step 1')).getByRole('group', { name: 'Sub-step 1' })).getByRole('textbox', { name: 'Sub-step name' })).toHaveFocus();
  await user.keyboard('Place housing');

  expect(operation()).toEqual({ name: 'Op', processes: [{ name: 'Process 1', steps: [{ name: 'Fit housing', substeps: ['Place housing'] }] }] });
  expect(validate(operation())).toBeNull();
});

test('refused additions show their message as a toast', async () => {
  const error = vi.spyOn(toast, 'error');
  const user = userEvent.setup();
  const { operation } = renderEditor(newOperation(PUMP_OPERATION));

  const pre = group('Process 1');
  await user.click(within(pre).getByRole('button', { name: 'Add step' }));
  await user.click(within(pre).getByRole('button', { name: 'Add step' }));
  expect(error).toHaveBeenLastCalledWith('Please finish the last step first!', { duration: 3000 });
  expect(operation().processes[0]?.steps).toHaveLength(3);

  await user.click(within(group('Step 2')).getByRole('button', { name: 'Add sub-step' }));
  await user.click(within(group('Step 2')).getByRole('button', { name: 'Add sub-step' }));
  expect(error).toHaveBeenLastCalledWith('Please finish the last sub-step first!', { duration: 3000 });
  expect(operation().processes[0]?.steps[1]?.substeps).toEqual(['Inspect seal', '']);

  await user.click(screen.getByRole('button', { name: 'Add process' }));
  expect(error).toHaveBeenLastCalledWith('An operation can contain at most 2 process!', { duration: 3000 });
  expect(operation().processes).toHaveLength(2);
  expect(error).toHaveBeenCalledTimes(3);
});

test('steps and sub-steps move within their list; the buttons at the ends are disabled', async () => {
  const user = userEvent.setup();
  const { operation } = renderEditor(newOperation(PUMP_OPERATION));
  const first = group('Step 1');
  expect(within(first).getByRole('button', { name: 'Move step up' })).toBeDisabled();
  expect(within(first).getByRole('button', { name: 'Move step down' })).toBeEnabled();
  expect(within(group('Step 2')).getByRole('button', { name: 'Move step down' })).toBeDisabled();
  // The only step of its process moves nowhere.
  expect(within(group('Step 3')).getByRole('button', { name: 'Move step up' })).toBeDisabled();
  expect(within(group('Step 3')).getByRole('button', { name: 'Move step down' })).toBeDisabled();

  await user.click(within(first).getByRole('button', { name: 'Move step down' }));
  expect(operation().processes[0]?.steps.map((s) => s.name)).toEqual(['Check seal', 'Fit housing']);
  expect(names('Step name')).toEqual(['Check seal', 'Fit housing', 'Pack']);
  // The focus stays with the moved step, on the button still enabled.
  expect(within(group('Step 2')).getByRole('button', { name: 'Move step up' })).toHaveFocus();

  const subs = within(group('Step 2'));
  const sub1 = () => within(subs.getByRole('group', { name: 'Sub-step 1' }));
  expect(sub1().getByRole('button', { name: 'Move sub-step up' })).toBeDisabled();
  await user.click(sub1().getByRole('button', { name: 'Move sub-step down' }));
  expect(operation().processes[0]?.steps[1]?.substeps).toEqual(['Tighten screws', 'Place housing']);
  expect(within(subs.getByRole('group', { name: 'Sub-step 2' })).getByRole('button', { name: 'Move sub-step up' })).toHaveFocus();
});

test('processes, steps and sub-steps are deleted, and the names are typed', async () => {
  const user = userEvent.setup();
  const { operation } = renderEditor(newOperation(PUMP_OPERATION));
  const sub1 = within(group('Step 1')).getByRole('group', { name: 'Sub-step 1' });
  await user.click(within(sub1).getByRole('button', { name: 'Delete sub-step' }));
  expect(within(group('Step 1')).getByRole('button', { name: 'Add sub-step' })).toHaveFocus();
  await user.click(within(group('Step 2')).getByRole('button', { name: 'Delete step' }));
  await user.click(within(group('Process 2')).getByRole('button', { name: 'Delete process' }));
  expect(screen.getByRole('button', { name: 'Add process' })).toHaveFocus();
  await user.clear(screen.getByRole('textbox', { name: 'Process name' }));
  await user.type(screen.getByRole('textbox', { name: 'Process name' }), 'Assembly');
  expect(operation()).toEqual({
    name: 'Assemble pump',
    processes: [{ name: 'Assembly', steps: [{ name: 'Fit housing', substeps: ['Tighten screws'] }] }],
  });
});

test('editing a task runs Add/Delete → Merge → Rename, with Back', async () => {
  const error = vi.spyOn(toast, 'error');
  const user = userEvent.setup();
  const { latest, operation } = renderEditor(editOperation(PUMP_OPERATION));
  const phases = screen.getByRole('list', { name: 'Editing phases' });
  const current = () => within(phases).getAllByRole('listitem').find((li) => li.getAttribute('aria-current') === 'step')?.textContent;
  expect(current()).toBe('1. Add/Delete');
  expect(screen.queryByRole('button', { name: 'Back' })).toBeNull();

  // Add/Delete: existing names are read-only; a new step's name is typed.
  expect(within(group('Step 1')).getByRole('textbox', { name: 'Step name' })).toHaveAttribute('readonly');
  await user.click(within(group('Process 2')).getByRole('button', { name: 'Add step' }));
  await user.click(screen.getByRole('button', { name: 'Next' }));
  expect(error).toHaveBeenLastCalledWith('Please fill the empty steps!', { duration: 3000 });
  expect(current()).toBe('1. Add/Delete');
  await user.type(within(group('Step 4')).getByRole('textbox', { name: 'Step name' }), 'Label');
  expect(within(group('Step 4')).getByRole('textbox', { name: 'Step name' })).not.toHaveAttribute('readonly');
  await user.click(within(group('Step 4')).getByRole('button', { name: 'Add sub-step' }));
  await user.keyboard('Stick label');
  await user.click(screen.getByRole('button', { name: 'Next' }));

  // Merge: no add, delete or move; merge "Check seal" into "Fit housing".
  expect(current()).toBe('2. Merge');
  expect(screen.queryByRole('button', { name: 'Add step' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Delete step' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Move step down' })).toBeNull();
  expect(within(group('Step 4')).getByRole('textbox', { name: 'Step name' })).toHaveAttribute('readonly');
  const form = screen.getByRole('form', { name: 'Merge steps' });
  expect(within(form).getByRole('button', { name: 'Merge' })).toBeDisabled();
  await user.selectOptions(within(form).getByLabelText('Merge step'), '2. Check seal');
  expect(within(within(form).getByLabelText('Into step')).queryByRole('option', { name: '2. Check seal' })).toBeNull();
  await user.selectOptions(within(form).getByLabelText('Into step'), '1. Fit housing');
  await user.click(within(form).getByRole('button', { name: 'Merge' }));
  expect(operation().processes[0]?.steps).toEqual([{ name: 'Fit housing', substeps: ['Place housing', 'Tighten screws', 'Inspect seal'] }]);
  expect(within(form).getByLabelText('Merge step')).toHaveValue('');
  // "Fit housing" is now the only step of its process: merging it away is refused.
  await user.selectOptions(within(form).getByLabelText('Merge step'), '1. Fit housing');
  await user.selectOptions(within(form).getByLabelText('Into step'), '2. Pack');
  await user.click(within(form).getByRole('button', { name: 'Merge' }));
  expect(error).toHaveBeenLastCalledWith('A process must contain atleast one step!', { duration: 3000 });
  expect(names('Step name')).toEqual(['Fit housing', 'Pack', 'Label']);
  await user.click(screen.getByRole('button', { name: 'Next' }));

  // Rename: every name can be typed, nothing else.
  expect(current()).toBe('3. Rename');
  expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Add process' })).toBeNull();
  const fit = within(group('Step 1')).getByRole('textbox', { name: 'Step name' });
  await user.clear(fit);
  await user.type(fit, 'Fit');
  expect(latest().session?.record).toMatchObject({
    added: [{ index: 3, name: 'Label' }],
    merged: [{ from: { index: 1, name: 'Check seal' }, into: { index: 0, name: 'Fit housing' } }],
    is_step_added_and_deleted: true,
    is_step_merged: true,
  });

  // Back: the operation as it was at the end of Add/Delete.
  await user.click(screen.getByRole('button', { name: 'Back' }));
  expect(current()).toBe('1. Add/Delete');
  expect(names('Step name')).toEqual(['Fit housing', 'Check seal', 'Pack', 'Label']);
  expect(latest().session?.record).toMatchObject({ merged: [], renamed: [], is_step_merged: false, is_step_renamed: false });
});

test('Skip to Rename leaves out the merge phase', async () => {
  const user = userEvent.setup();
  const { latest } = renderEditor(editOperation(PUMP_OPERATION));
  await user.click(screen.getByRole('button', { name: 'Skip to Rename' }));
  expect(latest().session?.phase).toBe('rename');
  expect(screen.queryByRole('form', { name: 'Merge steps' })).toBeNull();
  expect(within(group('Step 1')).getByRole('textbox', { name: 'Step name' })).not.toHaveAttribute('readonly');
});
