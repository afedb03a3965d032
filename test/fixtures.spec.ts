// The fixture cross-check: our validator (and the snapshot's own schemas) agree with
// every expectation of the upstream manifest.
import { test, expect } from '@playwright/test';
import { crossCheck } from '../src/fixtures/cross-check.js';
import { HAVE_SPEC, NO_SPEC_REASON, SPEC_DIR } from './support/paths.js';

test.describe('upstream fixture cross-check', () => {
  test.skip(!HAVE_SPEC, NO_SPEC_REASON);

  test('our schemas agree with every fixture expectation', () => {
    const report = crossCheck(SPEC_DIR);
    expect(report.disagreements).toEqual([]);
    expect(report.total).toBeGreaterThan(100);
    expect(report.agree).toBe(report.total);
  });

  test('the snapshot schemas (--spec) agree with every fixture expectation', () => {
    const report = crossCheck(SPEC_DIR, { snapshotSchemas: true });
    expect(report.disagreements).toEqual([]);
    expect(report.agree).toBe(report.total);
  });
});
