import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
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
  plugins: [react(), inlineStylesheet()],
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
