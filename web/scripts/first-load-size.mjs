#!/usr/bin/env node
// First-load size of the built portal (web/dist), gzip: what a browser fetches to show
// the login screen: index.html, the entry script with its static imports, the CSS, and
// the login route's lazy chunk with its static imports; the same for the Dashboard. The
// stylesheet is inside index.html (vite.config.ts inlines it) unless index.html links
// it. Reads Vite's manifest (dist/.vite/manifest.json).
// Usage: `npm run build && node scripts/first-load-size.mjs`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const dist = process.env.DIST ? new URL(`file://${process.env.DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));
const gz = (file) => gzipSync(readFileSync(new URL(file, dist))).length;

/** The files of `key` and of everything it imports statically. */
function closure(key, seen = new Set()) {
  const chunk = manifest[key];
  if (!chunk || seen.has(chunk.file)) return seen;
  seen.add(chunk.file);
  for (const css of chunk.css ?? []) seen.add(css);
  for (const imp of chunk.imports ?? []) closure(imp, seen);
  return seen;
}

const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
const screen = (path) => Object.keys(manifest).find((k) => k.endsWith(path));
const shell = closure(entry);
const withLogin = closure(screen('features/auth/components/login-screen.tsx'), new Set(shell));
const withHome = closure(screen('features/analytics/components/home-screen.tsx'), new Set(shell));

const indexHtml = readFileSync(new URL('index.html', dist), 'utf8');
const linked = (f) => !f.endsWith('.css') || indexHtml.includes(f);
const sum = (files, ext) => [...files].filter((f) => f.endsWith(ext) && linked(f)).reduce((n, f) => n + gz(f), 0);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const html = gz('index.html');
console.log(`index.html:                        ${kib(html)}`);
console.log(`shell (entry + static imports) JS: ${kib(sum(shell, '.js'))} in ${[...shell].filter((f) => f.endsWith('.js')).length} files`);
console.log(`login screen first load JS:        ${kib(sum(withLogin, '.js'))} in ${[...withLogin].filter((f) => f.endsWith('.js')).length} files`);
console.log(`CSS:                               ${[...withLogin].some((f) => f.endsWith('.css') && !linked(f)) ? 'in index.html' : kib(sum(withLogin, '.css'))}`);
console.log(`login screen first load total:     ${kib(html + sum(withLogin, '.js') + sum(withLogin, '.css'))}`);
console.log(`Dashboard first load JS:           ${kib(sum(withHome, '.js'))} in ${[...withHome].filter((f) => f.endsWith('.js')).length} files`);
console.log(`Dashboard first load total:        ${kib(html + sum(withHome, '.js') + sum(withHome, '.css'))}`);
