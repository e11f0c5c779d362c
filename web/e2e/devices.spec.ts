/**
 * Devices against the real server: an org admin of an organisation subscribed to
 * 'Devices' and 'Define Operation' adds a device in the portal and sees its one-time
 * code and the command that enrols the agent; the test enrols it with that code as the
 * agent would (`POST device/enroll/`); the device's page then shows it enrolled, the
 * user starts a task on cam0 (running, a start_task command listed) and stops it; the
 * Devices list shows the device, with a star once starred, and hears it go online and
 * offline as it says so over MQTT (the device stream, `/api/ws`, in the real browser).
 */
import { type Page, expect, test } from '@playwright/test';

import { createOrganization, createTask, createUser, enrolDevice, origin, sayStatus, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'devices-pass-1';

/** The value shown for a fact of the device page (`<dt>name</dt><dd>value</dd>`). */
const fact = (page: Page, name: string) => page.locator(`dt:text-is("${name}") + dd`);

test('a device is added, enrolled with its code, runs a task and is starred', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Bench Works ${run}`);
  await subscribe(org.id, 'Devices');
  await subscribe(org.id, 'Define Operation');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  const email = `devices-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_admin', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  const nav = page.getByRole('navigation', { name: 'Main' });

  // No device yet: the list says so and offers Add device.
  await nav.getByRole('link', { name: 'Devices' }).click();
  await expect(page.getByText('No devices yet.')).toBeVisible();

  // Add a device: the name is required; then the one-time code and the command show.
  await nav.getByRole('link', { name: 'Add Device' }).click();
  await expect(page).toHaveURL(`${site}/user/add-device`);
  const form = page.getByRole('form', { name: 'Add device' });
  await form.getByRole('button', { name: 'Add device' }).click();
  await expect(form.getByText('Device name is required!')).toBeVisible();
  await form.getByLabel('Device name').fill('Bench 1');
  await form.getByLabel('Serial number').fill('SN-0001');
  await form.getByRole('button', { name: 'Add device' }).click();
  await expect(page.getByText('Data created successfully!')).toBeVisible();
  const shown = page.getByRole('region', { name: 'Enrolment code for Bench 1' });
  const codeText = shown.locator('.enrolment-code-value');
  await expect(codeText).toHaveText(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  const code = (await codeText.textContent()) ?? '';
  await expect(shown.locator('code')).toHaveText(`gemba-agent enroll --cloud http://${org.name}.localhost:${new URL(site).port} --code ${code}`);

  // The agent's enrolment, from here.
  const credentials = await enrolDevice(code);
  expect(credentials.display_name).toBe('Bench 1');

  await shown.getByRole('link', { name: 'Open the page of Bench 1' }).click();
  await expect(page).toHaveURL(`${site}/user/devices/${credentials.device}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Bench 1' })).toBeVisible();
  await expect(fact(page, 'Serial number')).toHaveText('SN-0001');
  await expect(fact(page, 'Enrolled')).toHaveText('Enrolled');
  // Enrolled, but no agent has connected: offline, never seen.
  await expect(fact(page, 'Status')).toHaveText('Offline never seen');

  // Start the task on cam0.
  const start = page.getByRole('form', { name: 'Start a task' });
  await expect(start.getByLabel('Camera')).toHaveValue('cam0');
  await start.getByLabel('Task').selectOption({ label: 'Assemble pump' });
  await start.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();
  const tasks = page.getByRole('table', { name: 'Camera tasks' });
  await expect(tasks.getByRole('row').nth(1)).toHaveText(/cam0\s*Assemble pump\s*Running/);
  const commands = page.getByRole('table', { name: 'Recent commands' });
  await expect(commands.getByRole('row').nth(1)).toContainText('start_task');
  await expect(commands.getByRole('row').nth(1)).toContainText('cam0');
  await expect(commands.getByRole('row').nth(1)).toContainText('Assemble pump');

  // Stop it.
  await tasks.getByRole('button', { name: 'Stop cam0' }).click();
  await expect(tasks.getByRole('row').nth(1)).toHaveText(/cam0\s*Assemble pump\s*Stopped/);
  await expect(commands.getByRole('row').nth(1)).toContainText('stop_task');
  await expect(commands.getByRole('row')).toHaveCount(3);

  // The list: the device, enrolled, what its camera was set to run; starred, it shows the mark.
  await nav.getByRole('link', { name: 'Devices' }).click();
  await expect(page).toHaveURL(`${site}/user/devices`);
  const list = page.getByRole('table', { name: 'Devices' });
  const row = list.getByRole('row', { name: /Bench 1/ });
  await expect(row).toContainText('SN-0001');
  await expect(row).toContainText('Enrolled');
  await expect(row).toContainText(`cam0: ${task.taskName} (stopped)`);
  await row.getByRole('button', { name: 'Star Bench 1' }).click();
  const unstar = row.getByRole('button', { name: 'Unstar Bench 1' });
  await expect(unstar).toHaveAttribute('aria-pressed', 'true');
  await expect(unstar).toHaveText('★');

  // The star is the server's: a reload keeps it.
  await page.reload();
  await expect(page.getByRole('table', { name: 'Devices' }).getByRole('button', { name: 'Unstar Bench 1' })).toHaveText('★');

  // Live: the list does not ask again by itself; what the device says over MQTT reaches
  // it through the device stream.
  const listed = page.getByRole('table', { name: 'Devices' }).getByRole('row', { name: /Bench 1/ });
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live');
  await expect(listed).toContainText('Offline');
  await sayStatus(credentials, true);
  await expect(listed).toContainText('Online');
  await sayStatus(credentials, false);
  await expect(listed).toContainText('Offline');
});
