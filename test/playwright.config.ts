// Self-test configuration: unit, fixture cross-check and CLI tests of ahp-conformance itself.
// The conformance suites against implementations under test use ../playwright.config.ts.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  // Verdicts under load (npm run test:load) saturate the machine; the packaging tests (npm run
  // test:packaging) pack and install the tool. Both run on their own, as steps of .ci/run.
  // The fault matrices certify the reference claims of both snapshots once per fault mode
  // (about 10 minutes of test time, 40% of the self-tests): they run when AHP_FAULT_MATRIX
  // names a scope, `npm run test:faults` (targets) or `npm run test:matrix` (every check, a
  // step of .ci/run), so that `npm test` stays within its budget of 8 minutes on 2 cores.
  testIgnore: [
    'load/**',
    'packaging/**',
    ...(process.env.AHP_FAULT_MATRIX ? [] : ['faults.spec.ts', 'harness-faults.spec.ts']),
  ],
  fullyParallel: true,
  workers: '100%',
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  reporter: [['list'], ['./summary-reporter.ts']],
  outputDir: '../test-results',
});
