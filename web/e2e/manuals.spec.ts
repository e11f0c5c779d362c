/**
 * The manuals in the browser (issue 32, item 3): a docs user signs in and lands on User
 * Manuals, searches, opens the lesson the search found with its words highlighted and
 * its diagram drawn, moves to the next lesson, and from the Dashboard's Help link
 * reaches the manual's section on the Dashboard; on a phone's width the chapter reads
 * without the contents column and without sideways scrolling.
 */
import { expect, test } from '@playwright/test';

import { createOrganization, createUser, origin, uiLogin, uniqueName } from './env';

test('a docs user lands on User Manuals, finds a lesson by search and a section by Help', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Manuals ${run}`);
  const who = `docs-${run}@acme.example`;
  await createUser(who, 'docs-pass-1', 'doc_user', org.id);
  await uiLogin(page, who, 'docs-pass-1');
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/user-manual`);
  await expect(page.getByRole('heading', { level: 1, name: 'User Manuals' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'Contents' })).toBeVisible();

  // Search: results as one types, each naming its lesson or chapter.
  await page.getByLabel('Search the manuals and lessons').fill('takt');
  const results = page.getByRole('region', { name: 'Search results' });
  await expect(results.getByRole('link').first()).toHaveText(/^5\. Takt time/);
  await results.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/user\/fundamentals\?lesson=5&q=takt#/);
  await expect(page.getByRole('heading', { level: 1, name: 'App Fundamentals' })).toBeVisible();
  const lesson = page.getByRole('article');
  await expect(lesson.getByRole('heading', { level: 2 })).toHaveText('5. Takt time');
  await expect(lesson.locator('mark').first()).toHaveText(/^takt$/i);
  await expect(lesson.getByRole('img', { name: 'Station cycle times against a 30 second takt time' })).toBeVisible();
  // The section the result named is the one in view, its heading focused.
  await expect(page.locator('h3:focus')).toBeInViewport();

  await page.getByRole('navigation', { name: 'Lesson pages' }).getByRole('link', { name: /6\. Cycle time and lead time/ }).click();
  await expect(lesson.getByRole('heading', { level: 2 })).toHaveText('6. Cycle time and lead time');
  await expect(lesson.locator('mark')).toHaveCount(0);

  // A screen's Help link opens its section of the manual.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await page.getByRole('link', { name: 'Help: Dashboard' }).click();
  await expect(page).toHaveURL(`${site}/user/user-manual?topic=analytics#the-dashboard`);
  await expect(page.getByRole('heading', { level: 3, name: 'The Dashboard' })).toBeInViewport();

  // A phone: the chapter alone, no sideways scrolling, the way back to the contents.
  await page.setViewportSize({ width: 375, height: 740 });
  await expect(page.getByRole('navigation', { name: 'Chapters' })).toBeHidden();
  await expect(page.getByRole('link', { name: '← Contents' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
});
