// Regression against an earlier run: per check (id, role, transport, lifecycle), what
// changed between a baseline results.json and this run. Only new failures fail a
// regression run; the rest is reported (`run`/`merge --baseline`, src/cli/acceptance.ts).
//
// Across a snapshot change (the baseline judged by draft@2b5da580, this run by
// draft@1d98c19) only checks that judge the same rule in both are compared: a check whose
// catalogue row names snapshots that leave out either side, and a check not applicable on
// either side, is `not-comparable`, never a regression or a fix.
import { CHECKS } from '../checks/catalogue.js';
import { ranToResult, type CheckResult, type ClaimResults } from './model.js';

/**
 * `not-run`: a check of the baseline this run needed but did not run to a result (a partial
 * run: --grep, stopped early, a shard missing; or `skipped`): it says nothing, so it is
 * neither fixed nor removed.
 */
export type Change =
  | 'new-failure'
  | 'fixed'
  | 'still-failing'
  | 'new-check'
  | 'removed-check'
  | 'unchanged'
  | 'not-comparable'
  | 'not-run';

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

/** The two snapshots when the runs were judged by different ones, else undefined. */
export function snapshotChange(
  baseline: ClaimResults,
  current: ClaimResults,
): { before: string; after: string } | undefined {
  const before = baseline.claim.snapshot.id;
  const after = current.claim.snapshot.id;
  return before === after ? undefined : { before, after };
}

/** The snapshots whose rule a check judges (its catalogue row's `snapshots`); undefined: every snapshot's. */
export type SnapshotsOf = (id: string) => readonly string[] | undefined;

const catalogueSnapshots: SnapshotsOf = (id) => CHECKS.find((c) => c.id === id)?.snapshots;

/** Every check of either run, with what happened to it; sorted by key. */
export function compareRuns(
  baseline: ClaimResults,
  current: ClaimResults,
  snapshotsOf: SnapshotsOf = catalogueSnapshots,
): CheckChange[] {
  const sameRule = (id: string, moved: { before: string; after: string }): boolean => {
    const only = snapshotsOf(id);
    return only === undefined || (only.includes(moved.before) && only.includes(moved.after));
  };
  const before = new Map(baseline.checks.map((c) => [checkKey(c), c]));
  const after = new Map(current.checks.map((c) => [checkKey(c), c]));
  // A partial run (its coverage, or for results that record none its --grep) did not run
  // every check it needs: a baseline check it lacks was not run, not removed.
  const partial = current.coverage
    ? current.coverage.ran < current.coverage.needed
    : current.run?.selection !== undefined;
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  const moved = snapshotChange(baseline, current);
  return keys.map((key) => {
    const b = before.get(key);
    const a = after.get(key);
    const id = (a ?? b)!.id;
    const incomparable =
      moved !== undefined && (!sameRule(id, moved) || b?.status === 'not-applicable' || a?.status === 'not-applicable');
    const change: Change = incomparable
      ? 'not-comparable'
      : b && ((!a && partial) || (a && !ranToResult(a)))
        ? 'not-run'
        : !b
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

/** The one line that says a baseline was judged by another snapshot, and what that leaves out. */
export function snapshotChangeLine(moved: { before: string; after: string }, notComparable: number): string {
  return (
    `baseline was judged by ${moved.before}, this run by ${moved.after}: only checks that judge the same rule in both are compared; ` +
    `${notComparable} check${notComparable === 1 ? '' : 's'} not comparable`
  );
}

/** A regression run fails only on new failures. */
export const hasNewFailures = (changes: readonly CheckChange[]): boolean =>
  changes.some((c) => c.change === 'new-failure');
