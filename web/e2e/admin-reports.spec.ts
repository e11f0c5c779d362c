/**
 * The super admin's reports (issue 31, item 1) against the real server, as a super
 * admin of its own (the seeded one's codes are spent by the other specs): User Report
 * shows an organisation's user with the activity session they made through the real
 * call, and downloads the same rows as CSV; Labelers asks a labeler for the
 * organisation's operation (in that organisation) and withdraws it again; Annotations
 * shows the operation's labelled video and links to its Task Videos. The organisation's
 * user is refused the reports' calls (403) and sent back from their screens.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, test } from '@playwright/test';

import type { ActivitySession } from '../src/api/generated';
import { adminUiLogin, apiLogin, createOrganization, createTask, createUser, labelVideo, makeClip, openFromMenu, origin, uiLogin, uniqueName, uploadVideo } from './env';

/** Calls the API with `token` (no organisation): the status and the body's text. */
async function as(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${origin()}/api/${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const PASSWORD = 'reports-pass-2026';

test('the super admin reads the User Report, Labelers and Annotations; an organisation user is refused them', async ({ browser }) => {
  test.setTimeout(180_000);
  const run = uniqueName();
  const orgDisplay = `Reports ${run}`;
  const org = await createOrganization(orgDisplay);
  const taskName = `Press ${run}`;
  const task = await createTask(org.id, `${taskName}\nFit:\nPlace;\nCheck:\nLook;\n`);
  const dir = mkdtempSync(join(tmpdir(), 'gemba-e2e-reports-'));
  const clip = join(dir, `press-${run}.mp4`);
  makeClip(clip);
  const video = await uploadVideo(org.id, task.id, clip);
  await labelVideo(org.id, video.id, [
    { step: 0, start_ms: 0, end_ms: 900 },
    { step: 1, start_ms: 1000, end_ms: 1800 },
  ]);
  const superAdmin = `reports-admin-${run}@gemba.test`;
  const worker = `reports-user-${run}@reports.example`;
  const labeler = `reports-lab-${run}@reports.example`;
  await createUser(superAdmin, PASSWORD, 'admin', null);
  await createUser(worker, PASSWORD, 'org_user', org.id);
  await createUser(labeler, PASSWORD, 'labeler', null);
  // The worker uses the portal: an activity session through the portal's own call.
  const session = await apiLogin(worker, PASSWORD);
  const made = await as(session.token, 'POST', 'account/session/create/', { user: session.id, browser: 'E2E', browser_version: run });
  expect(made.status).toBe(201);
  const activity = JSON.parse(made.text) as ActivitySession;
  expect((await as(session.token, 'PATCH', `account/session/update/${activity.id}/`)).status).toBe(200);

  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  try {
    await adminUiLogin(page, superAdmin, PASSWORD);

    // User Report: the organisation's user with their session and browser.
    await openFromMenu(page, 'User Report');
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: orgDisplay });
    const report = page.getByRole('table', { name: 'User report' });
    const row = report.getByRole('row', { name: new RegExp(worker) });
    await expect(row).toContainText(orgDisplay);
    await expect(row).toContainText('Organization User');
    await expect(row).toContainText(`E2E ${run}`);
    await expect(row.getByRole('cell').nth(4)).toHaveText('1');
    await expect(row.getByRole('cell').nth(5)).toHaveText('1');
    await expect(report.getByRole('row')).toHaveCount(2);
    // The CSV: the same rows.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const got = await download;
    expect(got.suggestedFilename()).toMatch(/^user-report-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync(await got.path(), 'utf8').trim().split(/\r\n/);
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain(`,${worker},${orgDisplay},Organization User,yes,1,1,`);
    expect(csv[1]).toMatch(new RegExp(`,E2E ${run}$`));

    // Labelers: asked for the organisation's operation, then withdrawn.
    await openFromMenu(page, 'Labelers');
    await page.getByRole('searchbox', { name: 'Search labelers' }).fill(labeler);
    await page.getByRole('button', { name: 'Search' }).click();
    const labelers = page.getByRole('table', { name: 'Labelers' });
    const labRow = labelers.getByRole('row', { name: new RegExp(labeler) });
    await expect(labRow).toContainText('None');
    await expect(labelers.getByRole('row')).toHaveCount(2);
    await labRow.getByRole('button', { name: 'Request operation' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Organization' }).selectOption({ label: orgDisplay });
    await dialog.getByRole('combobox', { name: 'Operation' }).selectOption({ label: taskName });
    await dialog.getByRole('button', { name: 'Request' }).click();
    await expect(page.getByText('Data created successfully!')).toBeVisible();
    await expect(labRow).toContainText(`${taskName} (${orgDisplay}): 1 of 1 videos labelled (0 by them)`);
    // The labeler now reaches it.
    const lab = await apiLogin(labeler, PASSWORD);
    expect((await as(lab.token, 'GET', 'labeler/tasks/')).text).toContain(taskName);

    // Annotations: the operation's progress, linking to its videos.
    await openFromMenu(page, 'Annotations');
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: orgDisplay });
    const annotations = page.getByRole('table', { name: 'Annotations' });
    const opRow = annotations.getByRole('row', { name: new RegExp(taskName) });
    await expect(opRow.getByRole('cell')).toHaveText([taskName, orgDisplay, '1', '1 of 1', '0 of 1', '0', '2', '1', /\d\d\/\d\d\/\d\d, /]);
    await opRow.getByRole('link', { name: `Videos of ${taskName}` }).click();
    await expect(page).toHaveURL(`${origin('admin.localhost')}/admin/task-videos/${task.id}/${encodeURIComponent(taskName)}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Task Videos' })).toBeVisible();

    // Withdrawn from Labelers.
    await openFromMenu(page, 'Labelers');
    await page.getByRole('searchbox', { name: 'Search labelers' }).fill(labeler);
    await page.getByRole('button', { name: 'Search' }).click();
    await labRow.getByRole('button', { name: 'Withdraw' }).click();
    await page.getByRole('dialog', { name: 'Withdraw the request?' }).getByRole('button', { name: 'Withdraw' }).click();
    await expect(page.getByText('Data deleted successfully!')).toBeVisible();
    await expect(labRow).toContainText('None');
    expect((await as(lab.token, 'GET', 'labeler/tasks/')).text).not.toContain(taskName);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }

  // The organisation's user: the calls refused, the screens not shown.
  for (const path of ['admin/user-report/', 'admin/user-report/csv/', 'admin/labelers/', 'admin/annotations/']) {
    expect((await as(session.token, 'GET', path)).status, path).toBe(403);
  }
  const userContext = await browser.newContext();
  const user = await userContext.newPage();
  try {
    await uiLogin(user, worker, PASSWORD);
    const site = origin(`${org.name}.localhost`);
    await expect(user).toHaveURL(`${site}/user/home`);
    for (const path of ['/admin/user-report', '/admin/labelers', '/admin/annotations']) {
      await user.goto(`${site}${path}`);
      await expect(user).toHaveURL(`${site}/user/home`);
    }
  } finally {
    await userContext.close();
  }
});
