// `run --list`: the checks a run would run, one line each, as Playwright's own listing
// prints them but named by target (`[acme:backend:stdio:persistent] › file › title`): a
// project runs every target of a claim's role, and the shape describe that tells them apart
// (suites/support/check.ts) is in that name rather than among the titles.
import { relative } from 'node:path';
import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';
import { testShape, testTargetName } from './test-target.js';

export default class Listing implements Reporter {
  onBegin(config: FullConfig, suite: Suite): void {
    const lines = ['Listing tests:'];
    const tests = suite.allTests();
    const files = new Set<string>();
    for (const test of tests) {
      // ['', project, file, shape describe, ...describes, title]
      const titles = test.titlePath().slice(3);
      if (testShape(test) !== undefined && titles[0] === testShape(test)) titles.shift();
      const { file, line, column } = test.location;
      lines.push(
        `  [${testTargetName(test)}] › ${relative(config.rootDir, file)}:${line}:${column} › ${titles.join(' › ')}`,
      );
      files.add(file);
    }
    lines.push(
      `Total: ${tests.length} ${tests.length === 1 ? 'test' : 'tests'} in ${files.size} ${files.size === 1 ? 'file' : 'files'}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
