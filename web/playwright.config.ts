/**
 * End-to-end tests: Debian's Chromium (never a downloaded browser) drives the built
 * portal served by the real `gemba-cloud serve` on a temp SQLite data folder
 * (`e2e/global-setup.ts` starts it on free ports). Run by `tests/e2e.sh`.
 */
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  // Two browsers at a time: one left the 2 cores 60% idle, waiting on the server, the
  // outbox and the agent (docs/benchmarks.md, "Playwright: traces and workers");
  // GEMBA_E2E_WORKERS names another count.
  workers: Number(process.env.GEMBA_E2E_WORKERS ?? 2),
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.GEMBA_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // A camera for Record Training Set's recording: Chromium's test pattern, allowed
        // without asking.
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
      ],
    },
    // A trace of every test, kept when it fails; not in CI (CI=true), where recording
    // one cost a fifth of the suite's time and no one opens it (docs/benchmarks.md,
    // "Playwright: traces and workers"). GEMBA_E2E_TRACE names another mode.
    trace: (process.env.GEMBA_E2E_TRACE as 'on' | 'off' | 'retain-on-failure' | undefined) ?? (process.env.CI ? 'off' : 'retain-on-failure'),
    screenshot: 'only-on-failure',
  },
  outputDir: '../target/e2e-results',
});
