// Self-test configuration: unit, fixture cross-check and CLI tests of ahp-conformance itself.
// The conformance suites against implementations under test use ../playwright.config.ts.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  // Verdicts under load (npm run test:load) saturate the machine; the packaging tests (npm run
  // test:packaging) pack and install the tool. Both run on their own, as steps of .ci/run.
  testIgnore: ['load/**', 'packaging/**'],
  fullyParallel: true,
  workers: '100%',
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  reporter: [['list'], ['./summary-reporter.ts']],
  outputDir: '../test-results',
});
