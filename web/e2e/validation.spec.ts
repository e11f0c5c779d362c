/**
 * Validation against the real server and the real agent: an engineer makes a group of
 * an operation, adds its labelled demo video, runs the default model over it twice
 * (each run is `gemba-agent eval` on the video, started by the cloud), reads a run's
 * report over the group, per step and per video, compares the two runs side by side,
 * tries a record from a cycle without a clip (refused with why), and deletes the group.
 * The model version is the default model registered from a model file of a model type
 * made by a super admin of the spec's own; an analytics user is sent away.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { expect, test } from '@playwright/test';

import type { ModelFile, ModelType, ModelVersion, ValidationGroup, ValidationRun } from '../src/api/generated';

import {
  adminGet,
  apiLogin,
  createOrganization,
  createTask,
  createUser,
  demoFootage,
  labelVideo,
  origin,
  subscribe,
  uiLogin,
  uniqueName,
  uploadVideo,
} from './env';

const PASSWORD = 'validate-pass-1';
const api = (path: string) => `${origin('127.0.0.1')}/api/${path}`;

type Truth = { operation: string; segments: { step: number; start_ms: number; end_ms: number }[] };

/** The default model (`target/models/default`) as a model version of `task` in `org`,
 * registered by a super admin of this spec's own from a model file of a model type of
 * its own (model types are the platform's: another spec's would be shared with it). */
async function defaultModel(run: string, org: number, task: number): Promise<ModelVersion> {
  const email = `validation-admin-${run}@gemba.test`;
  await createUser(email, PASSWORD, 'admin', null);
  const token = (await apiLogin(email, PASSWORD)).token;
  const headers = { Authorization: `Bearer ${token}` };
  // The default model's recipe (the seeded type's: 64×48 frames, 48 hidden units).
  const made = await fetch(api('organization/model_types'), {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `Validation ${run} 64×48`, input_width: 64, input_height: 48, hidden: 48 }),
  });
  expect(made.status, await made.clone().text()).toBe(201);
  const type = (await made.json()) as ModelType;
  const bytes = readFileSync(join(dirname(demoFootage()), 'default', 'model.onnx'));
  const up = await fetch(api(`organization/model_files?model_type=${type.id}&name=default-${run}.onnx`), {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/octet-stream' },
    body: bytes,
  });
  expect(up.ok, await up.clone().text()).toBe(true);
  const file = (await up.json()) as ModelFile;
  const res = await fetch(api('organization/model_version'), {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', Organization: String(org) },
    body: JSON.stringify({ task, model_file: file.id }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as ModelVersion;
}

test('an engineer runs a model version over a validation group and compares two runs', async ({ page }) => {
  test.setTimeout(180_000);
  const run = uniqueName();
  const org = await createOrganization(`Validation Works ${run}`);
  for (const f of ['Define Operation', 'Record Training Set']) await subscribe(org.id, f);
  const truth = JSON.parse(readFileSync(demoFootage().replace(/\.mp4$/, '.truth.json'), 'utf8')) as Truth;
  const task = await createTask(org.id, truth.operation);
  const video = await uploadVideo(org.id, task.id, demoFootage(), `bench-${run}.mp4`);
  const end = video.duration_ms ?? 0;
  await labelVideo(
    org.id,
    video.id,
    truth.segments.filter((s) => s.start_ms < end).map((s) => ({ ...s, end_ms: Math.min(s.end_ms, end) })),
  );
  const model = await defaultModel(run, org.id, task.id);
  const email = `validator-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);

  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Validation', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Validation' })).toBeVisible();
  await expect(page.getByText('No validation groups yet.')).toBeVisible();

  // A group of the operation, then its labelled video in it.
  const form = page.getByRole('form', { name: 'New validation group' });
  await form.getByRole('button', { name: 'Create group' }).click();
  await expect(form.getByText('Give it a name.')).toBeVisible();
  await form.getByLabel('Name').fill(`Bench ${run}`);
  await form.getByLabel('Operation').selectOption({ label: task.taskName });
  await form.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByText('Data created successfully!')).toBeVisible();
  const panel = page.getByRole('region', { name: `Group Bench ${run}` });
  await panel.getByRole('checkbox', { name: `bench-${run}.mp4` }).check();
  await panel.getByRole('button', { name: 'Add to group' }).click();
  await expect(page.getByText('Group updated successfully')).toBeVisible();
  await expect(panel.getByRole('table', { name: 'Group videos' })).toContainText('checked');

  // A run of the default model: its report over the group, per step and per video.
  const start = panel.getByRole('form', { name: 'Start a run' });
  await start.getByLabel('Model version').selectOption({ label: model.version });
  await start.getByRole('button', { name: 'Start run' }).click();
  const report = panel.getByRole('region', { name: 'Run report' });
  await expect(report.getByRole('heading', { name: `${model.version} on Bench ${run}: succeeded` })).toBeVisible({ timeout: 90_000 });
  const groups = await adminGet<ValidationGroup[]>(org.id, 'organization/validation-groups/');
  const first = await adminGet<ValidationRun>(org.id, `organization/validation-runs/${groups[0]!.runs[0]!.id}/`);
  const accuracy = `${((first.report?.frame_accuracy ?? 0) * 100).toFixed(1)}%`;
  await expect(report.getByText(accuracy).first()).toBeVisible();
  await expect(report.getByRole('table', { name: 'Per step' }).getByRole('row')).toHaveCount(1 + 5);
  await expect(report.getByRole('table', { name: 'Per video' })).toContainText(`bench-${run}.mp4`);

  // A second run, then the two side by side.
  await start.getByLabel('Model version').selectOption({ label: model.version });
  await start.getByRole('button', { name: 'Start run' }).click();
  const runs = panel.getByRole('table', { name: 'Runs' });
  await expect(runs.getByRole('row')).toHaveCount(3);
  await expect(runs.getByRole('row').filter({ hasText: 'succeeded' })).toHaveCount(2, { timeout: 90_000 });
  for (const box of await runs.getByRole('checkbox').all()) await box.check();
  const side = panel.getByRole('table', { name: 'Runs side by side' });
  await expect(side.getByRole('row', { name: /Frame accuracy/ })).toContainText(`${accuracy}${accuracy}`);

  // Records come from cycles with a clip: an id that is none is refused with why.
  const trace = panel.getByRole('form', { name: 'Records from traces' });
  await trace.getByLabel('Cycle ids').fill('no-such-cycle');
  await trace.getByRole('button', { name: 'Add records' }).click();
  await expect(trace.getByText("Cycle no-such-cycle is not a cycle of this group's task with a clip.")).toBeVisible();

  // Deleted after confirming; its video stays, in no group.
  await panel.getByRole('button', { name: 'Delete group' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Group deleted successfully')).toBeVisible();
  await expect(page.getByText('No validation groups yet.')).toBeVisible();
  const left = await adminGet<{ group: number | null }[]>(org.id, 'organization/validation-videos/retrieve');
  expect(left.map((v) => v.group)).toEqual([null]);
});

test('an analytics user is sent away from Validation', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Validation Views ${run}`);
  const email = `validation-analyst-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await page.goto(`${site}/user/validation`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await expect(page.getByRole('heading', { level: 1, name: 'Validation' })).toHaveCount(0);
});
