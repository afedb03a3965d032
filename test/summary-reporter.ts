// Prints the plain closing line CI reads: `N passed, N failed[, N skipped]`.
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  private readonly outcome = new Map<string, string>();

  onTestEnd(test: TestCase, _result: TestResult): void {
    this.outcome.set(test.id, test.outcome());
  }

  onEnd(): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const o of this.outcome.values()) {
      if (o === 'expected' || o === 'flaky') passed++;
      else if (o === 'skipped') skipped++;
      else failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
