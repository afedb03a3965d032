// Honest partial runs (issue 23, item 5): a run that left out checks the claim needs
// (--grep, -x / --max-failures stopping early, a shard missing from a merge) records how
// many ran of how many, and is `partial` (never a bare `conformant`) unless a failure makes
// it nonconformant; a certification is never partial. The verdict logic, the closing
// line, the reporter's view of a run stopped early, acceptance (certification, baseline,
// expected failures) and every view of the results.
import { test, expect } from '@playwright/test';
import type { FullConfig, TestCase, TestResult } from '@playwright/test/reporter';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { certifiedVerdict, conclude, summaryLine } from '../../src/cli/acceptance.js';
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
import { ANNOTATION } from '../../src/results/annotations.js';
import { runMetadata, type RecordedPlan, type RunOutcome } from '../../src/results/run-record.js';
import { snapshotSummary } from '../../src/results/snapshot.js';
import { verifyClaimFolder } from '../../src/results/verify.js';
import { ROOT } from '../support/paths.js';
import { tempFolders } from '../support/temp.js';
import { checkResult } from '../support/results-fixture.js';

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

  test('a check cut short (skipped) did not run: it counts toward needed, not ran, and is no failure', () => {
    const checks = every().map((c, i) => (i === 5 ? { ...c, status: 'skipped' as const } : c));
    const r = results(checks, ['the run was interrupted']);
    expect(r.verdict).toBe('partial');
    expect(r.coverage).toEqual({ ran: 5, needed: 6, why: ['the run was interrupted'] });
  });

  test('nothing ran to a result: incomplete, as before', () => {
    expect(results([check('ti.deny-samples', STDIO, 'skipped')], ['the run was interrupted']).verdict).toBe(
      'incomplete',
    );
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
      [check('ti.deny-samples', STDIO, 'failed'), check('base.jsonrpc-utf8', STDIO, 'skipped')],
      ['the run stopped early at --max-failures 1'],
      [STDIO],
    );
    expect(summaryLine(r, 'r')).toContain(
      'demo 1.0.0: nonconformant (0 passed, 1 failed, 1 skipped; ran 1 of 3 checks the claim needs: the run stopped early at --max-failures 1), judged by',
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
  const testCase = (id: string): TestCase =>
    ({
      id,
      annotations: [],
      timeout: 1000,
      parent: {
        project: () => ({
          metadata: { target: { claimIndex: 0, role: 'backend', transport: 'stdio', lifecycle: 'persistent' } },
        }),
      },
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

  function record(
    ends: [string, TestResult['status']][],
    runStatus: 'passed' | 'failed' | 'interrupted',
    maxFailures = 0,
    mode: 'run' | 'merge' = 'run',
    metadata: Record<string, unknown> = runMetadata(plan),
  ): RunOutcome {
    const file = join(workspace(), 'outcome.json');
    const reporter = new ResultsReporter({ outcomeFile: file, mode });
    reporter.onBegin({ metadata, maxFailures } as unknown as FullConfig);
    for (const [id, status] of ends) reporter.onTestEnd(testCase(id), result(id, status));
    reporter.onEnd({ status: runStatus, startTime: new Date(), duration: 1 } as never);
    return JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
  }

  test('-x: the failure stands, the check it interrupted is skipped (not failed), the rest did not run', () => {
    const out = record(
      [
        ['ti.deny-samples', 'failed'],
        ['base.jsonrpc-utf8', 'interrupted'],
      ],
      'failed',
      1,
    );
    const r = out.claims[0]!;
    expect(r.checks.map((c) => [c.id, c.status])).toEqual([
      ['base.jsonrpc-utf8', 'skipped'],
      ['ti.deny-samples', 'failed'],
    ]);
    expect(r.checks[0]!.message).toBe('not judged: the run stopped before this check finished');
    expect(r.verdict).toBe('nonconformant');
    expect(r.coverage).toEqual({ ran: 1, needed: 3, why: ['the run stopped early at --max-failures 1'] });
  });

  test('a run interrupted (a signal) with only passes so far is partial, not conformant and not failed', () => {
    const out = record(
      [
        ['ti.deny-samples', 'passed'],
        ['ti.modify-samples', 'interrupted'],
      ],
      'interrupted',
    );
    expect(out.claims[0]!.verdict).toBe('partial');
    expect(out.claims[0]!.counts.failed).toBe(0);
    expect(out.claims[0]!.coverage).toEqual({ ran: 1, needed: 3, why: ['the run was interrupted'] });
  });

  test('a merge missing a shard: partial with the missing shard named, not a blanket incomplete', () => {
    const metadata = runMetadata(plan, { current: 1, total: 2 });
    const out = record([['ti.deny-samples', 'passed']], 'passed', 0, 'merge', metadata);
    expect(out.shards).toEqual({ total: 2, present: [1], missing: [2] });
    expect(out.claims[0]!.verdict).toBe('partial');
    expect(out.claims[0]!.coverage?.why).toEqual(['shard 2/2 missing from the merge (merged: 1/2)']);
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
      [check('ti.deny-samples', STDIO, 'passed'), check('ti.modify-samples', STDIO, 'skipped')],
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

  test('an expected failure whose check was cut short is not "no longer failing"', () => {
    const now = results(
      [check('ti.deny-samples', STDIO, 'passed'), check('ti.modify-samples', STDIO, 'skipped')],
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
