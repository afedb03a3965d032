// Verdicts under load (`npm run test:load`, a step of .ci/run before `npm test`): the
// reference implementations certified while busy processes keep every core occupied.
// Kept out of `npm test`'s budget: each case certifies whole targets on a saturated machine.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  // One case at a time: the load is the test's own, and it must be the only one.
  workers: 1,
  timeout: 900_000,
  reporter: [['list'], ['../summary-reporter.ts']],
  outputDir: '../../test-results/load',
});
