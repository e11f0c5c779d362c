/**
 * Object boxes against the real server: an org user takes a frame of the demo footage
 * (uploaded through the API) as an annotation image on Label Training Set, draws a box
 * around the operation's object with the mouse (Draw Object), resets it, draws one by
 * keyboard (Draw Object hands the focus to the image; an arrow key, Enter), resets it,
 * draws it again with the mouse and saves; after a reload the box is there, and the server holds it. An
 * analytics user is sent away from the screen.
 */
import { expect, test } from '@playwright/test';

import type { AnnotationImage, TaskObject } from '../src/api/generated';
import {
  adminGet,
  adminSend,
  createOrganization,
  createTask,
  createUser,
  demoFootage,
  openFromMenu,
  origin,
  subscribe,
  uiLogin,
  uniqueName,
  uploadVideo,
} from './env';

const PASSWORD = 'annotate-pass-1';

test('a box is drawn around an object on a frame, reset, drawn again and saved', async ({ page }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const org = await createOrganization(`Box Works ${run}`);
  await subscribe(org.id, 'Define Operation');
  const task = await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\n');
  const jig = await adminSend<TaskObject>(org.id, 'POST', 'organization/task/task_object/', { task: task.id, name: 'Jig' });
  const video = await uploadVideo(org.id, task.id, demoFootage());
  expect(video.status).toBe('ready');
  const email = `annotate-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);

  await openFromMenu(page, 'Label Training Set');
  await page.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await page.getByRole('button', { name: 'Label demo.mp4' }).click();
  const boxes = page.getByRole('region', { name: 'Object boxes' });
  await boxes.getByLabel('Frame at (seconds)').fill('1');
  await boxes.getByRole('button', { name: 'Take image' }).click();
  const image = boxes.getByRole('img', { name: 'Annotation image at 1.000 s' });
  await expect.poll(() => image.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);

  // Drag from a quarter to three quarters of the image.
  const drag = async () => {
    await boxes.getByLabel('Object').selectOption({ label: 'Jig' });
    await boxes.getByRole('button', { name: 'Draw Object' }).click();
    // Measured after the click, which may have scrolled the page.
    await image.scrollIntoViewIfNeeded();
    const r = (await image.boundingBox())!;
    await page.mouse.move(r.x + r.width * 0.25, r.y + r.height * 0.25);
    await page.mouse.down();
    await page.mouse.move(r.x + r.width * 0.5, r.y + r.height * 0.5, { steps: 5 });
    await page.mouse.move(r.x + r.width * 0.75, r.y + r.height * 0.75, { steps: 5 });
    await page.mouse.up();
  };
  await drag();
  await expect(boxes.getByLabel('Box of Jig')).toBeVisible();
  await boxes.getByRole('button', { name: 'Reset' }).click();
  await expect(boxes.getByLabel('Box of Jig')).toHaveCount(0);
  const rows = boxes.getByRole('table', { name: 'Boxes' }).getByRole('row');

  // By keyboard: the middle fifth of the image, a step to the right.
  const drawObject = boxes.getByRole('button', { name: 'Draw Object' });
  await drawObject.press('Enter');
  const surface = boxes.getByRole('group', { name: 'Draw a box around Jig' });
  await expect(surface).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await expect(boxes.getByLabel('Box of Jig')).toBeVisible();
  await expect(rows.nth(1)).toHaveText(/Jig\s*0\.410, 0\.400, 0\.200, 0\.200/);
  await expect(drawObject).toBeFocused();
  await boxes.getByRole('button', { name: 'Reset' }).click();
  await expect(boxes.getByLabel('Box of Jig')).toHaveCount(0);

  await drag();
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('Jig');
  await boxes.getByRole('button', { name: 'Save boxes' }).click();
  await expect(page.getByText('Data updated successfully!')).toBeVisible();

  // Kept by the server: a reload shows it; the server's box is where it was drawn.
  await page.reload();
  await boxes.getByRole('button', { name: 'Image at 1.000 s (1 box)' }).click();
  await expect(boxes.getByLabel('Box of Jig')).toBeVisible();
  await expect(rows.nth(1)).toHaveText(/Jig\s*0\.2\d\d, 0\.2\d\d, 0\.[45]\d\d, 0\.[45]\d\d\s*—/);
  const held = await adminGet<AnnotationImage[]>(org.id, `organization/task/fetch_all_annotation_image_list/${task.id}`);
  expect(held).toHaveLength(1);
  const [one] = held as [AnnotationImage];
  expect(one.frame_ms).toBe(1000);
  expect(one.objects).toHaveLength(1);
  const b = one.objects[0]!;
  expect(b.task_object).toBe(jig.id);
  expect(Math.abs(b.x - 0.25)).toBeLessThan(0.02);
  expect(Math.abs(b.width - 0.5)).toBeLessThan(0.02);
  expect(Math.abs(b.height - 0.5)).toBeLessThan(0.02);
});

test('an analytics user is sent away from the object boxes', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Box Views ${run}`);
  const email = `annotate-analyst-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await page.goto(`${site}/user/label-data`);
  await expect(page).toHaveURL(`${site}/user/analytics`);
  await expect(page.getByRole('region', { name: 'Object boxes' })).toHaveCount(0);
});
