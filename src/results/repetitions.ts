// `run --repeat N`: Playwright runs every check N times (its repeatEach), each repetition a
// test result of its own. The results reporter folds the N results of one (check, target)
// into one CheckResult here, with every repetition's status and duration, so that a verdict
// that differs between repetitions is seen, with its timings, instead of taken from one run.
import { ranToResult, targetKey, type CheckResult, type CheckStatus, type Repetition } from './model.js';

/**
 * Where a folded check takes its status from: the first of these that any repetition that
 * ran had. A check seen to pass counts as passed (or warned), as a pass on a retry does
 * with `--retries`; else a failure stands before a repetition that could not judge.
 */
export const FOLD_ORDER: readonly CheckStatus[] = [
  'warning',
  'passed',
  'failed',
  'incomplete',
  'not-applicable',
  'not-run',
];

/** One repetition's result as the reporter recorded it, with Playwright's repeatEachIndex. */
export interface RepetitionResult {
  index: number;
  entry: CheckResult;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * The N repetitions of one (check, target) as one CheckResult. The statuses of the
 * repetitions that ran to a result agree: that status, not flaky. They differ: `flaky`,
 * the status by {@link FOLD_ORDER}, and the message says each repetition's status. The
 * evidence and transcript are of one repetition: the first of them when they agree, else
 * the first that ran to another status than the check's (what the instability looked like).
 * `durationMs` is the longest repetition's.
 */
export function foldRepetitions(results: readonly RepetitionResult[]): CheckResult {
  const sorted = [...results].sort((a, b) => a.index - b.index);
  const entries = sorted.map((r) => r.entry);
  const ran = entries.filter(ranToResult);
  const statuses = new Set(ran.map((e) => e.status));
  const status = FOLD_ORDER.find((s) => entries.some((e) => e.status === s)) ?? entries[0]!.status;
  const differ = statuses.size > 1;
  const shown = entries.find((e) => (differ ? ranToResult(e) && e.status !== status : e.status === status))!;
  const own = entries.find((e) => e.status === status)!;
  const repetitions: Repetition[] = entries.map((e) => ({
    status: e.status,
    durationMs: e.durationMs,
    ...(e.message && e.message !== own.message ? { message: e.message } : {}),
    ...(e.attempts ? { attempts: e.attempts } : {}),
  }));
  const { evidence, transcript, attempts: _attempts, flaky: _flaky, ...base } = own;
  const message = differ
    ? [
        `flaky: ${entries.map((e, i) => `repetition ${i + 1} ${e.status} (${seconds(e.durationMs)})`).join(', ')}`,
        `evidence and transcript of repetition ${entries.indexOf(shown) + 1}: ${shown.message.split('\n')[0] ?? ''}`,
        own.message,
      ]
        .filter(Boolean)
        .join('; ')
    : own.message;
  return {
    ...base,
    status,
    message,
    durationMs: Math.max(...entries.map((e) => e.durationMs)),
    ...(shown.evidence ? { evidence: shown.evidence } : {}),
    ...(shown.transcript ? { transcript: shown.transcript } : {}),
    repetitions,
    // A repetition that passed only on a retry (--retries) is flaky too.
    ...(differ || entries.some((e) => e.flaky) ? { flaky: true } : {}),
  };
}

/** Each (claim's) check folded over its repetitions, in the order the checks first ended. */
export function foldChecks(entries: readonly CheckResult[], indexOf: (e: CheckResult) => number): CheckResult[] {
  const groups = new Map<string, RepetitionResult[]>();
  for (const entry of entries) {
    const key = `${targetKey(entry)}\u0000${entry.id}`;
    groups.set(key, [...(groups.get(key) ?? []), { index: indexOf(entry), entry }]);
  }
  return [...groups.values()].map(foldRepetitions);
}

/** The flaky checks of a repeated run, one terminal line each: `ti.deadline harness/http: passed 8.1 s, failed 12.0 s, ...`. */
export function flakyLines(checks: readonly CheckResult[], label: (c: CheckResult) => string, most = 10): string[] {
  const flaky = checks.filter((c) => c.flaky && c.repetitions);
  const lines = flaky
    .slice(0, most)
    .map(
      (c) =>
        `flaky: ${c.id} ${label(c)}: ${c.repetitions!.map((r) => `${r.status} ${seconds(r.durationMs)}`).join(', ')}`,
    );
  return flaky.length > most ? [...lines, `... and ${flaky.length - most} more flaky (results.json)`] : lines;
}
