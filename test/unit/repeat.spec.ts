// run --repeat as the results reporter records it, from synthetic test results: the N
// repetitions of one (check, target) fold into one check with every repetition's status and
// time; repetitions that differ make it flaky (its status as a pass on a retry gives it), and
// results.json, the report, JUnit and the closing line say so. No timed assertion: the
// durations are the results' own numbers.
import { test, expect } from '@playwright/test';
import type { FullConfig, TestCase, TestResult } from '@playwright/test/reporter';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ResultsReporter from '../../src/results/reporter.js';
import { ANNOTATION } from '../../src/results/annotations.js';
import { runMetadata, type RunOutcome } from '../../src/results/run-record.js';
import { foldRepetitions, FOLD_ORDER } from '../../src/results/repetitions.js';
import type { CheckResult, CheckStatus, ClaimResults } from '../../src/results/model.js';
import { claimPage } from '../../src/results/html/claim-page.js';
import { junitXml } from '../../src/results/junit.js';
import { conclude, summaryLine } from '../../src/cli/acceptance.js';
import { UsageError } from '../../src/cli/args.js';
import { plannedProjects, type RunPlan } from '../../src/engine/plan.js';
import { recordPlan } from '../../src/engine/shards.js';
import { referenceBackendPlan } from '../support/plan-fixture.js';
import { checkResult, reporterPlace, reporterPlan, validResults } from '../support/results-fixture.js';

const HTTP = reporterPlace('http');

type Outcome = 'passed' | 'warning' | 'failed' | 'incomplete' | 'interrupted';

/** One repetition (Playwright's repeatEachIndex `index`) of check `id`, as a worker returns it. */
function repetition(
  id: string,
  index: number,
  outcome: Outcome,
  durationMs: number,
  message = '',
  retry = 0,
): [TestCase, TestResult] {
  const testCase = {
    id: `${id}-${index}`,
    repeatEachIndex: index,
    annotations: [HTTP.annotation],
    parent: HTTP.parent,
  } as unknown as TestCase;
  const annotations = [
    { type: ANNOTATION.check, description: id },
    ...(outcome === 'warning' || outcome === 'incomplete' ? [{ type: ANNOTATION.status, description: outcome }] : []),
    ...(message && outcome !== 'failed' ? [{ type: ANNOTATION.message, description: message }] : []),
  ];
  const status = outcome === 'warning' ? 'passed' : outcome === 'incomplete' ? 'skipped' : outcome;
  const result = {
    retry,
    status,
    duration: durationMs,
    annotations,
    attachments: [],
    errors: outcome === 'failed' ? [{ message: `CheckFailure: ${message}` }] : [],
  } as unknown as TestResult;
  return [testCase, result];
}

function record(results: [TestCase, TestResult][], repeat = 3): ClaimResults {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-repeat-'));
  try {
    const file = join(dir, 'outcome.json');
    const reporter = new ResultsReporter({ outcomeFile: file, mode: 'run' });
    reporter.onBegin({ metadata: runMetadata(reporterPlan({ repeat })) } as unknown as FullConfig);
    for (const [t, r] of results) reporter.onTestEnd(t, r);
    reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1 } as never);
    const outcome = JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
    for (const c of outcome.claims) expect(validResults(c), JSON.stringify(validResults.errors)).toBe(true);
    return outcome.claims[0]!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ID = 'base.jsonrpc-utf8';
const only = (r: ClaimResults): CheckResult => {
  expect(r.checks).toHaveLength(1);
  return r.checks[0]!;
};

test('repetitions that agree are one check of that status, not flaky, with every repetition and its time', () => {
  const r = record([
    repetition(ID, 0, 'passed', 120),
    repetition(ID, 1, 'passed', 340),
    repetition(ID, 2, 'passed', 90),
  ]);
  const c = only(r);
  expect(c).toMatchObject({ status: 'passed', durationMs: 340 });
  expect(c.flaky).toBeUndefined();
  expect(c.repetitions).toEqual([
    { status: 'passed', durationMs: 120 },
    { status: 'passed', durationMs: 340 },
    { status: 'passed', durationMs: 90 },
  ]);
  expect(r.run?.repeat).toBe(3);
  expect(r.verdict).toBe('conformant');
  expect(summaryLine(r, 'reports/acme')).toContain('1 passed, 0 failed, 0 flaky across 3 repetitions');
  expect(claimPage(r)).toContain('every check ran 3 times (--repeat)');
});

test('a pass and a failure are one flaky check that passed, as a pass on a retry; every view shows the repetitions', () => {
  const r = record([
    // Ended out of order (two workers): folded in repetition order.
    repetition(ID, 1, 'failed', 2400, 'no reply within 2000 ms'),
    repetition(ID, 0, 'passed', 110),
    repetition(ID, 2, 'passed', 130),
  ]);
  const c = only(r);
  expect(c).toMatchObject({ status: 'passed', flaky: true, durationMs: 2400 });
  expect(c.repetitions!.map((x) => x.status)).toEqual(['passed', 'failed', 'passed']);
  expect(c.repetitions![1]).toEqual({ status: 'failed', durationMs: 2400, message: 'no reply within 2000 ms' });
  expect(c.message).toContain('flaky: repetition 1 passed (0.1 s), repetition 2 failed (2.4 s), repetition 3 passed');
  expect(c.message).toContain('evidence and transcript of repetition 2: no reply within 2000 ms');
  expect(r.verdict).toBe('conformant');
  expect(summaryLine(r, 'reports/acme')).toContain('1 flaky across 3 repetitions');
  const html = claimPage(r);
  expect(html).toContain('flaky (passed, failed, passed)');
  expect(html).toContain('<table class="repetitions">');
  expect(html).toContain('2400 ms');
  const xml = junitXml(r);
  expect(xml).toContain('<property name="flaky" value="true"/>');
  expect(xml).toContain('<property name="repetition" value="2: failed 2400 ms"/>');
});

test('a failure and a repetition that could not judge are a flaky failure; repetitions that never ran are no verdict', () => {
  const failed = record([
    repetition(ID, 0, 'incomplete', 50, 'no reply to the fence'),
    repetition(ID, 1, 'failed', 60, 'wrong id'),
    repetition(ID, 2, 'failed', 70, 'wrong id'),
  ]);
  expect(only(failed)).toMatchObject({ status: 'failed', flaky: true, message: expect.stringContaining('wrong id') });
  expect(failed.verdict).toBe('nonconformant');
  // Stopped by -x before it judged: not judged, so not a differing verdict.
  const cut = record([repetition(ID, 0, 'passed', 50), repetition(ID, 1, 'interrupted', 10)]);
  expect(only(cut)).toMatchObject({ status: 'passed' });
  expect(only(cut).flaky).toBeUndefined();
  expect(only(cut).repetitions!.map((x) => x.status)).toEqual(['passed', 'not-run']);
});

test('every repetition failing is one failure, not flaky; each message that differs is kept', () => {
  const r = record([
    repetition(ID, 0, 'failed', 10, 'reply 1 had no id'),
    repetition(ID, 1, 'failed', 10, 'reply 1 had no id'),
    repetition(ID, 2, 'failed', 10, 'reply 3 had no id'),
  ]);
  const c = only(r);
  expect(c).toMatchObject({ status: 'failed', message: 'reply 1 had no id' });
  expect(c.flaky).toBeUndefined();
  expect(c.repetitions!.map((x) => x.message)).toEqual([undefined, undefined, 'reply 3 had no id']);
  expect(summaryLine(r, 'reports/acme')).toContain('0 passed, 1 failed, 0 flaky across 3 repetitions');
  expect(junitXml(r)).not.toContain('name="flaky"');
});

test('checks fold apart, and a repetition retried to a pass (--retries) makes its check flaky', () => {
  const other = 'base.protocol-version';
  const r = record(
    [
      repetition(ID, 0, 'passed', 10),
      repetition(other, 0, 'warning', 10, 'late'),
      repetition(ID, 1, 'failed', 10, 'no reply'),
      repetition(ID, 1, 'passed', 12, '', 1),
      repetition(other, 1, 'warning', 11, 'late'),
    ],
    2,
  );
  expect(r.checks).toHaveLength(2);
  const mine = r.checks.find((c) => c.id === ID)!;
  expect(mine).toMatchObject({ status: 'passed', flaky: true });
  expect(mine.repetitions).toEqual([
    { status: 'passed', durationMs: 10 },
    { status: 'passed', durationMs: 12, message: expect.stringContaining('passed only on attempt 2'), attempts: 2 },
  ]);
  expect(r.checks.find((c) => c.id === other)).toMatchObject({ status: 'warning', message: 'late' });
});

test('the fold order: a warning before a pass, a pass before a failure, a failure before incomplete', () => {
  const fold = (...statuses: CheckStatus[]) =>
    foldRepetitions(statuses.map((s, index) => ({ index, entry: checkResult(ID, 'backend', 'http', undefined, s) })))
      .status;
  expect(FOLD_ORDER.slice(0, 4)).toEqual(['warning', 'passed', 'failed', 'incomplete']);
  expect(fold('passed', 'warning')).toBe('warning');
  expect(fold('failed', 'passed')).toBe('passed');
  expect(fold('incomplete', 'failed')).toBe('failed');
  expect(fold('not-applicable', 'incomplete')).toBe('incomplete');
  expect(fold('not-run', 'not-run')).toBe('not-run');
});

test('a certification takes no repeated run (merge --certify of shards run with --repeat)', () => {
  const r = record([repetition(ID, 0, 'passed', 1), repetition(ID, 1, 'passed', 1)], 2);
  const written: { results: ClaimResults; dir: string }[] = [];
  const io = { out: () => undefined, err: () => undefined };
  expect(() =>
    conclude([{ results: r, reportDir: join(tmpdir(), 'never-written') }], { certification: true }, io, written),
  ).toThrow(UsageError);
  expect(written).toEqual([]);
});

test('shards run with other --repeat values are of different runs; the recorded plan carries it', () => {
  const base: RunPlan = referenceBackendPlan();
  const once = recordPlan(base, plannedProjects(base));
  const thrice = recordPlan({ ...base, repeat: 3 }, plannedProjects(base));
  expect(once.repeat).toBeUndefined();
  expect(thrice.repeat).toBe(3);
  expect(thrice.digest).not.toBe(once.digest);
  expect(recordPlan({ ...base, repeat: 2 }, plannedProjects(base)).digest).not.toBe(thrice.digest);
});
