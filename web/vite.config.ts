import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { defineConfig } from 'vitest/config';

/**
 * The build's index.html carries the portal's stylesheet in a `<style>` instead of a
 * `<link>` (issue 33): the first paint then waits for index.html alone, not for a
 * second request sharing a slow link with the scripts (about 6 KiB gzip; the CSP allows
 * inline styles). The CSS file stays in `assets/` for the manifest.
 */
function inlineStylesheet(): Plugin {
  return {
    name: 'gemba-inline-stylesheet',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        return html.replace(/<link rel="stylesheet"[^>]*? href="\/([^"]+\.css)">/g, (tag, file: string) => {
          const css = bundle?.[file];
          return css?.type === 'asset' ? `<style>${String(css.source).trim()}</style>` : tag;
        });
      },
    },
  };
}

// The dev server forwards the API (and the portal's host settings) to a running
// `gemba-cloud serve` (scripts/run), so `npm run dev` works against the real service.
const backend = process.env.GEMBA_BACKEND ?? 'http://127.0.0.1:8080';

export default defineConfig({
  // Each text file also as .br (quality 11) and .gz beside it, which gemba-cloud serves
  // to a browser that takes them (cloud/src/http/portal.rs) instead of compressing every
  // answer again: Brotli's 11 is 14% smaller than gzip on the first script (issue 33).
  plugins: [react(), inlineStylesheet(), compression({ algorithms: ['brotliCompress', 'gzip'], logLevel: 'silent' })],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': { target: backend, changeOrigin: false },
      '/portal-config.json': { target: backend, changeOrigin: false },
    },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    // dist/.vite/manifest.json: read by scripts/first-load-size.mjs.
    manifest: true,
    rolldownOptions: {
      output: {
        // Everything main.tsx imports statically (React, the router, the layouts, the
        // session, the login and Dashboard screens: app/router.tsx) in one chunk: left
        // to itself the bundler cut the first load into 25 files shared with the lazy
        // screens, and on HTTP/1.1's six connections a phone on a slow link waits a
        // round trip for each few of them (issue 33, docs/benchmarks.md "Lighthouse").
        codeSplitting: { groups: [{ name: 'app', test: /[\\/]src[\\/]main\.tsx$/ }] },
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    globals: true,
    // The test command runs a worker per core (docs/benchmarks.md "CI"); on a busy
    // machine a screen's test can pass 5 s (its findBy waits are 5 s each).
    testTimeout: 20_000,
  },
});
