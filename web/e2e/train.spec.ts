/**
 * Train Model against the real server and the real training code: the demo footage of
 * an operation is uploaded and labelled (with its ground truth, through the API as the
 * labeling screen saves it); an org user starts training from the screen, watches the
 * progress bar, and reads the model it made: its held-out metrics, the F1 chart and the
 * confusion matrix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect, test } from '@playwright/test';

import type { Segment } from '../src/api/generated';
import { createOrganization, createTask, createUser, labelVideo, origin, subscribe, uiLogin, uniqueName, uploadVideo } from './env';

const PASSWORD = 'train-pass-1';
const MODELS = process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url));

test('training starts from the screen, shows progress, and shows the model it made', async ({ page }) => {
  test.setTimeout(180_000);
  const truth = JSON.parse(readFileSync(join(MODELS, 'demo.truth.json'), 'utf8')) as { segments: Segment[] };
  const run = uniqueName();
  const org = await createOrganization(`Train Works ${run}`);
  await subscribe(org.id, 'Define Operation');
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
  const email = `train-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Train Model' }).click();
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/train`);
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await expect(page.getByText('Status: IN ANNOTATION')).toBeVisible();
  await expect(page.getByText('1 of 1 video labelled')).toBeVisible();

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
});
