import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import { callsTo, fail, recordCalls, signInAs } from '@/testing/helpers';
import { fillIn } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { defineOperationFeature, FakeTasks, PUMP } from './fixtures';

let tasks: FakeTasks;

beforeEach(() => {
  signInAs('org_user');
  tasks = new FakeTasks();
  server.use(defineOperationFeature(), ...tasks.handlers());
});

const region = (name: string) => screen.getByRole('region', { name });
const TRAINING_REFUSAL = 'Assemble pump is being trained, You cannot update the task when it is being trained.';

async function open(id = 1) {
  const user = userEvent.setup();
  renderApp(`/user/process?task=${id}`);
  await screen.findByRole('article', { name: tasks.task(id).taskName });
  return user;
}

// ----- parameters ----------------------------------------------------------------------

test('parameters show the task’s values, are checked before sending, and save in one patch', async () => {
  tasks.add('Assemble pump');
  const rec = recordCalls();
  const user = await open();
  const form = within(screen.getByRole('form', { name: 'Parameters' }));
  expect(form.getByLabelText('Maximum cycle time (s)')).toHaveValue(null);
  expect(form.getByLabelText('Maximum cycle time (s)')).toHaveAttribute('placeholder', 'No limit');
  expect(form.getByLabelText('Minimum cycle time (s)')).toHaveValue(0);
  expect(form.getByLabelText('Minimum share of steps to end a cycle (0–1)')).toHaveValue(0.75);
  expect(form.getByLabelText('Verify threshold (frames)')).toHaveValue(6);
  expect(form.getByLabelText('Background time (frames)')).toHaveValue(50);
  const start = within(form.getByRole('group', { name: 'Required steps for start: Pre-assembly' }));
  expect(start.getByRole('checkbox', { name: '1. Fit housing' })).toBeChecked();
  expect(start.getByRole('checkbox', { name: '2. Check seal' })).toBeChecked();
  // Each process chooses among its own steps.
  expect(within(form.getByRole('group', { name: 'Required steps for start: Packing' })).getAllByRole('checkbox').map((c) => c.parentElement?.textContent)).toEqual(['3. Pack']);

  await fillIn(user, { 'Minimum cycle time (s)': '-5', 'Temporal smoothness (frames)': '0', 'Minimum share of steps to end a cycle (0–1)': '1.5' });
  await user.click(form.getByRole('button', { name: 'Save parameters' }));
  expect(form.getByText('The minimum cycle time cannot be negative.')).toBeInTheDocument();
  expect(form.getByText('The temporal smoothness must be at least 1 frame.')).toBeInTheDocument();
  expect(form.getByText('The share of steps required to end a cycle must be between 0 and 1.')).toBeInTheDocument();
  await fillIn(user, { 'Minimum cycle time (s)': '60', 'Maximum cycle time (s)': '30', 'Temporal smoothness (frames)': '3', 'Minimum share of steps to end a cycle (0–1)': '0.5' });
  await user.click(form.getByRole('button', { name: 'Save parameters' }));
  expect(form.getByText('The maximum cycle time cannot be below the minimum cycle time.')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')).toEqual([]);

  await fillIn(user, { 'Maximum cycle time (s)': '600', 'Verify threshold (frames)': '8', 'Background time (frames)': '40' });
  await user.click(form.getByRole('checkbox', { name: 'Strict step order' }));
  await user.click(form.getByRole('checkbox', { name: 'Add background time to step time' }));
  await user.click(start.getByRole('checkbox', { name: '2. Check seal' }));
  await user.click(within(form.getByRole('group', { name: 'Required steps for end: Packing' })).getByRole('checkbox', { name: '3. Pack' }));
  await user.click(within(form.getByRole('group', { name: 'Negative steps' })).getByRole('checkbox', { name: '3. Pack' }));
  await user.click(within(form.getByRole('group', { name: 'Optional steps' })).getByRole('checkbox', { name: '2. Check seal' }));
  await user.click(form.getByRole('button', { name: 'Save parameters' }));

  expect(await screen.findByText('Your changes have been saved!')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/').map((c) => c.body)).toEqual([
    {
      taskParameters: {
        telemetryParams: {
          maximum_cycle_time: 600,
          minimum_cycle_time: 60,
          min_percentage_of_steps_required_to_end_cycle: 0.5,
          required_steps_for_start: { 0: [0] },
          required_steps_for_end: { 0: [], 1: [2] },
          temporal_smoothness: 3,
          object_rotation: false,
          strict_step_order: true,
          add_background_time_to_step_time: true,
        },
        trainingParams: { verify_threshold: 8, background_time: 40 },
      },
      negativeSteps: [2],
      optional_steps: [1],
    },
  ]);
  expect(tasks.task(1).taskParameters.trainingParams.verify_threshold).toBe(8);
  // The history has the change.
  await waitFor(() => expect(within(region('History')).getAllByRole('row')[1]).toHaveTextContent('negativeSteps, optional_steps, taskParameters'));
});

test('a parameter save the server refuses says so, with its reason', async () => {
  tasks.add('Assemble pump');
  server.use(http.patch(apiUrl('organization/task/1/'), () => fail(400, { non_field_errors: [TRAINING_REFUSAL] })));
  const user = await open();
  await fillIn(user, { 'Verify threshold (frames)': '9' });
  await user.click(screen.getByRole('button', { name: 'Save parameters' }));
  expect(await screen.findByText('Error occurred in saving your changes!')).toBeInTheDocument();
  expect(screen.getByText(TRAINING_REFUSAL)).toBeInTheDocument();
  // The typed value stays for another try.
  expect(screen.getByLabelText('Verify threshold (frames)')).toHaveValue(9);
});

// ----- model ---------------------------------------------------------------------------

test('changing the model asks for a restart; a failure says so', async () => {
  tasks.add('Assemble pump');
  const rec = recordCalls();
  const user = await open();
  const form = within(screen.getByRole('form', { name: 'Model' }));
  await within(form.getByLabelText('Model')).findByRole('option', { name: 'Close-up 96×72' });
  expect(form.getByLabelText('Model')).toHaveValue('');

  await fillIn(user, { 'Model version': '0' });
  await user.click(form.getByRole('button', { name: 'Update model' }));
  expect(form.getByText('The model version must be a positive whole number.')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')).toEqual([]);

  await user.selectOptions(form.getByLabelText('Model'), 'Close-up 96×72');
  await fillIn(user, { 'Model version': '3' });
  await user.click(form.getByRole('button', { name: 'Update model' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(screen.getByText('Restart the task for the change to take effect.')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/').map((c) => c.body)).toEqual([{ model_choice: '2', model_version: 3 }]);
  await waitFor(() => expect(tasks.task(1).model_version).toBe(3));
  // The choice is the type's id, shown by the type's name (the section shows the task anew).
  expect(tasks.task(1).model_choice).toBe('2');
  expect(within(screen.getByRole('form', { name: 'Model' })).getByLabelText('Model')).toHaveDisplayValue('Close-up 96×72');

  server.use(http.patch(apiUrl('organization/task/1/'), () => fail(400, { non_field_errors: [TRAINING_REFUSAL] })));
  await fillIn(user, { 'Model version': '4' });
  await user.click(screen.getByRole('button', { name: 'Update model' }));
  expect(await screen.findByText('error occurred in updating the model on Task!')).toBeInTheDocument();
  expect(screen.getByText(TRAINING_REFUSAL)).toBeInTheDocument();
});

// ----- history -------------------------------------------------------------------------

test('history lists the changes; revert answers the server’s message and reloads the task and its history', async () => {
  tasks.add('Assemble pump');
  tasks.change(1, { taskName: 'Assemble pump v2', model_choice: '2' });
  const rec = recordCalls();
  const user = await open();
  const table = await within(region('History')).findByRole('table', { name: 'History' });
  const rows = () => within(table).getAllByRole('row').slice(1);
  expect(rows().map((r) => within(r).getAllByRole('cell').slice(1, 4).map((c) => c.textContent))).toEqual([
    ['Tess', 'updated', 'model_choice, taskName, task_detail'],
    ['Tess', 'created', '—'],
  ]);
  expect(within(rows()[1]!).getAllByRole('cell')[0]).toHaveTextContent('01/02/26, 03:05:05');

  // Revert to the state after "created": cancel first, then confirm.
  await user.click(within(rows()[1]!).getByRole('button', { name: /^Revert to created/ }));
  await user.click(within(screen.getByRole('dialog', { name: 'Revert operation' })).getByRole('button', { name: 'Cancel' }));
  expect(callsTo(rec, 'PATCH', 'organization/task/1/revert/')).toEqual([]);
  await user.click(within(rows()[1]!).getByRole('button', { name: /^Revert to created/ }));
  await user.click(within(screen.getByRole('dialog', { name: 'Revert operation' })).getByRole('button', { name: 'Revert' }));

  expect(await screen.findByText('Task successfully reverted! 3 field(s) updated: model_choice, taskName, task_detail')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/revert/').map((c) => c.body)).toEqual([{ history_id: 1 }]);
  expect(await screen.findByRole('article', { name: 'Assemble pump' })).toBeInTheDocument();
  await waitFor(() => expect(rows()).toHaveLength(3));
  expect(rows()[0]).toHaveTextContent('reverted');
  expect(within(screen.getByRole('form', { name: 'Model' })).getByLabelText('Model')).toHaveValue('');

  // Reverting to the state it is in changes nothing, and says so.
  await user.click(within(rows()[0]!).getByRole('button', { name: /^Revert to reverted/ }));
  await user.click(within(screen.getByRole('dialog', { name: 'Revert operation' })).getByRole('button', { name: 'Revert' }));
  expect(await screen.findByText('Task reverted - no changes detected (task was already in the target state)')).toBeInTheDocument();
});

test('a revert the server refuses says so', async () => {
  tasks.add('Assemble pump', PUMP, { train_status: 'training' });
  const user = await open();
  const table = await within(region('History')).findByRole('table', { name: 'History' });
  await user.click(within(table).getByRole('button', { name: /^Revert to created/ }));
  await user.click(within(screen.getByRole('dialog', { name: 'Revert operation' })).getByRole('button', { name: 'Revert' }));
  expect(await screen.findByText('Failed to revert task')).toBeInTheDocument();
  expect(screen.getByText(TRAINING_REFUSAL)).toBeInTheDocument();
  expect(screen.queryByRole('dialog')).toBeNull();
});

test('a history that cannot be loaded says so, and can be tried again', async () => {
  tasks.add('Assemble pump');
  let refuse = true;
  server.use(
    http.get(apiUrl('organization/task/1/history/'), () =>
      refuse ? fail(403, { detail: 'You do not have permission to perform this action.', msg: '' }) : HttpResponse.json([]),
    ),
  );
  const user = await open();
  expect(await within(region('History')).findByRole('alert')).toHaveTextContent('Failed to fetch task history');
  refuse = false;
  await user.click(within(region('History')).getByRole('button', { name: 'Try again' }));
  expect(await within(region('History')).findByText('No change recorded.')).toBeInTheDocument();
});

// ----- translations --------------------------------------------------------------------

test('a translation is added (checked first), shown by the language switch, edited and deleted', async () => {
  tasks.add('Assemble pump');
  const rec = recordCalls();
  const user = await open();
  const section = within(region('Translation'));
  expect(section.getByText('No translation: the names show in English.')).toBeInTheDocument();
  expect(screen.queryByLabelText('Show names in')).toBeNull();

  await user.click(section.getByRole('button', { name: 'Add translation' }));
  const dialog = within(screen.getByRole('dialog', { name: 'Add translation' }));
  expect(dialog.getAllByRole('textbox').map((i) => (i as HTMLInputElement).labels?.[0]?.textContent)).toEqual([
    'Language',
    'Fit housing',
    'Place housing',
    'Tighten screws',
    'Check seal',
    'Inspect seal',
    'Pack',
    'Put in box',
  ]);
  await user.click(dialog.getByRole('button', { name: 'Save' }));
  expect(dialog.getByText('The language is required!')).toBeInTheDocument();
  await user.type(dialog.getByLabelText('Language'), 'Deutsch');
  await user.click(dialog.getByRole('button', { name: 'Save' }));
  expect(dialog.getByText('Please translate at least one step or sub-step!')).toBeInTheDocument();
  await user.type(dialog.getByLabelText('Fit housing'), 'Gehäuse einsetzen');
  await user.type(dialog.getByLabelText('Pack'), 'Verpacken~');
  await user.click(dialog.getByRole('button', { name: 'Save' }));
  expect(dialog.getByText('Translation "Verpacken~" contains invalid characters (~).')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')).toEqual([]);
  await user.clear(dialog.getByLabelText('Pack'));
  await user.type(dialog.getByLabelText('Pack'), ' Verpacken ');
  await user.click(dialog.getByRole('button', { name: 'Save' }));

  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/').map((c) => c.body)).toEqual([
    { translation: { 'Fit housing': 'Gehäuse einsetzen', Pack: 'Verpacken' }, translation_name: 'Deutsch' },
  ]);
  const names = await section.findByRole('table', { name: 'Translated names' });
  expect(within(names).getAllByRole('row')[0]).toHaveTextContent('EnglishDeutsch');
  expect(within(names).getAllByRole('row')[1]).toHaveTextContent('Fit housingGehäuse einsetzen');
  expect(within(names).getAllByRole('row')[2]).toHaveTextContent('Place housing(English)');

  // The language switch: English by default, the translation on choice.
  const view = () => within(region('Operation'));
  expect(screen.getByLabelText('Show names in')).toHaveValue('english');
  expect(view().getByRole('region', { name: 'Process 1: Pre-assembly' })).toHaveTextContent('Fit housingPlace housing');
  await user.selectOptions(screen.getByLabelText('Show names in'), 'Deutsch');
  expect(view().getByRole('region', { name: 'Process 1: Pre-assembly' })).toHaveTextContent('Gehäuse einsetzenPlace housing');
  expect(view().getByRole('region', { name: 'Process 2: Packing' })).toHaveTextContent('VerpackenPut in box');
  expect(within(screen.getByRole('group', { name: 'Negative steps' })).getByRole('checkbox', { name: '3. Verpacken' })).toBeInTheDocument();
  await user.selectOptions(screen.getByLabelText('Show names in'), 'English');
  expect(view().getByRole('region', { name: 'Process 2: Packing' })).toHaveTextContent('PackPut in box');

  // Edit: the fields start from the translation.
  await user.click(section.getByRole('button', { name: 'Edit translation' }));
  const edit = within(screen.getByRole('dialog', { name: 'Edit translation' }));
  expect(edit.getByLabelText('Language')).toHaveValue('Deutsch');
  expect(edit.getByLabelText('Pack')).toHaveValue('Verpacken');
  await user.type(edit.getByLabelText('Put in box'), 'In die Kiste legen');
  await user.click(edit.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')[1]?.body).toEqual({
    translation: { 'Fit housing': 'Gehäuse einsetzen', Pack: 'Verpacken', 'Put in box': 'In die Kiste legen' },
    translation_name: 'Deutsch',
  });

  // Delete, after a confirmation: the names are English only again.
  await user.selectOptions(screen.getByLabelText('Show names in'), 'Deutsch');
  await user.click(section.getByRole('button', { name: 'Delete translation' }));
  await user.click(within(screen.getByRole('dialog', { name: 'Delete translation' })).getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Data deleted successfully!')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/task/1/')[2]?.body).toEqual({ translation: {} });
  expect(await section.findByText('No translation: the names show in English.')).toBeInTheDocument();
  expect(screen.queryByLabelText('Show names in')).toBeNull();
  expect(view().getByRole('region', { name: 'Process 2: Packing' })).toHaveTextContent('PackPut in box');
});
