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
  // One browser at a time: the machines have 2 cores and the server shares them.
  workers: 1,
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
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  outputDir: '../target/e2e-results',
});
