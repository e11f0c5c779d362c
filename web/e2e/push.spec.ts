/**
 * Notifications in this browser (issue 31) against the real server, as far as headless
 * Chromium can go offline: an org user's Profile Setting lists the events a browser
 * may be notified of; turning one on registers the portal's service worker (served
 * from the portal's root) and asks the browser for a push subscription with the
 * cloud's VAPID key. Chromium's push service is out of reach here, so the browser
 * refuses, and the screen says so and keeps the event off (that the cloud encrypts,
 * signs and delivers to a subscribed browser is cloud/tests/it/push.rs, against a real
 * push receiver). The labeler's Profile Setting has no organisation to be notified of,
 * so no such section.
 */
import { expect, test } from '@playwright/test';

import { createOrganization, createUser, origin, uiLogin, uniqueName } from './env';

test("an org user's browser asks to be notified of an event; offline, the browser's refusal is shown", async ({ page, context }) => {
  test.setTimeout(60_000);
  const run = uniqueName();
  const email = `push-${run}@acme.example`;
  const org = await createOrganization(`Push Works ${run}`);
  await createUser(email, 'push-pass-1', 'org_user', org.id);
  await uiLogin(page, email, 'push-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await context.grantPermissions(['notifications'], { origin: site });

  // The service worker is the portal's own file, at its root.
  const sw = await page.evaluate(async () => {
    const r = await fetch('/push-sw.js');
    return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
  });
  expect(sw.status).toBe(200);
  expect(sw.type).toMatch(/javascript/);
  expect(sw.text).toContain("addEventListener('push'");

  await page.goto(`${site}/user/setting`);
  const region = page.getByRole('region', { name: 'Notifications in this browser' });
  await expect(region).toBeVisible();
  const taskUpdate = region.getByRole('checkbox', { name: 'Task Update' });
  const health = region.getByRole('checkbox', { name: 'Device Health' });
  await expect(taskUpdate).not.toBeChecked();
  await expect(health).not.toBeChecked();
  await expect(taskUpdate).toBeEnabled();

  await taskUpdate.click();
  await expect(region.getByRole('alert')).toContainText('This browser could not subscribe');
  await expect(taskUpdate).not.toBeChecked();
  // The worker was registered for the whole portal on the way.
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope ?? null);
  expect(scope).toBe(`${site}/`);
});

test("the labeler's Profile Setting has no browser notifications", async ({ page }) => {
  const run = uniqueName();
  const email = `push-labeler-${run}@acme.example`;
  await createUser(email, 'push-pass-1', 'labeler', null);
  await uiLogin(page, email, 'push-pass-1');
  await expect(page).toHaveURL(/\/labeler\/tasks$/);
  await page.goto(`${origin()}/labeler/setting`);
  await expect(page.getByRole('region', { name: 'Your details' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Notifications in this browser' })).toHaveCount(0);
});
