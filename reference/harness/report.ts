// The adapter report (docs/harness-adapter.md section 5), written atomically before exit.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { HARNESS } from './events.js';

/** `delivered`: a content step's receiver got the effective value (contract version 2). */
export type StepOutcome =
  | 'executed'
  | 'delivered'
  | 'denied-by-backend'
  | 'denied-by-failure-policy'
  | 'denied-by-host'
  | 'not-run'
  | 'unsupported';

/** The contract version the report speaks: the config's (a v2 adapter answers a v1 config in v1). */
export type ContractVersion = 1 | 2;

export interface StepReport {
  readonly id: string;
  readonly outcome: StepOutcome;
  readonly reason?: string;
}

export type Report =
  | { adapterContract: ContractVersion; harness: typeof HARNESS; registration: 'accepted'; steps: StepReport[] }
  | { adapterContract: ContractVersion; harness: typeof HARNESS; registration: 'rejected'; rejectionReason: string };

export const acceptedReport = (steps: StepReport[], adapterContract: ContractVersion = 1): Report => ({
  adapterContract,
  harness: HARNESS,
  registration: 'accepted',
  steps,
});
export const rejectedReport = (rejectionReason: string, adapterContract: ContractVersion = 1): Report => ({
  adapterContract,
  harness: HARNESS,
  registration: 'rejected',
  rejectionReason,
});

export function writeReport(path: string, report: Report): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(report, null, 2) + '\n');
  renameSync(tmp, path);
}
