#!/usr/bin/env node
// Where a test run's time went: the slowest tests of each suite from the reports the
// test command keeps (docs/benchmarks.md "CI"), and each suite's test-seconds.
//
//   node scripts/test-times.mjs [--top N] [--nextest FILE] [--vitest FILE] [--e2e FILE]
//
// Defaults: target/nextest/ci/junit.xml (cargo-nextest's JUnit, profile ci),
// target/vitest.json (Vitest's JSON reporter), target/e2e-report.json (Playwright's
// JSON reporter, tests/e2e.sh). A missing report is named and skipped.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const top = Number(opt('top', '25'));
if (!Number.isInteger(top) || top < 1) {
  console.error('--top: a whole number of at least 1');
  process.exit(2);
}

/** nextest's JUnit: every `<testcase name=… classname=… time=…>`. */
function nextest(file) {
  const xml = readFileSync(file, 'utf8');
  const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  const rows = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*)>/g)) {
    const attr = (k) => new RegExp(`\\b${k}="([^"]*)"`).exec(m[1])?.[1];
    const time = Number(attr('time'));
    if (Number.isFinite(time)) rows.push({ name: `${unescape(attr('classname') ?? '')} ${unescape(attr('name') ?? '')}`, seconds: time });
  }
  return rows;
}

/** Vitest's JSON: one row per test file (its tests' time; the file's set-up is not in the report). */
function vitest(file) {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return r.testResults.map((t) => ({
    name: `${t.name.replace(`${root}/`, '')} (${t.assertionResults.length} tests)`,
    seconds: t.assertionResults.reduce((s, a) => s + (a.duration ?? 0), 0) / 1000,
  }));
}

/** Playwright's JSON: one row per test (its first result's duration), and per spec file. */
function playwright(file) {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const rows = [];
  const walk = (suite, path) => {
    for (const s of suite.specs ?? [])
      for (const t of s.tests ?? [])
        for (const res of (t.results ?? []).slice(0, 1)) rows.push({ file: s.file ?? path, name: `${s.file ?? path}:${s.line} ${s.title}`, seconds: res.duration / 1000 });
    for (const child of suite.suites ?? []) walk(child, child.file ?? path);
  };
  for (const s of r.suites ?? []) walk(s, s.file ?? s.title);
  return rows;
}

function report(title, rows) {
  const total = rows.reduce((s, r) => s + r.seconds, 0);
  console.log(`\n${title}: ${rows.length} rows, ${total.toFixed(1)} test-seconds; the ${Math.min(top, rows.length)} slowest:`);
  for (const r of [...rows].sort((a, b) => b.seconds - a.seconds).slice(0, top)) {
    console.log(`${r.seconds.toFixed(1).padStart(8)} s ${((100 * r.seconds) / (total || 1)).toFixed(1).padStart(5)}%  ${r.name}`);
  }
}

const suites = [
  ['nextest', join(root, 'target/nextest/ci/junit.xml'), (f) => report('Rust tests (nextest), per test', nextest(f))],
  ['vitest', join(root, 'target/vitest.json'), (f) => report('Vitest, per file', vitest(f))],
  [
    'e2e',
    join(root, 'target/e2e-report.json'),
    (f) => {
      const rows = playwright(f);
      report('Playwright, per test', rows);
      const files = new Map();
      for (const r of rows) files.set(r.file, (files.get(r.file) ?? 0) + r.seconds);
      report('Playwright, per spec file', [...files].map(([name, seconds]) => ({ name, seconds })));
    },
  ],
];
for (const [name, fallback, show] of suites) {
  const file = opt(name, fallback);
  if (!existsSync(file)) {
    console.log(`\n${name}: no report at ${file}`);
    continue;
  }
  show(file);
}
