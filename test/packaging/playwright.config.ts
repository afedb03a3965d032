// The packaging tests (`npm run test:packaging`, a step of .ci/run): the packed tarball
// installed globally and run from a vendor's folder, and docs/nightly.md's workflow linted
// with actionlint and run locally in its two-shard form. Kept out of `npm test`'s budget:
// each packs the checkout and installs it, and the nightly runs certify both bundled claims
// four times.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  workers: '100%',
  forbidOnly: !!process.env.CI,
  timeout: 600_000,
  reporter: [['list'], ['../summary-reporter.ts']],
  outputDir: '../../test-results/packaging',
});
