// Regression against an earlier run: per check (id, role, transport, lifecycle), what
// changed between a baseline results.json and this run. Only new failures fail a
// regression run; the rest is reported (`run`/`merge --baseline`, src/cli/acceptance.ts).
import type { CheckResult, ClaimResults } from './model.js';

export type Change = 'new-failure' | 'fixed' | 'still-failing' | 'new-check' | 'removed-check' | 'unchanged';

export interface CheckChange {
  key: string;
  id: string;
  change: Change;
  before?: CheckResult['status'];
  after?: CheckResult['status'];
}

export const checkKey = (c: Pick<CheckResult, 'id' | 'role' | 'transport' | 'lifecycle'>): string =>
  [c.id, c.role, c.transport, c.lifecycle ?? ''].join(' ');

const failing = (c: CheckResult | undefined): boolean => c?.status === 'failed';

/** Every check of either run, with what happened to it; sorted by key. */
export function compareRuns(baseline: ClaimResults, current: ClaimResults): CheckChange[] {
  const before = new Map(baseline.checks.map((c) => [checkKey(c), c]));
  const after = new Map(current.checks.map((c) => [checkKey(c), c]));
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  return keys.map((key) => {
    const b = before.get(key);
    const a = after.get(key);
    const id = (a ?? b)!.id;
    const change: Change = !b
      ? failing(a)
        ? 'new-failure'
        : 'new-check'
      : !a
        ? 'removed-check'
        : failing(a) && !failing(b)
          ? 'new-failure'
          : failing(a)
            ? 'still-failing'
            : failing(b)
              ? 'fixed'
              : 'unchanged';
    return { key, id, change, ...(b ? { before: b.status } : {}), ...(a ? { after: a.status } : {}) };
  });
}

/** A regression run fails only on new failures. */
export const hasNewFailures = (changes: readonly CheckChange[]): boolean =>
  changes.some((c) => c.change === 'new-failure');
