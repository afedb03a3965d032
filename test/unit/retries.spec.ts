// run --retries as the results reporter records it: a retry replaces the attempt before it,
// a pass on a retry is flaky (and failed under --certify), and the terminal's failure block
// keeps the end of a long transcript, where the replies are.
import { test, expect } from '@playwright/test';
import type { FullConfig, TestResult } from '@playwright/test/reporter';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ResultsReporter from '../../src/results/reporter.js';
import { ANNOTATION } from '../../src/results/annotations.js';
import { runMetadata, type RunOutcome } from '../../src/results/run-record.js';
import { transcriptBlock, TRANSCRIPT_HEAD, TRANSCRIPT_TAIL } from '../../src/results/progress.js';
import { reporterPlan, reporterTestCase, validResults } from '../support/results-fixture.js';
import { claimPage } from '../../src/results/html/claim-page.js';

const plan = reporterPlan();
const testCase = reporterTestCase;

function attempt(retry: number, status: 'passed' | 'failed', message = ''): TestResult {
  return {
    retry,
    status,
    duration: 5,
    annotations: [{ type: ANNOTATION.check, description: 'base.jsonrpc-utf8' }],
    attachments: [],
    errors: status === 'failed' ? [{ message: `CheckFailure: ${message}` }] : [],
  } as unknown as TestResult;
}

function record(attempts: TestResult[], flakyFails: boolean, mode: 'run' | 'merge' = 'run'): RunOutcome {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-retries-'));
  try {
    const file = join(dir, 'outcome.json');
    const reporter = new ResultsReporter({ outcomeFile: file, mode, flakyFails });
    // A merge reads the plan and the shards from the blobs' metadata: here one shard of one.
    const metadata = mode === 'merge' ? runMetadata(plan, { current: 1, total: 1 }) : runMetadata(plan);
    reporter.onBegin({ metadata } as unknown as FullConfig);
    for (const a of attempts) reporter.onTestEnd(testCase, a);
    reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1 } as never);
    const outcome = JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
    for (const c of outcome.claims) expect(validResults(c), JSON.stringify(validResults.errors)).toBe(true);
    return outcome;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a pass on a retry is one flaky check that passed, with its first failure in the message', () => {
  const out = record([attempt(0, 'failed', 'no reply within 2000 ms'), attempt(1, 'passed')], false);
  const checks = out.claims[0]!.checks;
  expect(checks).toHaveLength(1);
  expect(checks[0]).toMatchObject({ status: 'passed', flaky: true, attempts: 2 });
  expect(checks[0]!.message).toContain('attempt 1: no reply within 2000 ms');
  expect(out.claims[0]!.verdict).toBe('conformant');
  expect(claimPage(out.claims[0]!)).toContain('flaky (2 attempts)');
});

test('under --certify a flaky pass is a failure', () => {
  const out = record([attempt(0, 'failed', 'no reply'), attempt(1, 'passed')], true);
  expect(out.claims[0]!.checks[0]).toMatchObject({ status: 'failed', flaky: true, attempts: 2 });
  expect(out.claims[0]!.checks[0]!.message).toContain('a certification takes no flaky pass');
  expect(out.claims[0]!.verdict).toBe('nonconformant');
});

test('merge --certify: a pass on a retry in a shard is a failure too', () => {
  const out = record([attempt(0, 'failed', 'no reply'), attempt(1, 'passed')], true, 'merge');
  expect(out.error).toBeUndefined();
  expect(out.claims[0]!.checks[0]).toMatchObject({ status: 'failed', flaky: true });
});

test('a check that fails every attempt is one failure with its attempts, not flaky', () => {
  const out = record([attempt(0, 'failed', 'a'), attempt(1, 'failed', 'b'), attempt(2, 'failed', 'c')], false);
  expect(out.claims[0]!.checks).toHaveLength(1);
  expect(out.claims[0]!.checks[0]).toMatchObject({ status: 'failed', attempts: 3, message: 'c' });
  expect(out.claims[0]!.checks[0]!.flaky).toBeUndefined();
});

test("a failure block keeps the transcript's first entries and its last ones, each bounded", () => {
  const entries = Array.from({ length: 60 }, (_, i) => `+${i}.0ms  << stdio  reply ${i}`);
  const block = transcriptBlock(entries);
  expect(block).toHaveLength(TRANSCRIPT_HEAD + 1 + TRANSCRIPT_TAIL);
  expect(block.at(-1)).toBe(entries.at(-1));
  expect(block[TRANSCRIPT_HEAD]).toContain(`${60 - TRANSCRIPT_HEAD - TRANSCRIPT_TAIL} entries left out`);
  expect(transcriptBlock(entries.slice(0, 8))).toEqual(entries.slice(0, 8));
  const long = transcriptBlock([`+1.0ms  << stdio  ${'x'.repeat(5000)}`])[0]!;
  expect(long.length).toBeLessThan(1100);
  expect(long).toMatch(/more characters in the report\)$/);
});
