/**
 * Virtual tasks and rectification steps against the real server: on Define Operation, an
 * engineer opens a two-process operation, sees each process as a virtual task with its
 * steps, adds rectification steps to a step (a blank one refused first), sees them under
 * their step in order, and deletes one. An analytics user of the same organisation is
 * sent away from the screen.
 */
import { expect, test } from '@playwright/test';

import { createOrganization, createTask, createUser, origin, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'rectify-pass-1';
const PUMP = 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\nPacking~\n';

test('a task shows its virtual tasks, and its rectification steps are added and deleted', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Rectify Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  await createTask(org.id, PUMP);
  const email = `rectifier-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/process`);
  await page.getByRole('complementary', { name: 'Operations' }).getByRole('button', { name: 'Assemble pump', exact: true }).click();
  const detail = page.getByRole('article', { name: 'Assemble pump' });

  // Each process is a virtual task, its steps numbered as in the whole operation.
  const virtual = detail.getByRole('table', { name: 'Virtual tasks' });
  await expect(virtual.getByRole('row')).toHaveCount(3);
  await expect(virtual.getByRole('row').nth(1)).toContainText('Assemble pump / Pre-assembly');
  await expect(virtual.getByRole('row').nth(1)).toContainText('1. Fit housing, 2. Check seal');
  await expect(virtual.getByRole('row').nth(2)).toContainText('3. Pack');

  const section = detail.getByRole('region', { name: 'Rectification steps' });
  const form = section.getByRole('form', { name: 'Add a rectification step' });
  await form.getByLabel('Step').selectOption({ label: '2. Check seal' });
  await form.getByRole('button', { name: 'Add rectification step' }).click();
  await expect(form.getByText('Describe what the operator does.')).toBeVisible();
  for (const text of ['Reseat the seal', 'Check the seal again']) {
    await form.getByLabel('Rectification').fill(text);
    await form.getByRole('button', { name: 'Add rectification step' }).click();
    await expect(page.getByText('Data created successfully!').first()).toBeVisible();
    await expect(section.getByText(text)).toBeVisible();
  }
  const seal = section.getByRole('list', { name: 'Rectification of Check seal' });
  await expect(seal.getByRole('listitem')).toHaveCount(2);
  await expect(seal.getByRole('listitem').first()).toContainText('Reseat the seal');

  await seal.getByRole('button', { name: 'Delete rectification step 1 of Check seal' }).click();
  await expect(page.getByText('Data deleted successfully!')).toBeVisible();
  await expect(seal.getByRole('listitem')).toHaveCount(1);
  await expect(seal.getByRole('listitem').first()).toContainText('Check the seal again');
  // Kept by the server: a reload shows the same.
  await page.reload();
  await page.getByRole('complementary', { name: 'Operations' }).getByRole('button', { name: 'Assemble pump', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Rectification of Check seal' }).getByRole('listitem')).toHaveCount(1);
});

test('an analytics user is sent away from the rectification steps', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Rectify Views ${run}`);
  await subscribe(org.id, 'Define Operation');
  const email = `rectify-analyst-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await page.goto(`${site}/user/process`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await expect(page.getByRole('region', { name: 'Rectification steps' })).toHaveCount(0);
});
