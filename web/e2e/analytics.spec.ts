/**
 * Analytics (`/user/analytics`) against the real server: an analytics user of an
 * organisation whose device sent cycles today and yesterday sees their figures; a bar
 * of the trend opens the cycles behind it; the exported CSV holds the rows of the trend
 * table; the slowest 5% are listed; the period before is compared; a filter narrows the
 * figures and stays in the address.
 */
import { readFileSync } from 'node:fs';

import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createTask, createUser, enrolDevice, midnightOf, sendCycle, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'analytics-pass-1';

test('a chart bar drills down to its cycles and the CSV holds the table', async ({ page }) => {
  const run = uniqueName();
  const org = await createOrganization(`Lean Works ${run}`);
  await subscribe(org.id, 'Devices');
  const task = await createTask(org.id, 'Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\n');
  const device = await enrolDevice((await addDevice(org.id, 'Bench 3')).code);
  // Today (at least an hour after midnight, or yesterday's end): 3 good, 2 bad; the day
  // before: 2 good.
  const now = Date.now();
  const midnight = midnightOf(now);
  const base = Math.max(midnight + 60 * 60_000, now - 20 * 60_000);
  const today = [40, 42, 44, 50, 61].map((s, i) => ({ start_ms: base + i * 120_000, end_ms: base + i * 120_000 + s * 1000, good: i < 3 }));
  const yesterday = [45, 47].map((s, i) => ({ start_ms: midnight - 12 * 3_600_000 + i * 120_000, end_ms: midnight - 12 * 3_600_000 + i * 120_000 + s * 1000, good: true }));
  for (const c of [...today, ...yesterday]) await sendCycle(device, task.id, c);
  const email = `analytics-${run}@acme.example`;
  await createUser(email, PASSWORD, 'analytics_user', org.id);
  await uiLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();

  const figures = page.getByRole('definition').filter({ hasText: /^7$/ });
  await expect(figures).toBeVisible();
  await expect(page.getByText('71% (5 good, 2 bad)')).toBeVisible();
  const stations = page.getByRole('table', { name: 'Station figures' });
  await expect(stations.getByRole('row', { name: /Bench 3/ })).toContainText('Assemble pump');
  await expect(page.getByText('Slowest step:')).toBeVisible();

  // The last day's bar (today) opens today's five cycles.
  const bars = page.getByRole('figure', { name: 'Good and bad cycles over time' }).locator('.recharts-bar-rectangle path');
  await expect(bars.last()).toBeVisible();
  await bars.last().click();
  const drill = page.getByRole('region', { name: /^Cycles of / });
  await expect(drill.getByRole('heading')).toContainText('(5)');
  await expect(drill.getByRole('table').getByRole('row')).toHaveCount(6);
  await expect(drill.getByRole('table')).toContainText('Missed Check seal');

  // The CSV: the trend table's rows, a line each.
  await page.getByText('The trend as a table').click();
  const tableRows = await page
    .getByRole('table', { name: 'Trend table' })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent ?? '')));
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export CSV' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8').trim().split('\n');
  expect(csv[0]).toBe('period_start,cycles,good,bad,avg_s,stddev_s,min_s,max_s');
  expect(csv).toHaveLength(tableRows.length + 1);
  csv.slice(1).forEach((line, i) => {
    const [, cycles, good, bad, avg] = line.split(',');
    const row = tableRows[i]!;
    expect([cycles, good, bad]).toEqual([row[1], row[2], row[3]]);
    expect(avg === '' ? '—' : `${Number(avg).toFixed(1)} s`).toBe(row[4]);
  });
  expect(csv.slice(1).reduce((n, l) => n + Number(l.split(',')[1]), 0)).toBe(7);

  // The slowest 5%: one cycle of seven, 61 s.
  await expect(page.getByRole('region', { name: 'Slowest cycles' })).toContainText('1 of 7 cycles took 61.0 s or longer');
  // Beside the 30 days before: none then.
  await page.getByRole('combobox', { name: 'Compare with' }).selectOption('previous');
  await expect(page).toHaveURL(/compare=previous/);
  const comparison = page.getByRole('table', { name: 'Comparison' });
  await expect(comparison.getByRole('row', { name: /^Cycles/ })).toHaveText(/Cycles\s*7\s*0\s*—/);
  await page.getByRole('combobox', { name: 'Compare with' }).selectOption('');
  // Each choice is a navigation: the next one starts from the address this one made.
  await expect(page).not.toHaveURL(/compare=/);

  // Bad cycles only: two, and the choice is in the address.
  await page.getByRole('combobox', { name: 'Cycles' }).selectOption('bad_cycles');
  await expect(page).toHaveURL(/filter=bad_cycles/);
  await expect(page.getByText('0% (0 good, 2 bad)')).toBeVisible();
});
