// The per-target breakdown of results.json: each (role, transport, lifecycle) gets the
// verdict of its own checks, the claim's verdict follows from them, and what
// buildClaimResults makes is valid against schemas/results.schema.json.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { summaryLine } from '../../src/cli/run-command.js';
import { junitXml } from '../../src/results/junit.js';
import {
  buildClaimResults,
  claimVerdict,
  stableJson,
  targetKey,
  targetResults,
  type CheckResult,
  type CheckStatus,
  type ClaimResults,
  type LaunchRecord,
  type TargetKey,
} from '../../src/results/model.js';
import { ROOT } from '../support/paths.js';
import { checkResult } from '../support/results-fixture.js';
import { snapshotSummary } from '../../src/results/snapshot.js';

const schema = JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object;
const validateResults = new Ajv2020({ strict: false, logger: false }).compile(schema);

const check = checkResult;

const BS: TargetKey = { role: 'backend', transport: 'stdio', lifecycle: 'persistent' };
const BH: TargetKey = { role: 'backend', transport: 'http' };
const HS: TargetKey = { role: 'harness', transport: 'stdio', lifecycle: 'per_event' };
const HH: TargetKey = { role: 'harness', transport: 'http' };

function results(targets: TargetKey[], checks: CheckResult[], launches?: Map<string, LaunchRecord>): ClaimResults {
  return buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00.000Z',
    claim: {
      file: '/claims/demo.yaml',
      implementation: { name: 'demo', version: '1.0.0' },
      snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
      role: 'both',
      transports: ['stdio', 'http'],
      profiles: ['tool-interception'],
    },
    targets,
    checks,
    ...(launches ? { launches } : {}),
  });
}

function expectValid(r: ClaimResults): void {
  const written = JSON.parse(stableJson(r)) as unknown;
  expect(validateResults(written), JSON.stringify(validateResults.errors)).toBe(true);
}

const verdicts = (r: ClaimResults): string[] =>
  r.targets.map((t) => `${[t.role, t.transport, t.lifecycle].filter(Boolean).join('/')} ${t.verdict}`);

test('each target gets the verdict of its own checks, sorted by role, transport and lifecycle', () => {
  const r = results(
    [BS, BH, HS, HH],
    [
      check('base.a', 'harness', 'http', undefined, 'failed'),
      check('base.a', 'harness', 'stdio', 'per_event', 'passed'),
      check('base.b', 'harness', 'stdio', 'per_event', 'failed', 'SHOULD'),
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.a', 'backend', 'http', undefined, 'warning'),
      check('base.b', 'backend', 'http', undefined, 'not-applicable'),
    ],
  );
  expect(verdicts(r)).toEqual([
    'backend/http conformant',
    'backend/stdio/persistent conformant',
    'harness/http nonconformant',
    'harness/stdio/per_event conformant',
  ]);
  expect(r.targets.find((t) => t.role === 'backend' && t.transport === 'http')?.counts).toEqual({
    passed: 0,
    failed: 0,
    warning: 1,
    'not-run': 0,
    'not-applicable': 1,
    incomplete: 0,
  });
  expect(r.targets.find((t) => t.role === 'harness' && t.transport === 'stdio')?.counts).toEqual({
    passed: 1,
    failed: 1,
    warning: 0,
    'not-run': 0,
    'not-applicable': 0,
    incomplete: 0,
  });
  expect(r.verdict).toBe('nonconformant');
  expect(r.reason).toBeUndefined();
  expect(r.counts).toEqual({ passed: 2, failed: 2, warning: 1, 'not-run': 0, 'not-applicable': 1, incomplete: 0 });
  expect(r.claim.lifecycles).toEqual(['persistent', 'per_event']);
  expect(r.checks.map((c) => `${c.id} ${c.role} ${c.transport}`)).toEqual([
    'base.a backend http',
    'base.a backend stdio',
    'base.a harness http',
    'base.a harness stdio',
    'base.b backend http',
    'base.b harness stdio',
  ]);
  expectValid(r);
});

test('every target passing its MUST checks makes the claim conformant', () => {
  const r = results(
    [BS, HH],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.a', 'harness', 'http', undefined, 'failed', 'SHOULD'),
    ],
  );
  expect(verdicts(r)).toEqual(['backend/stdio/persistent conformant', 'harness/http conformant']);
  expect(r.verdict).toBe('conformant');
  expectValid(r);
});

test('a target whose implementation never started is incomplete, and so is the claim', () => {
  const launches = new Map<string, LaunchRecord>([
    [targetKey(BS), { started: true }],
    [targetKey(HH), { failure: 'adapter: spawn ENOENT', started: false }],
  ]);
  const r = results(
    [BS, HH],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'failed'),
      check('base.a', 'harness', 'http', undefined, 'failed'),
      check('base.b', 'harness', 'http', undefined, 'not-applicable'),
    ],
    launches,
  );
  expect(verdicts(r)).toEqual(['backend/stdio/persistent nonconformant', 'harness/http incomplete']);
  expect(r.targets[1]?.reason).toBe('could not start the implementation: adapter: spawn ENOENT');
  expect(r.verdict).toBe('incomplete');
  expect(r.reason).toBe('harness/http: could not start the implementation: adapter: spawn ENOENT');
  expectValid(r);
});

test('a launch failure in a target where other checks started is a failed check, not an incomplete target', () => {
  const launches = new Map<string, LaunchRecord>([[targetKey(BH), { failure: 'connection refused', started: true }]]);
  const r = results(
    [BH],
    [check('base.a', 'backend', 'http', undefined, 'failed'), check('base.b', 'backend', 'http', undefined, 'passed')],
    launches,
  );
  expect(verdicts(r)).toEqual(['backend/http nonconformant']);
  expect(r.verdict).toBe('nonconformant');
});

test('with one target, the claim reason is the target reason as it is', () => {
  const launches = new Map<string, LaunchRecord>([
    [targetKey(BH), { failure: 'connect ECONNREFUSED 127.0.0.1:9', started: false }],
  ]);
  const r = results([BH], [check('base.a', 'backend', 'http', undefined, 'failed')], launches);
  expect(r.verdict).toBe('incomplete');
  expect(r.reason).toBe('could not start the implementation: connect ECONNREFUSED 127.0.0.1:9');
  expect(r.claim.lifecycles).toEqual([]);
  expectValid(r);
});

test('a planned target where no check ran is incomplete; a claim where nothing ran is incomplete', () => {
  const partial = results([BS, HS], [check('base.a', 'backend', 'stdio', 'persistent', 'passed')]);
  expect(verdicts(partial)).toEqual(['backend/stdio/persistent conformant', 'harness/stdio/per_event incomplete']);
  expect(partial.targets[1]?.counts).toEqual({
    passed: 0,
    failed: 0,
    warning: 0,
    'not-run': 0,
    'not-applicable': 0,
    incomplete: 0,
  });
  expect(partial.verdict).toBe('incomplete');
  expect(partial.reason).toMatch(/^harness\/stdio\/per_event: no check ran/);
  expectValid(partial);

  const none = results([BS, HS], []);
  expect(none.verdict).toBe('incomplete');
  expect(none.reason).toMatch(/^no check ran/);
  expectValid(none);
});

test('targets named only by checks are reported too, and claimVerdict agrees with buildClaimResults', () => {
  const checks = [check('base.a', 'harness', 'http', undefined, 'passed')];
  const targets = targetResults([], checks);
  expect(targets).toEqual([
    {
      role: 'harness',
      transport: 'http',
      verdict: 'conformant',
      counts: { passed: 1, failed: 0, warning: 0, 'not-run': 0, 'not-applicable': 0, incomplete: 0 },
    },
  ]);
  expect(claimVerdict(targets, checks)).toEqual({ verdict: 'conformant' });
});

test('results without targets (an incomplete claim) are still valid; targets is required', () => {
  const r = results([], []);
  expect(r.targets).toEqual([]);
  expectValid(r);
  const { targets: _omitted, ...withoutTargets } = r;
  expect(validateResults(JSON.parse(stableJson(withoutTargets)))).toBe(false);
});

test('JUnit: one testsuite per target with its verdict; harness checks appear with their role', () => {
  const r = results(
    [BS, HH],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.a', 'harness', 'http', undefined, 'failed'),
    ],
  );
  const xml = junitXml(r);
  const suites = [...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)"/g)].map(
    (m) => `${m[1]} ${m[2]}/${m[3]}`,
  );
  expect(suites).toEqual(['demo 1.0.0 backend/stdio/persistent 1/0', 'demo 1.0.0 harness/http 1/1']);
  expect(xml).toContain('<property name="verdict" value="nonconformant"/>');
  expect(xml).toContain('<property name="role" value="harness"/>');
  expect(xml).toContain('classname="base.harness.http"');
  expect(xml).toMatch(/<testsuites name="ahp-conformance: demo 1.0.0" tests="2" failures="1"/);
});

test("the summary line: the snapshot by commit, and each target's verdict when there are several", () => {
  const one = results(
    [BS],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.b', 'backend', 'stdio', 'persistent', 'failed'),
    ],
  );
  expect(summaryLine(one, 'reports/demo')).toBe(
    'demo 1.0.0: nonconformant (1 passed, 1 failed), judged by draft@2b5da580 -> reports/demo',
  );
  const several = results(
    [BS, HH],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.a', 'harness', 'http', undefined, 'failed'),
    ],
  );
  expect(summaryLine(several, 'reports/demo')).toBe(
    'demo 1.0.0: nonconformant (1 passed, 1 failed; backend/stdio/persistent conformant, harness/http nonconformant), judged by draft@2b5da580 -> reports/demo',
  );
  const launches = new Map<string, LaunchRecord>([[targetKey(HH), { failure: 'spawn ENOENT', started: false }]]);
  const incomplete = results(
    [BS, HH],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.a', 'harness', 'http', undefined, 'failed'),
    ],
    launches,
  );
  expect(summaryLine(incomplete, 'reports/demo')).toBe(
    'demo 1.0.0: incomplete: harness/http: could not start the implementation: spawn ENOENT (backend/stdio/persistent conformant, harness/http incomplete), judged by draft@2b5da580 -> reports/demo',
  );
});

test('a MUST check that could not judge leaves its target and the claim incomplete, never conformant; a failure still wins', () => {
  const open = results(
    [BS],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'passed'),
      check('base.b', 'backend', 'stdio', 'persistent', 'incomplete'),
    ],
  );
  expect(verdicts(open)).toEqual(['backend/stdio/persistent incomplete']);
  expect(open.verdict).toBe('incomplete');
  expect(open.reason).toMatch(/^base\.b could not judge/);
  expect(open.counts.incomplete).toBe(1);
  expectValid(open);
  const failed = results(
    [BS],
    [
      check('base.a', 'backend', 'stdio', 'persistent', 'failed'),
      check('base.b', 'backend', 'stdio', 'persistent', 'incomplete'),
    ],
  );
  expect(failed.verdict).toBe('nonconformant');
  expect(junitXml(open)).toContain('<error message="incomplete: ');
});
