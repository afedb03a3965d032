// The results reporter tells the runner's own errors from findings (docs/cli.md, exit 3):
// Playwright's errors outside every check, a check Playwright failed from outside its worker
// (the check never ran), a check the config gave a project that never loaded, a reporter
// that threw after this one wrote; and leaves alone what is no fault of the runner
// (--max-failures reached, a --grep that selected nothing).
import { test, expect } from '@playwright/test';
import type { FullConfig, Suite, TestResult } from '@playwright/test/reporter';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ResultsReporter, { type ResultsReporterOptions } from '../../src/results/reporter.js';
import { ANNOTATION } from '../../src/results/annotations.js';
import { runMetadata, type RunOutcome } from '../../src/results/run-record.js';
import { reporterPlan, reporterTestCase } from '../support/results-fixture.js';

const metadata = runMetadata(reporterPlan());
const CHECK = { type: ANNOTATION.check, description: 'base.jsonrpc-utf8' };
/** A check's test: its id is a static annotation (suites/support/check.ts). */
const testCase = {
  ...reporterTestCase,
  annotations: [CHECK, ...reporterTestCase.annotations],
} as unknown as typeof reporterTestCase;

/** What the reporter recorded after `drive` (onBegin before it, onEnd after unless it says otherwise). */
function outcome(
  drive: (r: ResultsReporter) => void,
  options: Partial<ResultsReporterOptions> = {},
  begin: { config?: Partial<FullConfig>; suite?: Suite } = {},
): RunOutcome {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-internal-'));
  try {
    const file = join(dir, 'outcome.json');
    const reporter = new ResultsReporter({ outcomeFile: file, mode: 'run', ...options });
    reporter.onBegin({ metadata, projects: [], ...begin.config } as unknown as FullConfig, begin.suite);
    drive(reporter);
    return JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const end = (r: ResultsReporter): void => r.onEnd({ status: 'failed', startTime: new Date(), duration: 1 } as never);

test('an error outside every check (a file that did not load) is the outcome: no claims, one line', () => {
  const o = outcome((r) => {
    r.onError({ message: "Error: Cannot find module '/x/dist/suites/backend/base.spec.js'\n    at stack line" });
    r.onError({ message: 'Error: Worker teardown timeout of 30000ms exceeded' });
    end(r);
  });
  expect(o.claims).toEqual([]);
  expect(o.internalError).toBe("Error: Cannot find module '/x/dist/suites/backend/base.spec.js' (and 1 more)");
});

test('a check Playwright failed from outside its worker never ran: an internal error, not a failed check', () => {
  const o = outcome((r) => {
    // The dispatcher's result: no annotation of the check's own (the worker never returned it).
    r.onTestEnd(testCase, {
      retry: 0,
      status: 'failed',
      duration: 0,
      annotations: [],
      attachments: [],
      errors: [{ message: 'Error: worker process exited unexpectedly (code=1, signal=null)' }],
    } as unknown as TestResult);
    end(r);
  });
  expect(o.claims).toEqual([]);
  expect(o.internalError).toMatch(/did not run in its worker: Error: worker process exited unexpectedly/);
});

test('a check the worker ran and failed stays a finding; one skipped beside a fatal error is only not run', () => {
  const o = outcome((r) => {
    r.onTestEnd(testCase, {
      retry: 0,
      status: 'failed',
      duration: 5,
      annotations: [CHECK],
      attachments: [],
      errors: [{ message: 'CheckFailure: no reply' }],
    } as unknown as TestResult);
    end(r);
  });
  expect(o.internalError).toBeUndefined();
  expect(o.claims[0]!.checks.map((c) => c.status)).toEqual(['failed']);
  const skipped = outcome((r) => {
    r.onTestEnd(testCase, {
      retry: 0,
      status: 'skipped',
      duration: 0,
      annotations: [],
      attachments: [],
      errors: [],
    } as unknown as TestResult);
    end(r);
  });
  expect(skipped.internalError).toBeUndefined();
});

test('--max-failures reached and a --grep that selected nothing are not the runner’s errors; no tests where the config gave some is', () => {
  const stopped = outcome((r) => {
    r.onError({ message: 'Testing stopped early after 1 maximum allowed failures.' });
    r.onError({ message: 'Error: No tests found' });
    end(r);
  });
  expect(stopped.internalError).toBeUndefined();
  const lost = outcome(
    (r) => {
      r.onError({ message: 'Error: No tests found' });
      end(r);
    },
    { expectsChecks: true },
  );
  expect(lost.internalError).toBe('Error: No tests found');
});

test('a check the config gave a project that Playwright did not collect (its suite file missing) is an internal error', () => {
  // Collected under the http shape only: the project's stdio target misses it.
  const collected = testCase;
  const suite = {
    suites: [{ project: () => ({ name: 'acme:backend' }), allTests: () => [collected] }],
    allTests: () => [collected],
  } as unknown as Suite;
  const project = (targets: { shape: string; checks: string[] }[]) => ({
    name: 'acme:backend',
    metadata: { claimIndex: 0, role: 'backend', targets },
  });
  const projects = [
    project([
      { shape: 'http', checks: ['base.jsonrpc-utf8', 'ti.response-id'] },
      { shape: 'stdio:persistent', checks: ['base.jsonrpc-utf8'] },
    ]),
  ];
  const o = outcome(end, {}, { config: { projects } as unknown as Partial<FullConfig>, suite });
  expect(o.internalError).toBe(
    '1 check of acme:backend:http never loaded (ti.response-id): a suite of the runner is missing (and 1 more)',
  );
  const whole = outcome(
    end,
    {},
    {
      config: {
        projects: [project([{ shape: 'http', checks: ['base.jsonrpc-utf8'] }])],
      } as unknown as Partial<FullConfig>,
      suite,
    },
  );
  expect(whole.internalError).toBeUndefined();
});

test('a reporter that throws after this one wrote its outcome (the HTML report) still makes the run an internal error', () => {
  const o = outcome((r) => {
    end(r);
    r.onError({ message: 'Error: ENOSPC: no space left on device, write' });
  });
  expect(o.claims).toEqual([]);
  expect(o.internalError).toBe('Error: ENOSPC: no space left on device, write');
});

test('a shard records only the runner’s errors', () => {
  expect(outcome(end, { mode: 'shard' })).toEqual({ claims: [] });
  const broken = outcome(
    (r) => {
      r.onError({ message: 'SyntaxError: Unexpected token' });
      end(r);
    },
    { mode: 'shard' },
  );
  expect(broken.internalError).toBe('SyntaxError: Unexpected token');
});
