import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { callsTo, recordCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { server } from '@/testing/server';

import { defineOperationFeature, FakeTasks, PUMP } from './fixtures';

let tasks: FakeTasks;

beforeEach(() => {
  signInAs('org_user');
  tasks = new FakeTasks();
  server.use(defineOperationFeature(), ...tasks.handlers());
});

const panel = () => screen.getByRole('complementary', { name: 'Operations' });
/** The operations listed, in order. */
const listed = () =>
  within(panel())
    .queryAllByRole('listitem')
    .map((li) => within(li).getAllByRole('button')[0]!.textContent);
const region = (name: string) => screen.getByRole('region', { name });
const group = (name: string) => screen.getByRole('group', { name });

/** Opens task 1 (named `name`) on the screen and starts editing its operation. */
async function editTask1(name: string) {
  const user = userEvent.setup();
  renderApp('/user/process?task=1');
  await screen.findByRole('article', { name });
  await user.click(screen.getByRole('button', { name: 'Edit operation' }));
  return user;
}

test('operations are listed starred first; one is selected, starred and found by a search', async () => {
  tasks.add('Assemble pump');
  tasks.add('Bolt frame', [{ name: 'Frame', steps: [{ name: 'Bolt', substeps: ['Insert bolt'] }] }]);
  tasks.add('Check valve', PUMP, { starred: true });
  const rec = recordCalls();
  const user = userEvent.setup();
  const { router } = renderApp('/user/process');

  await waitFor(() => expect(listed()).toEqual(['Check valve', 'Assemble pump', 'Bolt frame']));
  expect(screen.getByRole('heading', { level: 1, name: 'Define Operation' })).toBeInTheDocument();
  expect(screen.getByText('No operation selected.')).toBeInTheDocument();
  expect(within(panel()).getByRole('button', { name: 'Unstar Check valve' })).toHaveAttribute('aria-pressed', 'true');

  await user.click(within(panel()).getByRole('button', { name: 'Assemble pump' }));
  const detail = await screen.findByRole('article', { name: 'Assemble pump' });
  expect(router.state.location.search).toBe('?task=1');
  expect(within(panel()).getByRole('button', { name: 'Assemble pump' })).toHaveAttribute('aria-current', 'true');
  expect(within(detail).getByText('NEW TASK')).toBeInTheDocument();
  expect(within(detail).getByText(/3 steps · created 01\/02\/26, 03:04:05/)).toBeInTheDocument();
  const view = within(region('Operation'));
  expect(view.getByRole('region', { name: 'Process 1: Pre-assembly' })).toHaveTextContent('Fit housingPlace housingTighten screws');
  expect(view.getByRole('region', { name: 'Process 2: Packing' })).toHaveTextContent('PackPut in box');

  // Starring moves it up with the other starred one (by the server's order).
  await user.click(within(panel()).getByRole('button', { name: 'Star Assemble pump' }));
  await waitFor(() => expect(listed()).toEqual(['Assemble pump', 'Check valve', 'Bolt frame']));
  expect(callsTo(rec, 'PATCH', 'organization/task/1/').map((c) => c.body)).toEqual([{ starred: true }]);
  expect(within(panel()).getByRole('button', { name: 'Unstar Assemble pump' })).toHaveAttribute('aria-pressed', 'true');
  await user.click(within(panel()).getByRole('button', { name: 'Unstar Check valve' }));
  await waitFor(() => expect(listed()).toEqual(['Assemble pump', 'Bolt frame', 'Check valve']));

  // The search keeps the selection, and goes into the address.
  await user.type(within(panel()).getByRole('searchbox', { name: 'Search operations' }), 'bolt');
  await user.click(within(panel()).getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(listed()).toEqual(['Bolt frame']));
  expect(router.state.location.search).toBe('?task=1&search=bolt');
  expect(screen.getByRole('article', { name: 'Assemble pump' })).toBeInTheDocument();
  expect(callsTo(rec, 'GET', 'organization/task/').map((c) => c.query.get('search'))).toContain('bolt');

  await user.clear(within(panel()).getByRole('searchbox', { name: 'Search operations' }));
  await user.type(within(panel()).getByRole('searchbox', { name: 'Search operations' }), 'zzz');
  await user.click(within(panel()).getByRole('button', { name: 'Search' }));
  expect(await within(panel()).findByText('No operation matches "zzz".')).toBeInTheDocument();
});

test('the address selects an operation (the Tasks screen links here)', async () => {
  tasks.add('Assemble pump');
  tasks.add('Check valve');
  renderApp('/user/process?task=2');
  expect(await screen.findByRole('article', { name: 'Check valve' })).toBeInTheDocument();
  await waitFor(() => expect(within(panel()).getByRole('button', { name: 'Check valve' })).toHaveAttribute('aria-current', 'true'));
});

test('a new operation is checked before sending; the server refusal shows; saved, it is listed and selected', async () => {
  tasks.add('Assemble pump');
  const rec = recordCalls();
  const user = userEvent.setup();
  const { router } = renderApp('/user/process');
  await waitFor(() => expect(listed()).toEqual(['Assemble pump']));

  await user.click(within(panel()).getByRole('button', { name: 'New' }));
  const form = within(region('New operation'));
  await user.click(form.getByRole('button', { name: 'Save' }));
  expect(form.getByText('Task name is required!')).toBeInTheDocument();

  await user.type(form.getByLabelText('Operation name'), 'Assemble pump');
  await user.click(form.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('An operation must contain atleast one process!')).toBeInTheDocument();

  await user.click(form.getByRole('button', { name: 'Add process' }));
  await user.click(within(group('Process 1')).getByRole('button', { name: 'Add step' }));
  await user.keyboard('Fit housing');
  await user.click(form.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Each step must have atleast one sub-step!')).toBeInTheDocument();
  await user.click(within(group('Step 1')).getByRole('button', { name: 'Add sub-step' }));
  await user.keyboard('Fit housing');
  await user.click(form.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Step and Substep name cannot be same!')).toBeInTheDocument();
  // Nothing was sent while the checks failed.
  expect(callsTo(rec, 'POST', 'organization/task/')).toEqual([]);

  const sub = within(group('Step 1')).getByRole('textbox', { name: 'Sub-step name' });
  await user.clear(sub);
  await user.type(sub, 'Place housing');
  await user.click(form.getByRole('button', { name: 'Save' }));
  // The name is taken: the server's message, as a toast and next to the name.
  await waitFor(() => expect(screen.getAllByText('A task with this name already exists.')).toHaveLength(2));
  expect(form.getByLabelText('Operation name')).toHaveAttribute('aria-invalid', 'true');

  await user.clear(form.getByLabelText('Operation name'));
  await user.type(form.getByLabelText('Operation name'), '  Assemble valve ');
  await user.click(form.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'organization/task/').map((c) => c.body)).toEqual([
    { taskName: 'Assemble pump', processes: [{ name: 'Process 1', steps: [{ name: 'Fit housing', substeps: ['Place housing'] }] }] },
    { taskName: 'Assemble valve', processes: [{ name: 'Process 1', steps: [{ name: 'Fit housing', substeps: ['Place housing'] }] }] },
  ]);
  expect(await screen.findByRole('article', { name: 'Assemble valve' })).toBeInTheDocument();
  expect(screen.queryByRole('region', { name: 'New operation' })).toBeNull();
  expect(router.state.location.search).toBe('?task=2');
  await waitFor(() => expect(listed()).toEqual(['Assemble pump', 'Assemble valve']));
  expect(within(panel()).getByRole('button', { name: 'Assemble valve' })).toHaveAttribute('aria-current', 'true');
});

test('an imported text fills the editor of a new operation', async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/process');
  await within(await screen.findByRole('complementary', { name: 'Operations' })).findByText('No operation yet.');

  await user.click(within(panel()).getByRole('button', { name: 'Import' }));
  const dialog = within(screen.getByRole('dialog', { name: 'Import operation' }));
  await user.click(dialog.getByLabelText('Operation text'));
  await user.paste('Seal pump\nFit seal:\nPlace seal;\nPress seal;\nSealing~\n');
  await user.click(dialog.getByRole('button', { name: 'Import' }));
  expect(screen.queryByRole('dialog')).toBeNull();

  const form = within(region('New operation'));
  expect(form.getByLabelText('Operation name')).toHaveValue('Seal pump');
  expect(within(group('Process 1')).getByRole('textbox', { name: 'Process name' })).toHaveValue('Sealing');
  await user.click(form.getByRole('button', { name: 'Save' }));
  expect(await screen.findByRole('article', { name: 'Seal pump' })).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'organization/task/')[0]?.body).toEqual({
    taskName: 'Seal pump',
    processes: [{ name: 'Sealing', steps: [{ name: 'Fit seal', substeps: ['Place seal', 'Press seal'] }] }],
  });
});

test('editing runs through the three phases and saves the processes with the step settings moved along', async () => {
  tasks.add('Assemble pump', PUMP, {
    settings: {
      negativeSteps: [2],
      optional_steps: [1],
      translation: { 'Check seal': 'Dichtung prüfen', 'Fit housing': 'Gehäuse einsetzen', Pack: 'Verpacken' },
      translation_name: 'Deutsch',
    },
  });
  const rec = recordCalls();
  const user = await editTask1('Assemble pump');
  const phase = () =>
    within(screen.getByRole('list', { name: 'Editing phases' }))
      .getAllByRole('listitem')
      .find((li) => li.getAttribute('aria-current') === 'step')?.textContent;
  expect(phase()).toBe('1. Add/Delete');
  const summary = () => within(region('Operation')).getByText(/added|deleted|merged|changed|No change to the steps yet/);
  expect(summary()).toHaveTextContent('No change to the steps yet.');

  // Add/Delete: a new step in the second process.
  await user.click(within(group('Process 2')).getByRole('button', { name: 'Add step' }));
  await user.keyboard('Label');
  await user.click(within(group('Step 4')).getByRole('button', { name: 'Add sub-step' }));
  await user.keyboard('Stick label');
  expect(summary()).toHaveTextContent('1 step added');
  await user.click(screen.getByRole('button', { name: 'Next' }));

  // Merge: "Check seal" into "Fit housing".
  expect(phase()).toBe('2. Merge');
  const merge = within(screen.getByRole('form', { name: 'Merge steps' }));
  await user.selectOptions(merge.getByLabelText('Merge step'), '2. Check seal');
  await user.selectOptions(merge.getByLabelText('Into step'), '1. Fit housing');
  await user.click(merge.getByRole('button', { name: 'Merge' }));
  await user.click(screen.getByRole('button', { name: 'Next' }));

  // Rename: "Pack" (now step 2) becomes "Pack box".
  expect(phase()).toBe('3. Rename');
  const pack = within(group('Step 2')).getByRole('textbox', { name: 'Step name' });
  await user.clear(pack);
  await user.type(pack, 'Pack box');
  expect(summary()).toHaveTextContent('1 step added, 1 step merged, 1 name changed');
  await user.click(within(region('Operation')).getByRole('button', { name: 'Save' }));

  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/').map((c) => c.body)).toEqual([
    {
      processes: [
        { name: 'Pre-assembly', steps: [{ name: 'Fit housing', substeps: ['Place housing', 'Tighten screws', 'Inspect seal'] }] },
        {
          name: 'Packing',
          steps: [
            { name: 'Pack box', substeps: ['Put in box'] },
            { name: 'Label', substeps: ['Stick label'] },
          ],
        },
      ],
      // "Pack" was step 3 and is step 2 now; "Check seal" (optional, a start step) was merged away.
      negativeSteps: [1],
      optional_steps: [],
      required_steps_for_start: { 0: [0] },
      // The renamed step keeps its translation; the merged-away one loses it.
      translation: { 'Fit housing': 'Gehäuse einsetzen', 'Pack box': 'Verpacken' },
      translation_name: 'Deutsch',
    },
  ]);
  // The editor closes on the saved operation; the history has the change.
  const view = within(region('Operation'));
  await waitFor(() => expect(view.getByRole('region', { name: 'Process 2: Packing' })).toHaveTextContent('Pack boxPut in boxLabelStick label'));
  expect(screen.queryByRole('list', { name: 'Editing phases' })).toBeNull();
  const history = within(await within(region('History')).findByRole('table', { name: 'History' }));
  await waitFor(() => expect(history.getAllByRole('row')).toHaveLength(3));
  expect(history.getAllByRole('row')[1]).toHaveTextContent('updated');
});

test('Back returns to Add/Delete; Cancel ends the edit; an unchanged operation sends nothing', async () => {
  tasks.add('Assemble pump');
  const rec = recordCalls();
  const user = await editTask1('Assemble pump');
  await user.click(screen.getByRole('button', { name: 'Skip to Rename' }));
  const fit = within(group('Step 1')).getByRole('textbox', { name: 'Step name' });
  await user.clear(fit);
  await user.type(fit, 'Fit');
  await user.click(screen.getByRole('button', { name: 'Back' }));
  expect(within(group('Step 1')).getByRole('textbox', { name: 'Step name' })).toHaveValue('Fit housing');
  await user.click(within(region('Operation')).getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('No changes to save.')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')).toEqual([]);

  await user.click(screen.getByRole('button', { name: 'Edit operation' }));
  await user.click(within(group('Process 1')).getByRole('button', { name: 'Add step' }));
  await user.click(within(region('Operation')).getByRole('button', { name: 'Cancel' }));
  expect(screen.getByRole('button', { name: 'Edit operation' })).toBeInTheDocument();
  expect(within(region('Operation')).getByRole('region', { name: 'Process 1: Pre-assembly' })).not.toHaveTextContent('Step');
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')).toEqual([]);
});

test('a task in training is not edited: the server’s message shows and no editor opens', async () => {
  tasks.add('Assemble pump', PUMP, { train_status: 'training' });
  const user = userEvent.setup();
  renderApp('/user/process?task=1');
  expect(await screen.findByText('TRAINING')).toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Edit operation' }));
  expect(
    await screen.findByText('Assemble pump is being trained, You cannot update the task when it is being trained.'),
  ).toBeInTheDocument();
  expect(screen.queryByRole('list', { name: 'Editing phases' })).toBeNull();
});

test('an edit the server refuses shows its first message and stays open', async () => {
  tasks.add('Assemble pump');
  tasks.add('Check valve');
  const user = await editTask1('Assemble pump');
  const name = within(region('Operation')).getByLabelText('Operation name');
  await user.clear(name);
  await user.type(name, 'check VALVE');
  await user.click(within(region('Operation')).getByRole('button', { name: 'Save' }));
  await waitFor(() => expect(screen.getAllByText('A task with this name already exists.')).toHaveLength(2));
  expect(screen.getByRole('list', { name: 'Editing phases' })).toBeInTheDocument();
});

test('selecting another operation resets the editor and the parameter edits', async () => {
  tasks.add('Assemble pump');
  tasks.add('Check valve');
  const user = await editTask1('Assemble pump');
  const min = within(region('Parameters')).getByLabelText('Minimum cycle time (s)');
  await user.clear(min);
  await user.type(min, '30');

  await user.click(within(panel()).getByRole('button', { name: 'Check valve' }));
  await screen.findByRole('article', { name: 'Check valve' });
  await user.click(within(panel()).getByRole('button', { name: 'Assemble pump' }));
  await screen.findByRole('article', { name: 'Assemble pump' });
  expect(screen.getByRole('button', { name: 'Edit operation' })).toBeInTheDocument();
  expect(screen.queryByRole('list', { name: 'Editing phases' })).toBeNull();
  expect(within(region('Parameters')).getByLabelText('Minimum cycle time (s)')).toHaveValue(0);
});

test('delete asks first; cancel sends nothing, confirm marks it deleted and clears the selection', async () => {
  tasks.add('Assemble pump');
  tasks.add('Check valve');
  const rec = recordCalls();
  const user = userEvent.setup();
  const { router } = renderApp('/user/process');
  await waitFor(() => expect(listed()).toEqual(['Assemble pump', 'Check valve']));
  expect(within(panel()).getByRole('button', { name: 'Delete' })).toBeDisabled();
  await user.click(within(panel()).getByRole('button', { name: 'Assemble pump' }));
  await screen.findByRole('article', { name: 'Assemble pump' });

  await user.click(within(panel()).getByRole('button', { name: 'Delete' }));
  const dialog = screen.getByRole('dialog', { name: 'Delete operation' });
  expect(dialog).toHaveTextContent('Delete Assemble pump?');
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')).toEqual([]);

  await user.click(within(panel()).getByRole('button', { name: 'Delete' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete operation' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/').map((c) => c.body)).toEqual([{ is_deleted: true }]);
  await waitFor(() => expect(listed()).toEqual(['Check valve']));
  // The selection clears in a render of its own, which a loaded machine may run later.
  expect(await screen.findByText('No operation selected.')).toBeInTheDocument();
  expect(router.state.location.search).toBe('');
  // The deleted task is not fetched again.
  expect(callsTo(rec, 'GET', 'organization/task/1/')).toHaveLength(1);
});

test('clone asks for a name, checks it, and selects the copy', async () => {
  tasks.add('Assemble pump');
  tasks.add('Check valve');
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/user/process?task=1');
  await screen.findByRole('article', { name: 'Assemble pump' });

  await user.click(within(panel()).getByRole('button', { name: 'Clone' }));
  const dialog = within(screen.getByRole('dialog', { name: 'Clone Assemble pump' }));
  const name = dialog.getByLabelText('Name of the copy');
  expect(name).toHaveValue('Assemble pump copy');
  await user.clear(name);
  await user.click(dialog.getByRole('button', { name: 'Clone' }));
  expect(dialog.getByText('Task name is required!')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'generic/clone_task/')).toEqual([]);

  await user.type(name, 'Check valve');
  await user.click(dialog.getByRole('button', { name: 'Clone' }));
  await waitFor(() => expect(screen.getAllByText('A task with this name already exists.')).toHaveLength(2));

  await user.clear(name);
  await user.type(name, 'Assemble pump B');
  await user.click(dialog.getByRole('button', { name: 'Clone' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'generic/clone_task/').map((c) => c.body)).toEqual([
    { task: 1, taskName: 'Check valve' },
    { task: 1, taskName: 'Assemble pump B' },
  ]);
  expect(await screen.findByRole('article', { name: 'Assemble pump B' })).toBeInTheDocument();
  await waitFor(() => expect(listed()).toEqual(['Assemble pump', 'Check valve', 'Assemble pump B']));
  expect(within(region('Operation')).getByRole('region', { name: 'Process 1: Pre-assembly' })).toHaveTextContent('Fit housing');
});
