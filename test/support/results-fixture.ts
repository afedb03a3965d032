// Synthetic results for unit tests of the views over the results model: one backend/http
// target whose checks have the given statuses.
import { applicableChecks, type Lifecycle, type Role, type Transport } from '../../src/checks/catalogue.js';
import type { CheckStatus } from '../../src/results/model.js';
import { ANNOTATION, NOT_FINISHED } from '../../src/results/annotations.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { buildClaimResults, type CheckResult, type ClaimResults } from '../../src/results/model.js';
import { snapshotSummary } from '../../src/results/snapshot.js';
import type { RecordedPlan } from '../../src/results/run-record.js';
import type { TestCase } from '@playwright/test/reporter';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export function resultsWith(
  statuses: Record<string, CheckResult['status']>,
  implementation = 'acme',
  snapshot: SnapshotId = 'draft@2b5da580',
): ClaimResults {
  const checks: CheckResult[] = Object.entries(statuses).map(([id, status]) => ({
    id,
    status,
    title: id,
    level: 'MUST',
    profile: 'base',
    requirements: [],
    role: 'backend',
    transport: 'http',
    message: '',
    durationMs: 1,
  }));
  return buildClaimResults({
    runnerVersion: '0',
    generatedAt: '2026-01-01T00:00:00Z',
    claim: {
      file: 'c.yaml',
      implementation: { name: implementation, version: '1' },
      snapshot: snapshotSummary(snapshot, snapshot),
      role: 'backend',
      transports: ['http'],
      profiles: ['tool-interception'],
    },
    targets: [{ role: 'backend', transport: 'http' }],
    checks,
  });
}

/**
 * A backend stdio/persistent claim of tool-interception as a run records it: every planned
 * check passed, except those left out or listed as failed; `run` and `claim` add to it.
 */
export function stdioClaimResults(
  o: {
    name?: string;
    file?: string;
    leaveOut?: (id: string) => boolean;
    failed?: string[];
    digest?: string;
    run?: ClaimResults['run'];
    /** The snapshot the claim pinned, and what it said (default: pinned draft@2b5da580). */
    snapshot?: SnapshotId;
    requested?: string;
  } = {},
): ClaimResults {
  const name = o.name ?? 'acme';
  const checks: CheckResult[] = applicableChecks('backend', 'stdio', 'persistent', ['tool-interception'])
    .filter((c) => !o.leaveOut?.(c.id))
    .map((c) => ({
      id: c.id,
      title: c.title,
      level: c.level,
      profile: c.profile,
      requirements: [...c.requirements],
      role: 'backend',
      transport: 'stdio',
      lifecycle: 'persistent',
      status: o.failed?.includes(c.id) ? 'failed' : 'passed',
      message: '',
      durationMs: 1,
    }));
  return buildClaimResults({
    runnerVersion: '0',
    generatedAt: '2026-01-01T00:00:00Z',
    claim: {
      file: o.file ?? `claims/${name}.yaml`,
      implementation: { name, version: '1' },
      snapshot: snapshotSummary(o.snapshot ?? 'draft@2b5da580', o.requested ?? o.snapshot ?? 'draft@2b5da580'),
      role: 'backend',
      transports: ['stdio'],
      profiles: ['tool-interception'],
      ...(o.digest ? { digest: o.digest } : {}),
    },
    targets: [{ role: 'backend', transport: 'stdio', lifecycle: 'persistent' }],
    checks,
    ...(o.run ? { run: o.run } : {}),
  });
}

/** One check's result on a target, with a message only where its status has one. */
export function checkResult(
  id: string,
  role: Role,
  transport: Transport,
  lifecycle: Lifecycle | undefined,
  status: CheckStatus,
  level: 'MUST' | 'SHOULD' = 'MUST',
): CheckResult {
  return {
    id,
    title: id,
    level,
    profile: 'base',
    requirements: ['AHP-RPC-001'],
    role,
    transport,
    ...(lifecycle ? { lifecycle } : {}),
    status,
    message: status === 'failed' ? 'it did not hold' : status === 'not-run' ? NOT_FINISHED : '',
    durationMs: 1,
  };
}

/** The plan a reporter unit test records: one claim, one backend/http target. */
export function reporterPlan(extra: Partial<RecordedPlan> = {}): RecordedPlan {
  return {
    runnerVersion: '0',
    digest: 'd',
    claims: [
      {
        claim: {
          file: 'c.yaml',
          implementation: { name: 'acme', version: '1' },
          snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
          role: 'backend',
          transports: ['http'],
          profiles: [],
        },
        targets: [{ role: 'backend', transport: 'http' }],
        digest: 'c'.repeat(64),
      },
    ],
    ...extra,
  };
}

/**
 * A test's place as the reporter reads it (src/results/test-target.ts): its project, of one
 * claim's role and its targets' shapes, and the annotation of the shape it was registered under.
 */
export function reporterPlace(
  shape: string,
  role: Role = 'backend',
): {
  annotation: { type: string; description: string };
  parent: { project: () => { name: string; metadata: object } };
} {
  return {
    annotation: { type: ANNOTATION.target, description: shape },
    parent: {
      project: () => ({ name: `acme:${role}`, metadata: { claimIndex: 0, role, targets: [{ shape, checks: [] }] } }),
    },
  };
}

const HTTP = reporterPlace('http');

/** A test of that plan's target, as the reporter sees it. */
export const reporterTestCase = {
  id: 't1',
  annotations: [HTTP.annotation],
  parent: HTTP.parent,
} as unknown as TestCase;

/** schemas/results.schema.json, compiled. */
export const validResults = new Ajv2020({ strict: false, logger: false }).compile(
  JSON.parse(readFileSync(join(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object,
);
