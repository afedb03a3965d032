// The adapter report (docs/harness-adapter.md section 5), written atomically before exit.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { HARNESS } from './events.js';

export type StepOutcome =
  'executed' | 'denied-by-backend' | 'denied-by-failure-policy' | 'denied-by-host' | 'not-run' | 'unsupported';

export interface StepReport {
  readonly id: string;
  readonly outcome: StepOutcome;
  readonly reason?: string;
}

export type Report =
  | { adapterContract: 1; harness: typeof HARNESS; registration: 'accepted'; steps: StepReport[] }
  | { adapterContract: 1; harness: typeof HARNESS; registration: 'rejected'; rejectionReason: string };

export const acceptedReport = (steps: StepReport[]): Report => ({
  adapterContract: 1,
  harness: HARNESS,
  registration: 'accepted',
  steps,
});
export const rejectedReport = (rejectionReason: string): Report => ({
  adapterContract: 1,
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
