// The results model: what one claim's certification found. results.json, JUnit and (later)
// the HTML conformance report are views of this one model.
import type { Level, Lifecycle, Role, Transport } from '../checks/catalogue.js';

export const RESULTS_SCHEMA_VERSION = 1;

export type CheckStatus = 'passed' | 'failed' | 'warning' | 'skipped' | 'not-applicable';
export type Verdict = 'conformant' | 'nonconformant' | 'incomplete';

export interface Evidence {
  sent?: unknown;
  received?: unknown;
  expected?: string;
}

export interface TranscriptLine {
  t: number;
  at: string;
  dir: string;
  channel: string;
  text: string;
  base64?: string;
  http?: unknown;
  note?: string;
}

export interface CheckResult {
  id: string;
  title: string;
  level: Level;
  profile: string;
  requirements: string[];
  role: Role;
  transport: Transport;
  lifecycle?: Lifecycle;
  status: CheckStatus;
  message: string;
  durationMs: number;
  evidence?: Evidence;
  /** The raw wire transcript, kept for failed and warning checks. */
  transcript?: TranscriptLine[];
}

export interface ClaimSummary {
  file: string;
  implementation: { name: string; version: string };
  snapshot: string;
  role: string;
  transports: string[];
  lifecycles: string[];
  profiles: string[];
}

export interface ClaimResults {
  schemaVersion: number;
  runner: { name: 'ahp-conformance'; version: string };
  generatedAt: string;
  claim: ClaimSummary;
  verdict: Verdict;
  reason?: string;
  counts: Record<CheckStatus, number>;
  checks: CheckResult[];
}

export function countStatuses(checks: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { passed: 0, failed: 0, warning: 0, skipped: 0, 'not-applicable': 0 };
  for (const c of checks) counts[c.status]++;
  return counts;
}

/**
 * Conformant when every applicable MUST check passed. A failed SHOULD check is reported
 * as a warning and does not make the verdict nonconformant.
 */
export function verdictOf(checks: readonly CheckResult[]): Verdict {
  return checks.some((c) => c.status === 'failed' && c.level === 'MUST') ? 'nonconformant' : 'conformant';
}

/** Checks in a stable order (id, then role, transport, lifecycle), so two runs diff cleanly. */
export function sortChecks(checks: CheckResult[]): CheckResult[] {
  const key = (c: CheckResult): string => [c.id, c.role, c.transport, c.lifecycle ?? ''].join('\u0000');
  return [...checks].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** JSON with object keys in a fixed (sorted) order at every level. */
export function stableJson(value: unknown): string {
  const order = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(order);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, order((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return `${JSON.stringify(order(value), null, 2)}\n`;
}
