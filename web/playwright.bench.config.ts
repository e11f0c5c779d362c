/**
 * Portal benchmarks in headless Chromium against the real server (`e2e/bench/`, run by
 * `bench/render.sh`): the end-to-end tests' set-up, other files.
 */
import { defineConfig } from '@playwright/test';

import base from './playwright.config';

export default defineConfig({
  ...base,
  testDir: './e2e/bench',
  testMatch: '**/*.bench.ts',
  timeout: 20 * 60_000,
  // Apart from the end-to-end runs' folder, which a run alongside empties.
  outputDir: '../target/bench/e2e-results',
});
