#!/usr/bin/env node
// Lighthouse (its default mobile profile: a phone's screen, simulated slow 4G and a 4×
// slower CPU) on one page, in a Chromium that is already running with a remote
// debugging port: web/e2e/bench/lighthouse.bench.ts starts Debian's Chromium, signs in
// through the portal, and calls this for each page. Lighthouse keeps the browser's
// storage (`disableStorageReset`), so a signed-in page is audited as its user sees it.
// Writes NAME.json and NAME.html into OUT_DIR and prints one JSON line: the category
// scores (0–100), the main timings, the largest contentful paint's element, and the
// audits that lost points.
// Usage: node run.mjs PORT NAME URL OUT_DIR.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import lighthouse from 'lighthouse';

const [port, name, url, out] = process.argv.slice(2);
if (!port || !name || !url || !out) {
  console.error('usage: run.mjs PORT NAME URL OUT_DIR');
  process.exit(2);
}

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const result = await lighthouse(url, {
  port: Number(port),
  output: ['json', 'html'],
  logLevel: 'error',
  disableStorageReset: true,
  onlyCategories: CATEGORIES,
});
if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
const [json, html] = result.report;
writeFileSync(join(out, `${name}.json`), json);
writeFileSync(join(out, `${name}.html`), html);

const lhr = result.lhr;
/** The audits that lost points in `category`, as `id (score)`. */
const losses = (category) =>
  lhr.categories[category].auditRefs
    .filter((r) => r.weight > 0)
    .map((r) => lhr.audits[r.id])
    .filter((a) => a.score !== null && a.score < 1)
    .map((a) => `${a.id} (${Math.round(a.score * 100)})`);
/** The element Lighthouse took for the largest contentful paint, as its label. */
const lcpElement = () => {
  const node = lhr.audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node;
  return node ? `${node.nodeLabel ?? ''} (${node.selector ?? node.snippet ?? '?'})` : null;
};
const score = (c) => Math.round(lhr.categories[c].score * 100);
const ms = (id) => Math.round(lhr.audits[id].numericValue);
console.log(
  JSON.stringify({
    page: name,
    url: lhr.finalDisplayedUrl,
    lighthouse: lhr.lighthouseVersion,
    performance: score('performance'),
    accessibility: score('accessibility'),
    best_practices: score('best-practices'),
    seo: score('seo'),
    fcp_ms: ms('first-contentful-paint'),
    lcp_ms: ms('largest-contentful-paint'),
    tbt_ms: ms('total-blocking-time'),
    lcp_element: lcpElement(),
    cls: Math.round(lhr.audits['cumulative-layout-shift'].numericValue * 1000) / 1000,
    benchmark_index: lhr.environment.benchmarkIndex,
    lost: Object.fromEntries(CATEGORIES.map((c) => [c, losses(c)])),
    warnings: lhr.runWarnings,
  }),
);
