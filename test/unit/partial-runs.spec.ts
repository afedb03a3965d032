// Honest partial runs (issue 23, item 5): a run that left out checks the claim needs
// (--grep, --grep-invert, a shard missing from a merge) records how many ran of how many,
// and is `partial` (never a bare `conformant`) unless a failure makes it nonconformant; a
// certification is never partial. A run that stopped (-x / --max-failures, a signal,
// Playwright's global timeout; issue 26, item 3) records the checks it cut short or never
// started as `not-run`: their target is `incomplete` (exit 2), never failed, and a failure
// found before the stop stays nonconformant (exit 1). The verdict logic, the closing line,
// the reporter's view of a run stopped early, acceptance (certification, baseline, expected
// failures) and every view of the results.
import { test, expect } from '@playwright/test';
import type { FullConfig, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { certifiedVerdict, conclude, prepareAcceptance, summaryLine } from '../../src/cli/acceptance.js';
import { compareRuns } from '../../src/results/baseline.js';
import { applyExpectedFailures } from '../../src/results/expected-failures.js';
import { claimPage } from '../../src/results/html/claim-page.js';
import { matrixPage } from '../../src/results/html/matrix-page.js';
import { junitXml } from '../../src/results/junit.js';
import {
  buildClaimResults,
  stableJson,
  type CheckResult,
  type CheckStatus,
  type ClaimResults,
  type PlannedTarget,
} from '../../src/results/model.js';
import ResultsReporter from '../../src/results/reporter.js';
import ProgressReporter from '../../src/results/progress.js';
import { ANNOTATION, NOT_FINISHED, NOT_STARTED } from '../../src/results/annotations.js';
import { runMetadata, type RecordedPlan, type RunOutcome } from '../../src/results/run-record.js';
import { snapshotSummary } from '../../src/results/snapshot.js';
import { verifyClaimFolder } from '../../src/results/verify.js';
import { ROOT } from '../support/paths.js';
import { tempFolders } from '../support/temp.js';
import { checkResult, reporterPlace } from '../support/results-fixture.js';

const STDIO_PLACE = reporterPlace('stdio:persistent');

const validateResults = new Ajv2020({ strict: false, logger: false }).compile(
  JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object,
);
const workspace = tempFolders('ahp-partial-');

const IDS = ['base.jsonrpc-utf8', 'ti.deny-samples', 'ti.modify-samples'];
const STDIO: PlannedTarget = { role: 'backend', transport: 'stdio', lifecycle: 'persistent', checks: IDS };
const HTTP: PlannedTarget = { role: 'backend', transport: 'http', checks: IDS };

const check = (id: string, t: PlannedTarget, status: CheckStatus, level: 'MUST' | 'SHOULD' = 'MUST'): CheckResult =>
  checkResult(id, t.role, t.transport, t.lifecycle, status, level);

const claim = {
  file: 'demo.yaml',
  implementation: { name: 'demo', version: '1.0.0' },
  snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
  role: 'backend',
  transports: ['stdio', 'http'],
  profiles: ['tool-interception'],
};

function results(checks: CheckResult[], why?: string[], targets: PlannedTarget[] = [STDIO, HTTP]): ClaimResults {
  const r = buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00.000Z',
    claim,
    targets,
    checks,
    ...(why ? { why } : {}),
  });
  expect(validateResults(JSON.parse(stableJson(r))), JSON.stringify(validateResults.errors)).toBe(true);
  return r;
}

const every = (status: CheckStatus = 'passed'): CheckResult[] =>
  [STDIO, HTTP].flatMap((t) => IDS.map((id) => check(id, t, status)));
const GREP = ["left out by --grep 'ti.deny-samples'"];
/** An Io that keeps what `conclude` prints on stdout. */
const sink = (lines: string[]) => ({ out: (l: string) => lines.push(l), err: () => {} });

test.describe('the verdict', () => {
  test('every check the claim needs ran and passed: conformant, with full coverage and no why', () => {
    const r = results(every(), GREP);
    expect(r.verdict).toBe('conformant');
    expect(r.coverage).toEqual({ ran: 6, needed: 6 });
    expect(r.targets.map((t) => t.coverage)).toEqual([
      { ran: 3, needed: 3 },
      { ran: 3, needed: 3 },
    ]);
  });

  test('only some ran, all passing: partial, with how many of how many and why, and each target partial', () => {
    const r = results([check('ti.deny-samples', STDIO, 'passed'), check('ti.deny-samples', HTTP, 'passed')], GREP);
    expect(r.verdict).toBe('partial');
    expect(r.coverage).toEqual({ ran: 2, needed: 6, why: GREP });
    expect(r.reason).toBe("ran 2 of 6 checks the claim needs (left out by --grep 'ti.deny-samples')");
    expect(r.targets.map((t) => [t.verdict, t.reason])).toEqual([
      ['partial', "ran 1 of 3 checks (left out by --grep 'ti.deny-samples')"],
      ['partial', "ran 1 of 3 checks (left out by --grep 'ti.deny-samples')"],
    ]);
  });

  test('a target where nothing ran is partial (0 of its checks), not incomplete, when others ran', () => {
    const r = results([check('ti.deny-samples', STDIO, 'passed')], GREP);
    expect(r.verdict).toBe('partial');
    expect(r.targets.find((t) => t.transport === 'http')).toMatchObject({
      verdict: 'partial',
      coverage: { ran: 0, needed: 3 },
    });
  });

  test('a MUST failure in a partial run is nonconformant, with the coverage still recorded', () => {
    const r = results(
      [check('ti.deny-samples', STDIO, 'failed'), check('base.jsonrpc-utf8', HTTP, 'passed')],
      ['the run stopped early at --max-failures 1'],
    );
    expect(r.verdict).toBe('nonconformant');
    expect(r.reason).toBeUndefined();
    expect(r.coverage).toEqual({ ran: 2, needed: 6, why: ['the run stopped early at --max-failures 1'] });
  });

  test('a SHOULD failure (a warning) in a partial run stays partial', () => {
    const r = results([check('ti.deny-samples', STDIO, 'warning', 'SHOULD')], GREP);
    expect(r.verdict).toBe('partial');
  });

  test('a MUST check that could not judge leaves a partial run incomplete', () => {
    const r = results([check('ti.deny-samples', STDIO, 'incomplete')], GREP);
    expect(r.verdict).toBe('incomplete');
  });

  test('a check the run stopped (not run) counts toward needed, not ran; no failure: its target and the claim are incomplete', () => {
    const checks = every().map((c, i) => (i === 5 ? { ...c, status: 'not-run' as const } : c));
    const r = results(checks, ['the run was interrupted']);
    expect(r.verdict).toBe('incomplete');
    expect(r.reason).toBe('ran 5 of 6 checks the claim needs (the run was interrupted)');
    expect(r.coverage).toEqual({ ran: 5, needed: 6, why: ['the run was interrupted'] });
    expect(r.counts).toMatchObject({ passed: 5, failed: 0, 'not-run': 1 });
    expect(r.targets.map((t) => [t.transport, t.verdict, t.reason])).toEqual([
      ['http', 'incomplete', 'ran 2 of 3 checks (the run was interrupted)'],
      ['stdio', 'conformant', undefined],
    ]);
  });

  test('a SHOULD check not run leaves the target incomplete too: the run did not finish judging it', () => {
    const r = results([...every().slice(0, 5), check('ti.modify-samples', HTTP, 'not-run', 'SHOULD')], ['x']);
    expect(r.verdict).toBe('incomplete');
  });

  test('a MUST failure before the stop is nonconformant, even beside a target the stop left incomplete', () => {
    const r = results(
      [
        check('ti.deny-samples', STDIO, 'failed'),
        check('base.jsonrpc-utf8', STDIO, 'passed'),
        check('ti.deny-samples', HTTP, 'not-run'),
      ],
      ['the run stopped early at --max-failures 1'],
    );
    expect(r.verdict).toBe('nonconformant');
    expect(r.reason).toBeUndefined();
    expect(r.targets.map((t) => [t.transport, t.verdict])).toEqual([
      ['http', 'incomplete'],
      ['stdio', 'nonconformant'],
    ]);
    expect(r.checks.filter((c) => c.status === 'failed')).toHaveLength(1);
  });

  test('an incomplete target of its own (a MUST check that could not judge) stays ahead of a failure, as before', () => {
    const r = results(
      [check('ti.deny-samples', STDIO, 'failed'), check('ti.deny-samples', HTTP, 'incomplete')],
      ['the run was interrupted'],
    );
    expect(r.verdict).toBe('incomplete');
  });

  test('--grep and a stop together: incomplete (the stop), with both reasons', () => {
    const why = [...GREP, 'the run was interrupted'];
    const r = results([check('ti.deny-samples', STDIO, 'passed'), check('ti.deny-samples', HTTP, 'not-run')], why);
    expect(r.verdict).toBe('incomplete');
    expect(r.reason).toBe(
      "ran 1 of 6 checks the claim needs (left out by --grep 'ti.deny-samples'; the run was interrupted)",
    );
    expect(r.targets.map((t) => [t.transport, t.verdict])).toEqual([
      ['http', 'incomplete'],
      ['stdio', 'partial'],
    ]);
  });

  test('nothing ran to a result: incomplete, as before', () => {
    expect(results([check('ti.deny-samples', STDIO, 'not-run')], ['the run was interrupted']).verdict).toBe(
      'incomplete',
    );
  });

  test('a plan that recorded no checks per target: a target with a check not run is incomplete, saying how many', () => {
    const old = [{ role: 'backend', transport: 'stdio', lifecycle: 'persistent' }] as PlannedTarget[];
    const r = results(
      [check('ti.deny-samples', STDIO, 'passed'), check('ti.modify-samples', STDIO, 'not-run')],
      ['the run was interrupted'],
      old,
    );
    expect(r.verdict).toBe('incomplete');
    expect(r.reason).toBe('1 check not run (the run was interrupted)');
  });

  test('a plan that recorded no checks per target (blobs of an earlier version): no coverage, verdicts as before', () => {
    const old = [
      { role: 'backend', transport: 'stdio', lifecycle: 'persistent' },
      { role: 'backend', transport: 'http' },
    ] as PlannedTarget[];
    const r = results([check('ti.deny-samples', STDIO, 'passed'), check('ti.deny-samples', HTTP, 'passed')], GREP, old);
    expect(r.verdict).toBe('conformant');
    expect(r.coverage).toBeUndefined();
  });
});

test.describe('the closing line', () => {
  test('a partial run says partial and how many of how many, never a bare conformant', () => {
    const r = results([check('ti.deny-samples', STDIO, 'passed')], GREP, [STDIO]);
    const line = summaryLine(r, 'reports/demo');
    expect(line).toBe(
      "demo 1.0.0: partial: ran 1 of 3 checks the claim needs (1 passed, 0 failed; left out by --grep 'ti.deny-samples'), judged by draft@2b5da580 -> reports/demo",
    );
    expect(line).not.toMatch(/: conformant\b/);
  });

  test('with several targets, each target verdict follows the why', () => {
    const line = summaryLine(results([check('ti.deny-samples', STDIO, 'passed')], GREP), 'r');
    expect(line).toContain(
      "partial: ran 1 of 6 checks the claim needs (1 passed, 0 failed; left out by --grep 'ti.deny-samples'; backend/http partial, backend/stdio/persistent partial)",
    );
  });

  test('a nonconformant partial run gives the counts, then how many ran and why', () => {
    const r = results(
      [check('ti.deny-samples', STDIO, 'failed'), check('base.jsonrpc-utf8', STDIO, 'not-run')],
      ['the run stopped early at --max-failures 1'],
      [STDIO],
    );
    expect(summaryLine(r, 'r')).toContain(
      'demo 1.0.0: nonconformant (0 passed, 1 failed, 1 not run; ran 1 of 3 checks the claim needs: the run stopped early at --max-failures 1), judged by',
    );
  });

  test('a run that stopped with no failure says incomplete, how many ran of how many, its counts and why', () => {
    const r = results(
      [check('ti.deny-samples', STDIO, 'passed'), check('base.jsonrpc-utf8', STDIO, 'not-run')],
      ['the run was interrupted'],
      [STDIO],
    );
    expect(summaryLine(r, 'r')).toBe(
      'demo 1.0.0: incomplete: ran 1 of 3 checks the claim needs (1 passed, 0 failed, 1 not run; the run was interrupted), judged by draft@2b5da580 -> r',
    );
  });

  test('a complete run says nothing of coverage', () => {
    const line = summaryLine(results(every(), GREP), 'r');
    expect(line).toMatch(/^demo 1\.0\.0: conformant \(6 passed, 0 failed; backend\/http conformant/);
    expect(line).not.toContain(' ran ');
  });
});

test.describe('a run stopped early, as the reporter records it', () => {
  const plan: RecordedPlan = {
    runnerVersion: '0',
    digest: 'd',
    claims: [{ claim, targets: [STDIO], digest: 'c'.repeat(64) }],
  };
  /** A check's test: its id is a static annotation (suites/support/check.ts), its id the test's. */
  const testCase = (id: string): TestCase =>
    ({
      id,
      annotations: [{ type: ANNOTATION.check, description: id }, STDIO_PLACE.annotation],
      timeout: 1000,
      parent: STDIO_PLACE.parent,
    }) as unknown as TestCase;
  const result = (id: string, status: TestResult['status']): TestResult =>
    ({
      retry: 0,
      status,
      duration: 5,
      annotations: [{ type: ANNOTATION.check, description: id }],
      attachments: [],
      errors: status === 'failed' ? [{ message: 'CheckFailure: the deny is not valid' }] : [],
    }) as unknown as TestResult;

  /**
   * What the reporter records when Playwright was given `given` (after --grep; default:
   * those that end), ended `ends`, and the run ended `runStatus`.
   */
  function record(
    ends: [string, TestResult['status']][],
    runStatus: 'passed' | 'failed' | 'interrupted' | 'timedout',
    maxFailures = 0,
    mode: 'run' | 'merge' = 'run',
    metadata: Record<string, unknown> = runMetadata(plan),
    given: string[] = ends.map(([id]) => id),
  ): RunOutcome {
    const file = join(workspace(), 'outcome.json');
    const reporter = new ResultsReporter({ outcomeFile: file, mode });
    const tests = new Map(given.map((id) => [id, testCase(id)]));
    const suite = { allTests: () => [...tests.values()] } as unknown as Suite;
    reporter.onBegin({ metadata, maxFailures, projects: [] } as unknown as FullConfig, suite);
    for (const [id, status] of ends) reporter.onTestEnd(tests.get(id) ?? testCase(id), result(id, status));
    reporter.onEnd({ status: runStatus, startTime: new Date(), duration: 1 } as never);
    return JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
  }

  test('-x after one failure: the failure stands (nonconformant, exit 1); the check it cut short and the one never started are not run, never failed', () => {
    const out = record(
      [
        ['ti.deny-samples', 'failed'],
        ['base.jsonrpc-utf8', 'interrupted'],
      ],
      'failed',
      1,
      'run',
      runMetadata(plan),
      IDS,
    );
    const r = out.claims[0]!;
    expect(r.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      ['base.jsonrpc-utf8', 'not-run', NOT_FINISHED],
      ['ti.deny-samples', 'failed', 'the deny is not valid'],
      ['ti.modify-samples', 'not-run', NOT_STARTED],
    ]);
    expect(r.verdict).toBe('nonconformant');
    expect(r.counts).toMatchObject({ failed: 1, 'not-run': 2 });
    expect(r.coverage).toEqual({ ran: 1, needed: 3, why: ['the run stopped early at --max-failures 1'] });
    expect(validateResults(JSON.parse(stableJson(r))), JSON.stringify(validateResults.errors)).toBe(true);
    const dir = join(workspace(), 'demo');
    const lines: string[] = [];
    expect(conclude([{ results: r, reportDir: dir }], { certification: false }, sink(lines), [])).toBe(1);
    expect(lines[0]).toContain(
      'demo 1.0.0: nonconformant (0 passed, 1 failed, 2 not run; ran 1 of 3 checks the claim needs: the run stopped early at --max-failures 1)',
    );
  });

  test('a run interrupted (a signal) with only passes so far: incomplete, exit 2; the checks cut short or never started are not run', () => {
    const out = record(
      [
        ['ti.deny-samples', 'passed'],
        ['ti.modify-samples', 'interrupted'],
      ],
      'interrupted',
      0,
      'run',
      runMetadata(plan),
      IDS,
    );
    const r = out.claims[0]!;
    expect(r.verdict).toBe('incomplete');
    expect(r.reason).toBe('ran 1 of 3 checks the claim needs (the run was interrupted)');
    expect(r.counts).toMatchObject({ passed: 1, failed: 0, 'not-run': 2 });
    expect(r.targets.map((t) => [t.verdict, t.reason])).toEqual([
      ['incomplete', 'ran 1 of 3 checks (the run was interrupted)'],
    ]);
    expect(r.coverage).toEqual({ ran: 1, needed: 3, why: ['the run was interrupted'] });
    const dir = join(workspace(), 'demo');
    const lines: string[] = [];
    expect(conclude([{ results: r, reportDir: dir }], { certification: false }, sink(lines), [])).toBe(2);
    expect(lines[0]).toContain(
      'demo 1.0.0: incomplete: ran 1 of 3 checks the claim needs (1 passed, 0 failed, 2 not run; the run was interrupted)',
    );
    // Every view says not run, never failed or skipped.
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<property name="claimVerdict" value="incomplete"/>');
    expect(junit).toContain(`<skipped message="not-run: ${NOT_FINISHED}"/>`);
    expect(junit).toContain(`<skipped message="not-run: ${NOT_STARTED}"/>`);
    expect(junit).not.toContain('<failure');
    const page = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(page).toContain('<h1>demo 1.0.0: incomplete</h1>');
    expect(page).toContain(
      '<p id="coverage"><b>ran 1 of 3 checks the claim needs</b>: the run was interrupted. 2 not run: the run stopped before they finished or started.</p>',
    );
    expect(page).toContain('<span class="s s-not-run">not run</span>');
    expect(page).not.toContain('s-skipped');
    const matrix = matrixPage([r], ['demo'], '2026-01-01');
    expect(matrix).toContain('class="banner v-incomplete"');
    expect(matrix).toContain('2 not run');
    expect(matrix).not.toMatch(/<span class="s s-passed">passed<\/span><\/a><div class="muted">[^<]*not run/);
    expect(verifyClaimFolder(dir).problems).toEqual([]);
  });

  test("Playwright's global timeout is a stop too: incomplete, saying so", () => {
    const out = record([['ti.deny-samples', 'passed']], 'timedout', 0, 'run', runMetadata(plan), IDS);
    expect(out.claims[0]!.verdict).toBe('incomplete');
    expect(out.claims[0]!.coverage?.why).toEqual(["the run reached Playwright's global timeout"]);
  });

  test('a check Playwright skipped itself (beside a worker that died) is not run; one not applicable or incomplete keeps its status', () => {
    const skipped = (id: string, status?: string): TestResult =>
      ({
        ...result(id, 'skipped'),
        annotations: [
          { type: ANNOTATION.check, description: id },
          ...(status ? [{ type: ANNOTATION.status, description: status }] : []),
        ],
      }) as unknown as TestResult;
    const file = join(workspace(), 'outcome.json');
    const reporter = new ResultsReporter({ outcomeFile: file, mode: 'run' });
    reporter.onBegin({ metadata: runMetadata(plan), maxFailures: 0 } as unknown as FullConfig);
    reporter.onTestEnd(testCase('base.jsonrpc-utf8'), skipped('base.jsonrpc-utf8'));
    reporter.onTestEnd(testCase('ti.deny-samples'), skipped('ti.deny-samples', 'not-applicable'));
    reporter.onTestEnd(testCase('ti.modify-samples'), skipped('ti.modify-samples', 'incomplete'));
    reporter.onEnd({ status: 'failed', startTime: new Date(), duration: 1 } as never);
    const r = (JSON.parse(readFileSync(file, 'utf8')) as RunOutcome).claims[0]!;
    expect(r.checks.map((c) => c.status)).toEqual(['not-run', 'not-applicable', 'incomplete']);
  });

  test('--grep: only the selected checks were given and all ran: partial, exit 0, nothing not run', () => {
    const grep = { ...plan, selection: { grep: 'ti.deny-samples' } };
    const out = record([['ti.deny-samples', 'passed']], 'passed', 0, 'run', runMetadata(grep));
    const r = out.claims[0]!;
    expect(r.verdict).toBe('partial');
    expect(r.counts['not-run']).toBe(0);
    expect(r.coverage).toEqual({ ran: 1, needed: 3, why: ["left out by --grep 'ti.deny-samples'"] });
    const lines: string[] = [];
    const dir = join(workspace(), 'demo');
    expect(conclude([{ results: r, reportDir: dir }], { certification: false }, sink(lines), [])).toBe(0);
    expect(lines[0]).toContain(
      "demo 1.0.0: partial: ran 1 of 3 checks the claim needs (1 passed, 0 failed; left out by --grep 'ti.deny-samples')",
    );
  });

  test('a merge missing a shard: partial with the missing shard named, not a blanket incomplete', () => {
    const metadata = runMetadata(plan, { current: 1, total: 2 });
    const out = record([['ti.deny-samples', 'passed']], 'passed', 0, 'merge', metadata);
    expect(out.shards).toEqual({ total: 2, present: [1], missing: [2] });
    expect(out.claims[0]!.verdict).toBe('partial');
    expect(out.claims[0]!.coverage?.why).toEqual(['shard 2/2 missing from the merge (merged: 1/2)']);
  });

  test('a merge of a shard that stopped: its checks never started are not run, and the claim incomplete', () => {
    const metadata = runMetadata(plan, { current: 1, total: 2 });
    const out = record([['ti.deny-samples', 'passed']], 'interrupted', 0, 'merge', metadata, [
      'ti.deny-samples',
      'base.jsonrpc-utf8',
    ]);
    const r = out.claims[0]!;
    expect(r.checks.find((c) => c.id === 'base.jsonrpc-utf8')).toMatchObject({
      status: 'not-run',
      message: NOT_STARTED,
    });
    expect(r.verdict).toBe('incomplete');
    expect(r.coverage?.why).toEqual(['the run was interrupted', 'shard 2/2 missing from the merge (merged: 1/2)']);
  });

  test('a merge missing a shard, of blobs that recorded no checks per target: incomplete, as before', () => {
    const old = {
      ...plan,
      claims: [{ ...plan.claims[0]!, targets: [{ role: 'backend', transport: 'stdio', lifecycle: 'persistent' }] }],
    } as RecordedPlan;
    const out = record(
      [['ti.deny-samples', 'passed']],
      'passed',
      0,
      'merge',
      runMetadata(old, { current: 1, total: 2 }),
    );
    expect(out.claims[0]!.verdict).toBe('incomplete');
    expect(out.claims[0]!.reason).toContain('shard 2/2 missing');
  });
});

test.describe('the progress lines of a run that stopped', () => {
  const testCase = (id: string): TestCase =>
    ({
      id,
      title: id,
      retries: 0,
      timeout: 1000,
      annotations: [{ type: ANNOTATION.check, description: id }],
      parent: { project: () => ({ name: 'demo:backend:stdio:persistent' }) },
    }) as unknown as TestCase;
  const result = (status: TestResult['status'], annotated?: string): TestResult =>
    ({
      retry: 0,
      status,
      duration: 5,
      annotations: annotated ? [{ type: ANNOTATION.status, description: annotated }] : [],
      attachments: [],
      errors: status === 'failed' ? [{ message: 'CheckFailure: the deny is not valid' }] : [],
    }) as unknown as TestResult;

  /** What the progress reporter prints for these ends, of `total` tests given. */
  function progress(style: 'list' | 'dot', ends: [string, TestResult['status'], string?][], total: number): string {
    const out: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      const reporter = new ProgressReporter({ style });
      const tests = Array.from({ length: total }, (_, i) => testCase(`t${i}`));
      reporter.onBegin(
        { workers: 2, projects: [] } as unknown as FullConfig,
        { allTests: () => tests } as unknown as Suite,
      );
      for (const [id, status, annotated] of ends) reporter.onTestEnd(testCase(id), result(status, annotated));
      reporter.onEnd({ status: 'interrupted' } as never);
    } finally {
      process.stdout.write = write;
    }
    return out.join('');
  }

  test('-x: the check cut short is ° and not run, never a failure block; the closing line counts it with those never started', () => {
    const dots = progress(
      'dot',
      [
        ['t0', 'passed'],
        ['t1', 'failed'],
        ['t2', 'interrupted'],
        ['t3', 'skipped', 'not-applicable'],
        ['t4', 'skipped', 'incomplete'],
      ],
      7,
    );
    expect(dots).toContain('·F°-?\n');
    expect(dots).toMatch(/1 passed, 1 failed, 1 not applicable, 1 incomplete, 3 not run \(\d+\.\ds\), interrupted/);
    expect(dots.match(/^ {2}\d+\) /gm)).toHaveLength(1);
    expect(dots).not.toContain('the run was interrupted');
    const list = progress('list', [['t2', 'interrupted']], 1);
    expect(list).toContain(`°  [demo:backend:stdio:persistent] › t2 (not run: ${NOT_FINISHED})`);
    expect(list).toMatch(/0 passed, 0 failed, 1 not run /);
  });
});

test.describe('acceptance', () => {
  const silent = { out: () => {}, err: () => {} };
  const partial = (): ClaimResults => results([check('ti.deny-samples', STDIO, 'passed')], GREP, [STDIO]);

  test('a partial run with only passes exits 0 (a --grep loop keeps working), and its views say partial', () => {
    const dir = join(workspace(), 'demo');
    const lines: string[] = [];
    const written: { results: ClaimResults; dir: string }[] = [];
    const exit = conclude(
      [{ results: partial(), reportDir: dir }],
      { certification: false },
      { ...silent, out: (l) => lines.push(l) },
      written,
    );
    expect(exit).toBe(0);
    expect(lines[0]).toContain('demo 1.0.0: partial: ran 1 of 3 checks the claim needs');
    const onDisk = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ClaimResults;
    expect(onDisk.verdict).toBe('partial');
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<property name="claimVerdict" value="partial"/>');
    expect(junit).toContain('<property name="claimChecks.ran" value="1"/>');
    expect(junit).toContain('<property name="claimChecks.needed" value="3"/>');
    expect(junit).toContain('<property name="checks.ran" value="1"/>');
    const page = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(page).toContain('<h1>demo 1.0.0: partial</h1>');
    expect(page).toContain('<p id="coverage"><b>ran 1 of 3 checks the claim needs</b>: left out by --grep');
    const v = verifyClaimFolder(dir);
    expect(v.problems).toEqual([]);
    expect(v).toMatchObject({ verdict: 'partial', coverage: { ran: 1, needed: 3 } });
  });

  test('a nonconformant partial run exits 1; its page says how many ran', () => {
    const r = results(
      [check('ti.deny-samples', STDIO, 'failed')],
      ['the run stopped early at --max-failures 1'],
      [STDIO],
    );
    const dir = join(workspace(), 'demo');
    expect(conclude([{ results: r, reportDir: dir }], { certification: false }, silent, [])).toBe(1);
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toContain(
      '<p id="coverage"><b>ran 1 of 3 checks the claim needs</b>: the run stopped early at --max-failures 1</p>',
    );
  });

  test('a certification is never partial: it is incomplete (exit 2), each partial target too; a failure stays nonconformant', () => {
    const c = certifiedVerdict(partial());
    expect(c.verdict).toBe('incomplete');
    expect(c.reason).toBe(
      "a certification needs every check the claim needs: ran 1 of 3 checks (left out by --grep 'ti.deny-samples')",
    );
    expect(c.targets.map((t) => t.verdict)).toEqual(['incomplete']);
    const dir = join(workspace(), 'demo');
    const stopped = results(
      [check('ti.deny-samples', STDIO, 'passed')],
      ['the run stopped early at --max-failures 1'],
      [STDIO],
    );
    expect(conclude([{ results: stopped, reportDir: dir }], { certification: true }, silent, [])).toBe(2);
    const onDisk = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ClaimResults;
    expect(onDisk.verdict).toBe('incomplete');
    expect(onDisk.run?.certification).toBe(true);
    const failed = results(
      [check('ti.deny-samples', STDIO, 'failed')],
      ['the run stopped early at --max-failures 1'],
      [STDIO],
    );
    expect(certifiedVerdict(failed).verdict).toBe('nonconformant');
    expect(certifiedVerdict(results(every(), [], [STDIO, HTTP])).verdict).toBe('conformant');
  });

  test('against a baseline, a check a partial run did not run is "not run", never fixed or removed', () => {
    const baseline = results(
      [STDIO, HTTP].flatMap((t) => IDS.map((id) => check(id, t, id === 'ti.modify-samples' ? 'failed' : 'passed'))),
    );
    const now = results(
      [check('ti.deny-samples', STDIO, 'passed'), check('ti.modify-samples', STDIO, 'not-run')],
      ['the run stopped early at --max-failures 1'],
    );
    const changes = compareRuns(baseline, now);
    const of = (k: string): number => changes.filter((c) => c.change === k).length;
    expect(of('fixed')).toBe(0);
    expect(of('removed-check')).toBe(0);
    expect(of('not-run')).toBe(5);
    expect(of('unchanged')).toBe(1);
    // A complete run that lost a check still says removed.
    const whole = results(
      every().filter((c) => !(c.id === 'ti.modify-samples' && c.transport === 'http')),
      [],
      [STDIO, { ...HTTP, checks: IDS.slice(0, 2) }],
    );
    expect(compareRuns(baseline, whole).filter((c) => c.change === 'removed-check')).toHaveLength(1);
  });

  test('a run that stopped is never accepted: a failure excused by the list leaves it incomplete (exit 2), an unexcused one exit 1', () => {
    const stopped = (): ClaimResults =>
      results(
        [check('ti.deny-samples', STDIO, 'failed'), check('ti.modify-samples', STDIO, 'not-run')],
        ['the run stopped early at --max-failures 1'],
        [STDIO],
      );
    const dir = join(workspace(), 'demo');
    const listed = { certification: false, expected: [{ check: 'ti.deny-samples', reason: 'known' }] };
    expect(conclude([{ results: stopped(), reportDir: dir }], listed, silent, [])).toBe(2);
    const onDisk = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ClaimResults;
    expect(onDisk.verdict).toBe('nonconformant');
    expect(onDisk.judgement?.accepted).toBe(false);
    const other = { certification: false, expected: [{ check: 'ti.modify-samples', reason: 'known' }] };
    expect(conclude([{ results: stopped(), reportDir: dir }], other, silent, [])).toBe(1);
  });

  test('a baseline of results.json version 2 (a check that did not run was "skipped") is read as not run', () => {
    const now = results([check('ti.deny-samples', STDIO, 'passed'), check('ti.modify-samples', STDIO, 'passed')]);
    const v2 = JSON.parse(stableJson(now)) as Record<string, unknown> & ClaimResults;
    v2.schemaVersion = 2;
    (v2.checks[1] as { status: string }).status = 'skipped';
    v2.counts = { ...v2.counts, skipped: 1 } as never;
    delete (v2.counts as Partial<Record<CheckStatus, number>>)['not-run'];
    const file = join(workspace(), 'baseline.json');
    writeFileSync(file, JSON.stringify(v2));
    const baseline = prepareAcceptance({ baseline: file }, []).baselines!('demo')!;
    expect(baseline.checks.map((c) => c.status)).toEqual(['passed', 'not-run']);
    expect(baseline.counts).toMatchObject({ 'not-run': 1 });
    expect(baseline.counts).not.toHaveProperty('skipped');
    const changes = compareRuns(baseline, now);
    expect(changes.map((c) => [c.id, c.before, c.change])).toEqual([
      ['ti.deny-samples', 'passed', 'unchanged'],
      ['ti.modify-samples', 'not-run', 'unchanged'],
    ]);
  });

  test('JUnit renders a results.json of version 2 ("skipped") as it did, so verify still checks its folder', () => {
    const dir = join(workspace(), 'demo');
    conclude([{ results: partial(), reportDir: dir }], { certification: false }, silent, []);
    const v2 = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ClaimResults;
    const old = {
      ...v2,
      schemaVersion: 2,
      checks: [...v2.checks, { ...v2.checks[0]!, id: 'ti.modify-samples', status: 'skipped', message: 'not judged' }],
    };
    const xml = junitXml(old as unknown as ClaimResults);
    expect(xml).toContain('<skipped message="skipped: not judged"/>');
    expect(xml).toMatch(/<testsuites [^>]*skipped="1"/);
  });

  test('an expected failure whose check was cut short is not "no longer failing"', () => {
    const now = results(
      [check('ti.deny-samples', STDIO, 'passed'), check('ti.modify-samples', STDIO, 'not-run')],
      ['the run was interrupted'],
    );
    const o = applyExpectedFailures(now, [{ check: 'ti.modify-samples', reason: 'known' }], '2026-01-01');
    expect(o.stale).toEqual([]);
    const ran = results([check('ti.modify-samples', STDIO, 'passed')], GREP);
    expect(
      applyExpectedFailures(ran, [{ check: 'ti.modify-samples', reason: 'known' }], '2026-01-01').stale,
    ).toHaveLength(1);
  });

  test('the matrix page counts partial claims and names their coverage; all partial is no green banner', () => {
    const page = matrixPage([partial()], ['demo'], '2026-01-01');
    expect(page).toContain('class="banner v-partial"');
    expect(page).toContain('1 partial (not every check the claim needs ran)');
    expect(page).toContain('<div class="muted coverage">ran 1 of 3 checks the claim needs</div>');
    const run = { ...partial(), run: { certification: false } };
    expect(claimPage(run)).toContain('(run without --certify; not every check ran)');
    // A complete run's JUnit says it ran all of them.
    expect(junitXml(results(every()))).toContain('<property name="claimChecks.needed" value="6"/>');
  });
});
