/**
 * Every save rule of spec section 5 answers its message in the browser: operations
 * imported from their text into a new operation's editor are refused on Save with the
 * rule's message (nothing is sent), and the editor's own refusals (finish the last step
 * or sub-step first, at most 2 processes) show as they happen. The training block's
 * message is the server's and is tested on the API (cloud/tests/it/tasks.rs).
 */
import { type Page, expect, test } from '@playwright/test';

import { createOrganization, createUser, origin, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'rules-pass-1';

/** Text → the message Save answers. */
const CASES: [string, string][] = [
  ['Op\n:\na;\n', 'Please fill the empty steps!'],
  ['Op\nA:\n', 'Each step must have atleast one sub-step!'],
  ['Op\nA`:\na;\n', 'Step name "A`" contains invalid characters (~).'],
  ['Op\nA:\na`;\n', 'Substep name "a`" contains invalid characters (~).'],
  ['Op\nA:\na;\nP~\nB:\nb;\nP~\n', 'Processes name cannot be same!'],
  ['Op\nA:\na;\nP~\nA:\nb;\nQ~\n', 'Steps name cannot be same!'],
  ['Op\nA:\na b;\nab;\n', 'Substeps cannot be same!'],
  ['Op\nA:\nA;\n', 'Step and Substep name cannot be same!'],
  ['Op\n', 'An operation must contain atleast one process!'],
  ['Op\nP~\n', 'A process must contain atleast one step!'],
  ['Op\nA:\na;\nP~\nB:\nb;\nQ~\nC:\nc;\n', 'An operation can contain at most 2 process!'],
];

async function importText(page: Page, text: string): Promise<void> {
  await page.getByRole('complementary', { name: 'Operations' }).getByRole('button', { name: 'Import' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import operation' });
  await dialog.getByLabel('Operation text').fill(text);
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(dialog).toBeHidden();
}

test('each save rule of section 5 refuses its operation with its message', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Rule Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  const email = `rules-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  let posts = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/organization/task/')) posts += 1;
  });
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Define Operation' }).click();
  await expect(page).toHaveURL(`${site}/user/process`);

  for (const [text, message] of CASES) {
    await importText(page, text);
    const form = page.getByRole('region', { name: 'New operation' });
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(message, { exact: true }).first()).toBeVisible();
  }
  expect(posts).toBe(0);

  // The editor's own refusals.
  await page.getByRole('complementary', { name: 'Operations' }).getByRole('button', { name: 'New' }).click();
  const form = page.getByRole('region', { name: 'New operation' });
  await form.getByRole('button', { name: 'Add process' }).click();
  const process = form.getByRole('group', { name: 'Process 1', exact: true });
  await process.getByRole('button', { name: 'Add step' }).click();
  await process.getByRole('button', { name: 'Add step' }).click();
  await expect(page.getByText('Please finish the last step first!', { exact: true }).first()).toBeVisible();
  await page.keyboard.type('Fit');
  const step = process.getByRole('group', { name: 'Step 1', exact: true });
  await step.getByRole('button', { name: 'Add sub-step' }).click();
  await step.getByRole('button', { name: 'Add sub-step' }).click();
  await expect(page.getByText('Please finish the last sub-step first!', { exact: true }).first()).toBeVisible();
  await form.getByRole('button', { name: 'Add process' }).click();
  await form.getByRole('button', { name: 'Add process' }).click();
  await expect(page.getByText('An operation can contain at most 2 process!', { exact: true }).first()).toBeVisible();
  expect(posts).toBe(0);
});
