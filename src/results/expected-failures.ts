// Expected failures: a vendor's list of known failing checks, each with a reason and an
// optional expiry date, so a nightly run stays green while they are burned down. The list
// must stay true: an entry that has expired, or whose check no longer fails, fails the run.
import { parseDocument } from 'yaml';
import { CHECKS } from '../checks/catalogue.js';
import { ranToResult, targetLabel, type CheckResult, type ClaimResults, type TargetKey } from './model.js';

export interface ExpectedFailure {
  check: string;
  reason: string;
  /** YYYY-MM-DD: from the day after, the entry fails the run. */
  expires?: string;
  /** Limit to one implementation (by name). */
  implementation?: string;
  /** Limit to one target, e.g. "harness/http" or "backend/stdio/persistent". */
  target?: string;
}

export class ExpectedFailuresError extends Error {}

/** Parse the file's text (YAML or JSON): `expected: [{check, reason, expires?, implementation?, target?}]`. */
export function parseExpectedFailures(text: string, file: string): ExpectedFailure[] {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length)
    throw new ExpectedFailuresError(`${file}: YAML error: ${doc.errors[0]!.message.split('\n')[0]}`);
  const raw = doc.toJS() as { expected?: unknown } | null;
  const list = raw?.expected;
  if (!Array.isArray(list)) throw new ExpectedFailuresError(`${file}: expected a top-level "expected:" list`);
  const known = new Set(CHECKS.map((c) => c.id));
  return list.map((e: unknown, i) => {
    const where = `${file}: expected[${i}]`;
    if (!e || typeof e !== 'object') throw new ExpectedFailuresError(`${where} is not a mapping`);
    const x = e as Record<string, unknown>;
    for (const k of Object.keys(x))
      if (!['check', 'reason', 'expires', 'implementation', 'target'].includes(k))
        throw new ExpectedFailuresError(
          `${where}.${k} is not a field (check, reason, expires, implementation, target)`,
        );
    if (typeof x.check !== 'string' || !known.has(x.check))
      throw new ExpectedFailuresError(`${where}.check: ${JSON.stringify(x.check)} is not a check id (see --checks)`);
    if (typeof x.reason !== 'string' || x.reason.trim() === '')
      throw new ExpectedFailuresError(`${where}.reason is missing: say why the failure is expected`);
    // YAML reads an unquoted date as a Date.
    const expires = x.expires instanceof Date ? x.expires.toISOString().slice(0, 10) : x.expires;
    if (expires !== undefined && (typeof expires !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(expires)))
      throw new ExpectedFailuresError(`${where}.expires must be a date YYYY-MM-DD`);
    for (const k of ['implementation', 'target'] as const)
      if (x[k] !== undefined && typeof x[k] !== 'string')
        throw new ExpectedFailuresError(`${where}.${k} must be a string`);
    return {
      check: x.check,
      reason: x.reason,
      ...(expires ? { expires: expires as string } : {}),
      ...(x.implementation ? { implementation: x.implementation as string } : {}),
      ...(x.target ? { target: x.target as string } : {}),
    };
  });
}

export interface ExpectedOutcome {
  /** Failed MUST checks no entry covers: these fail the run. */
  unexpected: CheckResult[];
  /** Failed checks an entry covers. */
  matched: { check: CheckResult; entry: ExpectedFailure }[];
  /** Entries past their expiry date. */
  expired: ExpectedFailure[];
  /** Entries (for this implementation) whose check did not fail: the list is out of date. */
  stale: ExpectedFailure[];
}

const applies = (e: ExpectedFailure, r: ClaimResults): boolean =>
  e.implementation === undefined || e.implementation === r.claim.implementation.name;
const covers = (e: ExpectedFailure, c: CheckResult): boolean =>
  e.check === c.id && (e.target === undefined || e.target === targetLabel(c));

/** `today` is YYYY-MM-DD. */
export function applyExpectedFailures(
  r: ClaimResults,
  entries: readonly ExpectedFailure[],
  today: string,
): ExpectedOutcome {
  const mine = entries.filter((e) => applies(e, r));
  const failed = r.checks.filter((c) => c.status === 'failed' && c.level === 'MUST');
  const matched: ExpectedOutcome['matched'] = [];
  const unexpected: CheckResult[] = [];
  for (const c of failed) {
    const entry = mine.find((e) => covers(e, c));
    if (entry) matched.push({ check: c, entry });
    else unexpected.push(c);
  }
  const expired = mine.filter((e) => e.expires !== undefined && e.expires < today);
  // Only checks that ran can be judged stale (a --grep run says nothing about the others,
  // nor a check the run stopped before it finished).
  const stale = mine.filter(
    (e) => !matched.some((m) => m.entry === e) && r.checks.some((c) => ranToResult(c) && covers(e, c)),
  );
  return { unexpected, matched, expired, stale };
}

/**
 * The checks of one target that unexpired entries cover, for Playwright (playwright.config.ts):
 * each is marked an expected failure there, so the worker that ran it goes on with the next
 * check instead of being replaced (Playwright restarts a worker after every unexpected
 * failure, about a second of CPU each). The verdicts never depend on it: the results reporter
 * records each check's own status, and the judgement above reads those.
 */
export function listedChecks(
  entries: readonly ExpectedFailure[],
  implementation: string,
  target: TargetKey,
  today: string,
): string[] {
  const label = targetLabel(target);
  return [
    ...new Set(
      entries
        .filter((e) => e.implementation === undefined || e.implementation === implementation)
        .filter((e) => e.target === undefined || e.target === label)
        .filter((e) => e.expires === undefined || e.expires >= today)
        .map((e) => e.check),
    ),
  ];
}

/**
 * Whether a run's list may mark its checks for Playwright (listedChecks), from the arguments
 * the run gives Playwright: not with retries, as Playwright does not retry an expected failure,
 * nor with a maximum of failures, as it does not count one towards it.
 */
export const markedForPlaywright = (playwrightArgs: readonly string[]): boolean =>
  !playwrightArgs.includes('--retries') && !playwrightArgs.includes('--max-failures');

export const expectedFailuresFail = (o: ExpectedOutcome): boolean =>
  o.unexpected.length > 0 || o.expired.length > 0 || o.stale.length > 0;
