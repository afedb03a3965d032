// A run plan of the bundled reference backend claim, for unit tests of what a plan records.
import { join } from 'node:path';
import { loadClaim } from '../../src/claims/load.js';
import type { RunPlan } from '../../src/engine/plan.js';
import { ROOT } from './paths.js';

export function referenceBackendPlan(): RunPlan {
  const o = loadClaim(join(ROOT, 'claims', 'reference-backend.yaml'));
  if (o.kind !== 'ok') throw new Error('claims/reference-backend.yaml does not load');
  return {
    runnerVersion: '0',
    createdAt: '',
    reportsDir: '',
    workDir: '',
    containment: { kind: 'process-group' },
    claims: [{ claim: o.claim, reportDir: '' }],
  };
}
