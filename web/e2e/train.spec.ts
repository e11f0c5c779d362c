/**
 * Train Model against the real server and the real training code: the demo footage of
 * an operation is uploaded and labelled (with its ground truth, through the API as the
 * labeling screen saves it); an org user starts training from the screen, watches the
 * progress bar, and reads the model it made: its held-out metrics, the F1 chart and the
 * confusion matrix. It then deploys the model from Deploy Model to a running agent (the
 * real binary, enrolled with its code) and follows the device's progress to Installed;
 * the model versions screen lists it and soft-deletes it. The model has labelled the
 * operation's unlabelled video meanwhile (propagated labels): the engineer reviews them on
 * Label Training Set, and they count as labelled from then on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect, test } from '@playwright/test';

import type { Segment } from '../src/api/generated';
import {
  addDevice,
  createOrganization,
  createTask,
  createUser,
  labelVideo,
  openFromMenu,
  origin,
  runAgent,
  subscribe,
  uiLogin,
  uniqueName,
  uploadVideo,
} from './env';

const PASSWORD = 'train-pass-1';
const MODELS = process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url));

test('training starts from the screen, shows the model it made, and deploys it to a running agent', async ({ page }) => {
  test.setTimeout(240_000);
  const truth = JSON.parse(readFileSync(join(MODELS, 'demo.truth.json'), 'utf8')) as { segments: Segment[] };
  const run = uniqueName();
  const org = await createOrganization(`Train Works ${run}`);
  for (const f of ['Define Operation', 'Devices', 'Deploy Model']) await subscribe(org.id, f);
  // The demo operation's steps, in its order, each with a sub-step.
  const task = await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\nFasten screws:\nDrive;\nInspect:\nLook;\n');
  const video = await uploadVideo(org.id, task.id, join(MODELS, 'demo.mp4'));
  expect(video.status).toBe('ready');
  // The footage's truth, cut at the video's end (its last segment runs past it).
  const end = video.duration_ms ?? 0;
  await labelVideo(
    org.id,
    video.id,
    truth.segments.filter((g) => g.start_ms < end).map((g) => ({ ...g, end_ms: Math.min(g.end_ms, end) })),
  );
  // The same footage once more, unlabelled: the new model is to label it.
  await uploadVideo(org.id, task.id, join(MODELS, 'demo.mp4'), 'unlabelled.mp4');
  const email = `train-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Train Model' }).click();
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/train`);
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await expect(page.getByText('Status: IN ANNOTATION')).toBeVisible();
  await expect(page.getByText('1 of 2 videos labelled')).toBeVisible();
  // What training will learn from: each step's labelled time.
  await expect(page.getByRole('region', { name: 'Labels check' })).toContainText(/Labelled time per step: Pick base \d+\.\d{3} s/);

  await page.getByLabel('Epochs').fill('0');
  await page.getByRole('button', { name: 'Start training' }).click();
  await expect(page.getByText('Ensure this value is between 1 and 200.')).toBeVisible();

  await page.getByLabel('Epochs').fill('6');
  await page.getByRole('button', { name: 'Start training' }).click();
  await expect(page.getByText('Status: TRAINING')).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Training progress' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop training' })).toBeVisible();

  // It finishes by itself and the screen shows the model.
  await expect(page.getByText('Status: TRAINED')).toBeVisible({ timeout: 150_000 });
  // The labels check follows: the new model's guesses wait for review.
  await expect(page.getByRole('region', { name: 'Labels check' })).toContainText('1 video has propagated labels to review');
  await expect(page.getByRole('progressbar', { name: 'Training progress' })).toBeHidden();
  const card = page.getByLabel(/^Model t\d+-r\d+$/);
  await expect(card).toBeVisible();
  const metrics = card.getByLabel('Held-out metrics');
  await expect(metrics).toContainText('Frame accuracy');
  const accuracy = Number((await metrics.locator('dd').first().textContent())?.replace('%', ''));
  expect(accuracy).toBeGreaterThan(50);
  await expect(card.getByRole('img', { name: /^F1 per step: Pick base \d/ })).toBeVisible();
  const rows = card.getByRole('table', { name: 'Confusion matrix' }).getByRole('row');
  await expect(rows).toHaveCount(6);
  await expect(rows.nth(1)).toContainText('Pick base');

  // Deploy it to a workstation whose agent runs: offline devices cannot be chosen.
  const bench = await addDevice(org.id, 'Bench 1');
  await addDevice(org.id, 'Bench 2');
  const stopAgent = runAgent(bench.code);
  try {
    await openFromMenu(page, 'Deploy Model');
    await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
    const version = (await page.getByLabel('Model version').locator('option').first().textContent())?.split(' · ')[0] ?? '';
    expect(version).toMatch(/^t\d+-r\d+$/);
    await expect(page.getByLabel('Deploy to Bench 2')).toBeDisabled();
    await expect(page.getByLabel('Deploy to Bench 1')).toBeEnabled({ timeout: 60_000 });
    await page.getByLabel('Deploy to Bench 1').check();
    await page.getByRole('button', { name: `Deploy ${version} to 1 device` }).click();
    const row = page.getByRole('table', { name: 'Deployments' }).getByRole('row', { name: /Bench 1/ });
    await expect(row).toContainText(/Installing…|Installed/);
    await expect(row).toContainText('Installed', { timeout: 60_000 });
    await expect(row).toContainText(`model ${version} installed for task ${task.id}`);
  } finally {
    stopAgent();
  }

  // The model versions screen lists it; the soft delete toggles it.
  await page.goto(`${origin(`${org.name}.localhost`)}/user/models`);
  const deleted = page.getByRole('checkbox', { name: /^t\d+-r\d+ deleted$/ });
  await expect(deleted).not.toBeChecked();
  await deleted.check();
  await expect(deleted).toBeChecked();
  await page.reload();
  await expect(page.getByRole('checkbox', { name: /^t\d+-r\d+ deleted$/ })).toBeChecked();

  // The model's guesses on the unlabelled video wait for review, as the labels check says.
  await page.goto(`${origin(`${org.name}.localhost`)}/user/train?task=${task.id}`);
  await expect(page.getByRole('region', { name: 'Labels check' })).toContainText(
    '1 video has propagated labels to review: they are trained on once reviewed.',
  );
  // They are reviewed on Label Training Set.
  await openFromMenu(page, 'Label Training Set');
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  const videos = page.getByRole('table', { name: 'Videos to label' });
  await expect(videos.getByRole('row', { name: /unlabelled\.mp4/ })).toContainText('Propagated: to review');
  await expect(videos.getByRole('row', { name: /^demo\.mp4/ })).toContainText('Labelled');
  await videos.getByRole('button', { name: 'Review unlabelled.mp4' }).click();
  const notice = page.getByRole('status', { name: 'Propagated labels' });
  await expect(notice).toContainText(/Model t\d+-r\d+ guessed these segments/);
  await expect(page.getByRole('slider', { name: /^Timeline: \d+ segments$/ })).toBeVisible();
  await notice.getByRole('button', { name: 'Mark reviewed' }).click();
  await expect(page.getByText('Propagated labels of 1 video marked reviewed.')).toBeVisible();
  await expect(notice).toBeHidden();
  await expect(page.getByText(/^Checked \(propagated from model t\d+-r\d+\)$/)).toBeVisible();
  await page.getByRole('button', { name: '← All videos' }).click();
  await expect(videos.getByRole('row', { name: /unlabelled\.mp4/ })).toContainText('Reviewed');
  // Reviewed, they are trained on next time.
  await openFromMenu(page, 'Train Model');
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await expect(page.getByText('2 of 2 videos labelled')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Labels check' })).not.toContainText('to review');
});
