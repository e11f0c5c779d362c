import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The dev server forwards the API (and the portal's host settings) to a running
// `gemba-cloud serve` (scripts/run), so `npm run dev` works against the real service.
const backend = process.env.GEMBA_BACKEND ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
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
