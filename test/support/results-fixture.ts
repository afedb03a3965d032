// Synthetic results for unit tests of the views over the results model: one backend/http
// target whose checks have the given statuses.
import { buildClaimResults, type CheckResult, type ClaimResults } from '../../src/results/model.js';

export function resultsWith(statuses: Record<string, CheckResult['status']>, implementation = 'acme'): ClaimResults {
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
      snapshot: 'draft',
      role: 'backend',
      transports: ['http'],
      profiles: ['tool-interception'],
    },
    targets: [{ role: 'backend', transport: 'http' }],
    checks,
  });
}
