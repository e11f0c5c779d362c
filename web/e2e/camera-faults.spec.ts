/**
 * What a camera does, as a plant engineer sees it on the device page, with the real
 * agent (`target/debug/gemba-agent`): its camera `cam0` watches an RTSP address nothing
 * answers at, so its task's source fails after the start; and the portal also sets a
 * task on `cam9`, a camera the device does not have. The page says, for cam0, that it
 * failed, why (the camera and its source named) and when the agent tries again; for
 * cam9, that the device refused the start and why. The cloud does not keep asking.
 */
import { createServer } from 'node:net';

import { expect, test } from '@playwright/test';

import type { DeviceCommand } from '../src/api/generated/DeviceCommand';
import { addDevice, adminGet, createOrganization, createTask, createUser, openFromMenu, runAgent, runTaskOn, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'camera-faults-1';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((done) => srv.listen(0, '127.0.0.1', done));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((done) => srv.close(() => done()));
  return port;
}

test('a failing source and a missing camera show why on the device page', async ({ page }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const org = await createOrganization(`Faults ${run}`);
  for (const f of ['Devices', 'Define Operation']) await subscribe(org.id, f);
  const task = await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\nFasten screws:\nDrive;\nInspect:\nLook;\n');
  const bench = await addDevice(org.id, 'Bench');
  await runTaskOn(org.id, bench.device.id, 'cam0', task.id);
  await runTaskOn(org.id, bench.device.id, 'cam9', task.id);
  const source = `rtsp://127.0.0.1:${await closedPort()}/line1`;
  const stopAgent = runAgent(bench.code, [`cam0=${source}`]);
  try {
    const email = `faults-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_user', org.id);
    await uiLogin(page, email, PASSWORD);
    await openFromMenu(page, 'Devices');
    await page.getByRole('table', { name: 'Devices' }).getByRole('link', { name: 'Bench' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Bench' })).toBeVisible();
    // The page follows the device live: cam0's failure arrives with its reason.
    const cameras = page.getByRole('table', { name: 'Cameras' });
    const cam0 = cameras.getByRole('row', { name: /cam0/ });
    await expect(cam0).toContainText('Failed since', { timeout: 60_000 });
    await expect(cam0).toContainText('cam0');
    await expect(cam0).toContainText(source);
    await expect(cam0).toContainText('next try');
    const tasks = page.getByRole('table', { name: 'Camera tasks' });
    await expect(tasks.getByRole('row', { name: /cam9/ })).toContainText('Refused', { timeout: 30_000 });
    await expect(tasks.getByRole('row', { name: /cam9/ })).toContainText('this device has no camera cam9');
    await page.screenshot({ path: test.info().outputPath('camera-faults.png'), fullPage: true });
    // A few heartbeats later the cloud has sent the two starts made while the device was
    // away and the two it sent when it came online, and nothing more.
    await page.waitForTimeout(5_000);
    const commands = await adminGet<DeviceCommand[]>(org.id, `device/${bench.device.id}/commands/`);
    expect(commands.map((c) => c.command.type)).toEqual(['start_task', 'start_task', 'start_task', 'start_task']);
  } finally {
    stopAgent();
  }
});
