/**
 * Agent releases against the real server (issue 30): on `admin.localhost` the super
 * admin uploads a small file as a release with a wrong signature (refused, the message
 * under the signature), then signed with the cloud's release key (`gemba-cloud
 * sign-release` on the e2e server's data folder, as an operator does on the cloud's
 * host); sees it listed in dev (uploaded: no x86_64 device follows dev); moves it to prod, where an
 * updatable x86_64 device of a new organisation joins its roll-out (sent its update,
 * which it never answers here); stops the roll-out and goes on with it; downloads the
 * binary (the same bytes); deletes it after a confirmation. Instances lists the
 * organisation's two devices with what their statuses said, and changes one's channel.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { expect, test } from '@playwright/test';

import { addDevice, adminUiLogin, createOrganization, createUser, enrolDevice, openFromMenu, sayStatus, uniqueName } from './env';

/** Signs `file` as the release `version` for `target` with the e2e server's release key. */
function signRelease(file: string, version: string, target: string): string {
  const bin = process.env.GEMBA_BIN ?? resolve(import.meta.dirname, '../../target/debug/gemba-cloud');
  const data = process.env.GEMBA_E2E_DATA;
  if (!data) throw new Error('GEMBA_E2E_DATA unset: run through playwright.config.ts (global-setup.ts)');
  const r = spawnSync(bin, ['sign-release', '--data', data, '--target', target, '--version', version, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gemba-cloud sign-release: ${r.stderr}`);
  return r.stdout.trim();
}

test('the super admin uploads a signed release, moves, stops, resumes, downloads and deletes it; Instances changes a channel', async ({ browser }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const version = `9.0.0-${run}`;
  const dir = mkdtempSync(join(tmpdir(), 'gemba-e2e-release-'));
  const file = join(dir, 'gemba-agent');
  const bytes = Buffer.from(`#!/bin/sh\necho gemba-agent ${version}\n`.repeat(64));
  writeFileSync(file, bytes);
  const signature = signRelease(file, version, 'x86_64');

  // An organisation with an updatable x86_64 device following prod, and an older one.
  const orgName = `Fleet ${run}`;
  const fleetAdmin = `fleet-admin-${run}@gemba.test`.toLowerCase();
  const org = await createOrganization(orgName);
  const lathe = await enrolDevice((await addDevice(org.id, `Lathe ${run}`)).code);
  const press = await enrolDevice((await addDevice(org.id, `Press ${run}`)).code);
  await sayStatus(lathe, true, [], { agent_version: '8.9.0', target: 'x86_64', updatable: true });
  await sayStatus(press, true, [], { agent_version: '8.1.0', target: 'aarch64', updatable: false });

  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  try {
    // A super admin of its own: the seeded one's verification codes (5 in 10 minutes)
    // are spent by the other specs' sign-ins in a full run.
    await createUser(fleetAdmin, 'fleet-pass-1', 'admin', null);
    await adminUiLogin(page, fleetAdmin, 'fleet-pass-1');

    // Instances: the organisation's devices, as their statuses said.
    await openFromMenu(page, 'Instances');
    await page.getByRole('searchbox', { name: 'Search devices' }).fill(run);
    await page.getByRole('button', { name: 'Search' }).click();
    const instances = page.getByRole('table', { name: 'Instances' });
    const latheRow = instances.getByRole('row', { name: new RegExp(`Lathe ${run}`) });
    const pressRow = instances.getByRole('row', { name: new RegExp(`Press ${run}`) });
    await expect(latheRow).toContainText(orgName);
    await expect(latheRow).toContainText('Online');
    await expect(latheRow).toContainText('8.9.0');
    await expect(latheRow).toContainText('x86_64');
    await expect(pressRow).toContainText('8.1.0');
    await expect(pressRow).toContainText('aarch64');
    await expect(instances.getByRole('row')).toHaveCount(3);
    // Press follows dev from now on; Lathe stays on prod.
    const pressChannel = page.getByRole('combobox', { name: `Update channel of Press ${run}` });
    await expect(pressChannel).toHaveValue('prod');
    await pressChannel.selectOption('dev');
    await expect(page.getByText('Data updated successfully!')).toBeVisible();
    await page.reload();
    await expect(page.getByRole('combobox', { name: `Update channel of Press ${run}` })).toHaveValue('dev');
    await expect(page.getByRole('combobox', { name: `Update channel of Lathe ${run}` })).toHaveValue('prod');

    // Updates: a wrong signature is refused under its field, nothing listed.
    await openFromMenu(page, 'Updates');
    const form = page.getByRole('form', { name: 'Upload a release' });
    await form.getByLabel('Agent binary').setInputFiles(file);
    await form.getByLabel('Version').fill(version);
    await form.getByLabel('Branch').fill(`e2e/${run}`);
    await expect(form.getByLabel('Signing command')).toHaveText(`gemba-cloud sign-release --target x86_64 --version ${version} gemba-agent`);
    const wrong = Buffer.alloc(64, 7).toString('base64');
    await form.getByLabel('Signature').fill(wrong);
    await form.getByRole('button', { name: 'Upload' }).click();
    await expect(form.getByLabel('Signature')).toHaveAccessibleDescription('The signature does not match the release key.');
    const releases = page.getByRole('table', { name: 'Releases' });
    const name = `${version} (x86_64)`;
    await expect(page.getByRole('button', { name: `Show the roll-out of ${name}` })).toHaveCount(0);

    // Signed with the release key: uploaded to dev, where no x86_64 device follows.
    await form.getByLabel('Signature').fill(signature);
    await form.getByRole('button', { name: 'Upload' }).click();
    await expect(page.getByText(`Release ${name} uploaded to dev.`)).toBeVisible();
    const row = releases.getByRole('row', { name: new RegExp(version.replaceAll('.', '\\.')) });
    await expect(row).toContainText(`e2e/${run}`);
    await expect(row).toContainText('dev');
    await expect(row).toContainText('Uploaded');
    await expect(row).toContainText('no devices');
    await expect(row).toContainText(`${(bytes.length / 1024).toFixed(1)} KB`);

    // To prod: Lathe joins the roll-out and is sent the update.
    await page.getByRole('button', { name: `Move ${name} to prod` }).click();
    await expect(page.getByText(`Version ${version} moved to prod (1 release).`)).toBeVisible();
    await expect(row).toContainText('prod');
    await expect(row).toContainText('Rolling out');
    await expect(row).toContainText('0 done of 1');
    await page.getByRole('button', { name: `Show the roll-out of ${name}` }).click();
    const rollout = page.getByRole('region', { name: 'Roll-out' });
    await expect(rollout.getByRole('heading', { name: `Roll-out of ${name} in prod` })).toBeVisible();
    const devices = rollout.getByRole('table', { name: 'Roll-out devices' });
    await expect(devices.getByRole('row')).toHaveCount(2);
    await expect(devices.getByRole('row', { name: new RegExp(`Lathe ${run}`) })).toContainText(/First\s*Sent/);
    await expect(devices.getByRole('row', { name: new RegExp(`Lathe ${run}`) })).toContainText('8.9.0');

    // Stopped, then gone on with.
    await page.getByRole('button', { name: `Stop the roll-out of ${name}` }).click();
    await expect(row).toContainText(`Stopped: Stopped by ${fleetAdmin}.`);
    await expect(rollout).toContainText(`Stopped: Stopped by ${fleetAdmin}.`);
    await page.getByRole('button', { name: `Go on with the roll-out of ${name}` }).click();
    await expect(row).toContainText('Rolling out');
    await expect(page.getByRole('button', { name: `Stop the roll-out of ${name}` })).toBeVisible();

    // Downloaded: the same bytes.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download ${name}` }).click();
    const got = await download;
    expect(got.suggestedFilename()).toBe(`gemba-agent-${version}-x86_64`);
    expect(readFileSync(await got.path())).toEqual(bytes);

    // Deleted after a confirmation.
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the release?' });
    await expect(dialog).toContainText(`of branch e2e/${run} in prod`);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Data deleted successfully!')).toBeVisible();
    await expect(page.getByRole('button', { name: `Show the roll-out of ${name}` })).toHaveCount(0);
    await expect(rollout).toBeHidden();
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
