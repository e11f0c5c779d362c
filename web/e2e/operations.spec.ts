/**
 * Define Operation against the real server: a user of an organisation subscribed to
 * 'Define Operation' defines an operation with two processes in the editor (the save
 * rules of section 5 refusing it first), saves it, edits it through the three phases
 * (add/delete, merge, rename), reverts it from its history, adds a translation and
 * switches the shown language; the Tasks screen then lists it and opens it.
 */
import { type Locator, type Page, expect, test } from '@playwright/test';

import { createOrganization, createUser, origin, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'operation-pass-1';

/** The editor's group (fieldset) named exactly `name` ("Step 1" is not "Sub-step 1"). */
const group = (scope: Page | Locator, name: string) => scope.getByRole('group', { name, exact: true });

/** Adds a step named `name` with `substeps` to process `process` (1-based) of the editor. */
async function addStep(page: Page, process: number, name: string, substeps: string[]): Promise<void> {
  const box = group(page, `Process ${process}`);
  await box.getByRole('button', { name: 'Add step' }).click();
  // The new step's name has the focus.
  await page.keyboard.type(name);
  const step = box.getByRole('group', { name: /^Step \d+$/ }).last();
  await expect(step.getByRole('textbox', { name: 'Step name', exact: true })).toHaveValue(name);
  for (const s of substeps) {
    await step.getByRole('button', { name: 'Add sub-step' }).click();
    await page.keyboard.type(s);
  }
}

test('an operation is defined, edited through the phases, reverted, translated and listed', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Pump Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  const email = `definer-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Define Operation' }).click();
  await expect(page).toHaveURL(`${site}/user/process`);
  const panel = page.getByRole('complementary', { name: 'Operations' });
  await expect(panel.getByText('No operation yet.')).toBeVisible();

  // A new operation: the name and the save rules are checked before anything is sent.
  await panel.getByRole('button', { name: 'New' }).click();
  const form = page.getByRole('region', { name: 'New operation' });
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByText('Task name is required!')).toBeVisible();
  await form.getByLabel('Operation name').fill('Assemble pump');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('An operation must contain atleast one process!')).toBeVisible();

  await form.getByRole('button', { name: 'Add process' }).click();
  await group(page, 'Process 1').getByRole('textbox', { name: 'Process name', exact: true }).fill('Pre-assembly');
  await addStep(page, 1, 'Fit housing', ['Place housing', 'Tighten screws']);
  await addStep(page, 1, 'Check seal', ['Inspect seal']);
  await form.getByRole('button', { name: 'Add process' }).click();
  await group(page, 'Process 2').getByRole('textbox', { name: 'Process name', exact: true }).fill('Packing');
  await addStep(page, 2, 'Pack', []);
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Each step must have atleast one sub-step!')).toBeVisible();
  await group(page, 'Step 3').getByRole('button', { name: 'Add sub-step' }).click();
  await page.keyboard.type('Put in box');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Data created successfully!')).toBeVisible();

  const detail = page.getByRole('article', { name: 'Assemble pump' });
  await expect(detail).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Assemble pump', exact: true })).toHaveAttribute('aria-current', 'true');
  const operation = detail.getByRole('region', { name: 'Operation', exact: true });
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).toContainText('Check seal');
  await expect(operation.getByRole('region', { name: 'Process 2: Packing' })).toContainText('Put in box');
  await expect(detail.getByText('NEW TASK')).toBeVisible();

  // Edit: add a step, merge one into another, rename one; then save.
  await operation.getByRole('button', { name: 'Edit operation' }).click();
  const current = operation.getByRole('list', { name: 'Editing phases' }).locator('[aria-current="step"]');
  await expect(current).toHaveText('1. Add/Delete');
  await addStep(page, 2, 'Label', ['Stick label']);
  await operation.getByRole('button', { name: 'Next' }).click();
  await expect(current).toHaveText('2. Merge');
  const merge = operation.getByRole('form', { name: 'Merge steps' });
  await merge.getByLabel('Merge step').selectOption({ label: '2. Check seal' });
  await merge.getByLabel('Into step').selectOption({ label: '1. Fit housing' });
  await merge.getByRole('button', { name: 'Merge' }).click();
  await operation.getByRole('button', { name: 'Next' }).click();
  await expect(current).toHaveText('3. Rename');
  await group(operation, 'Step 2').getByRole('textbox', { name: 'Step name', exact: true }).fill('Pack box');
  await expect(operation.getByText('1 step added, 1 step merged, 1 name changed')).toBeVisible();
  await operation.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).toContainText('Inspect seal');
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).not.toContainText('Check seal');
  await expect(operation.getByRole('region', { name: 'Process 2: Packing' })).toContainText('Pack box');
  await expect(detail.getByText(/^3 steps/)).toBeVisible();

  // History: revert to the operation as created.
  const history = detail.getByRole('region', { name: 'History' }).getByRole('table', { name: 'History' });
  await expect(history.getByRole('row')).toHaveCount(3);
  await expect(history.getByRole('row').nth(1)).toContainText('updated');
  await history.getByRole('row').nth(2).getByRole('button', { name: /^Revert to created/ }).click();
  await page.getByRole('dialog', { name: 'Revert operation' }).getByRole('button', { name: 'Revert' }).click();
  // The operation and the start steps that followed the merge come back.
  await expect(page.getByText(/^Task successfully reverted! 2 field\(s\) updated: (taskParameters, task_detail|task_detail, taskParameters)$/)).toBeVisible();
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).toContainText('Check seal');
  await expect(operation.getByRole('region', { name: 'Process 2: Packing' })).not.toContainText('Label');
  await expect(history.getByRole('row')).toHaveCount(4);
  await expect(history.getByRole('row').nth(1)).toContainText('reverted');

  // A translation, then the language switch.
  const translation = detail.getByRole('region', { name: 'Translation' });
  await translation.getByRole('button', { name: 'Add translation' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add translation' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('The language is required!')).toBeVisible();
  await dialog.getByLabel('Language').fill('Deutsch');
  await dialog.getByLabel('Fit housing', { exact: true }).fill('Gehäuse einsetzen');
  await dialog.getByLabel('Pack', { exact: true }).fill('Verpacken');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(translation.getByRole('table', { name: 'Translated names' })).toContainText('Gehäuse einsetzen');

  const language = detail.getByLabel('Show names in');
  await expect(language).toHaveValue('english');
  await language.selectOption({ label: 'Deutsch' });
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).toContainText('Gehäuse einsetzen');
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).toContainText('Place housing');
  await expect(operation.getByRole('region', { name: 'Process 2: Packing' })).toContainText('Verpacken');
  await language.selectOption({ label: 'English' });
  await expect(operation.getByRole('region', { name: 'Process 1: Pre-assembly' })).toContainText('Fit housing');

  // The Tasks screen lists it and opens it here.
  await page.goto(`${site}/user/tasks`);
  const row = page.getByRole('table', { name: 'Tasks' }).getByRole('row', { name: /Assemble pump/ });
  await expect(row).toContainText('NEW TASK');
  await expect(row).toContainText('3');
  await row.getByRole('link', { name: 'Assemble pump' }).click();
  await expect(page).toHaveURL(/\/user\/process\?task=\d+$/);
  await expect(page.getByRole('article', { name: 'Assemble pump' })).toBeVisible();
});
