// Acceptance: what `run` and `merge` do with the results a Playwright run recorded. The
// verdict is the checks' (the judge fixture's); acceptance weighs it against what the user
// passed (expected failures, a baseline), writes every view once, prints the summary lines
// and decides the exit code. Shared, so a merged run of shards is accepted exactly like one
// run on one machine.
import type { KeyObject } from 'node:crypto';
import { statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  coverageText,
  readRecordedResults,
  reasonIsCoverage,
  targetLabel,
  type ClaimResults,
  type Coverage,
  type JudgedEntry,
  type Judgement,
} from '../results/model.js';
import { snapshotName } from '../results/snapshot.js';
import type { Acceptance, ReportContext } from '../results/html/claim-page.js';
import { MAX_RESULTS_BYTES, writeClaimResults } from '../results/write.js';
import { judgedRequirements, keyId, loadSigningKey } from '../results/attestation.js';
import { checkKey, compareRuns, snapshotChange, snapshotChangeLine, type CheckChange } from '../results/baseline.js';
import {
  applyExpectedFailures,
  ExpectedFailuresError,
  expectedFailuresFail,
  parseExpectedFailures,
  type ExpectedFailure,
  type ExpectedOutcome,
} from '../results/expected-failures.js';
import { recordedClaimPath } from '../results/run-record.js';
import { findingsLine } from '../results/over-claim.js';
import { flakyLines } from '../results/repetitions.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { terminalLine } from '../terminal.js';
import { readRegularFile } from '../safe-fs.js';

/**
 * `name version: verdict (counts) -> dir`, or `: reason` for an incomplete claim; with
 * more than one target, each target's verdict follows (`; backend/http conformant, ...`).
 * A run that left out checks the claim needs says how many ran of how many: `partial: ran
 * 1 of 120 checks the claim needs (1 passed, ...; left out by --grep "...")`, the same after
 * `incomplete` when the run stopped (`..., 2 not run; the run was interrupted`), or beside
 * the counts of a nonconformant one. One terminal line whatever results.json holds (a merged
 * one comes from blob reports).
 */
export function summaryLine(r: ClaimResults, dir: string, digest?: string): string {
  const c = r.counts;
  const parts = [
    `${c.passed} passed`,
    `${c.failed} failed`,
    c.warning ? `${c.warning} warning${c.warning > 1 ? 's' : ''}` : '',
    c.incomplete ? `${c.incomplete} incomplete` : '',
    c['not-applicable'] ? `${c['not-applicable']} not applicable` : '',
    c['not-run'] ? `${c['not-run']} not run` : '',
    // --repeat: how many checks' repetitions differ, said even when none do.
    r.run?.repeat ? `${r.checks.filter((x) => x.flaky).length} flaky across ${r.run.repeat} repetitions` : '',
  ].filter(Boolean);
  const targets = (r.targets ?? []).length > 1 ? r.targets.map((t) => `${targetLabel(t)} ${t.verdict}`).join(', ') : '';
  const cov = r.coverage && r.coverage.ran < r.coverage.needed ? r.coverage : undefined;
  const ran = cov ? coverageText({ ran: cov.ran, needed: cov.needed }, ' the claim needs') : '';
  const why = cov?.why?.join('; ') ?? '';
  const reason =
    reasonIsCoverage(r) && cov
      ? `: ${ran} (${[parts.join(', '), why, targets].filter(Boolean).join('; ')})`
      : r.reason
        ? `: ${r.reason}${targets ? ` (${targets})` : ''}`
        : ` (${[parts.join(', '), cov ? `${ran}${why ? `: ${why}` : ''}` : '', targets].filter(Boolean).join('; ')})`;
  const contained =
    r.containment && r.containment.kind !== 'sandbox'
      ? ` [containment: ${r.containment.kind}${r.containment.reason ? `, ${r.containment.reason}` : ''}]`
      : '';
  // The snapshot by commit: two "draft" verdicts may be of different rules.
  const judgedBy = `, judged by ${snapshotName(r.claim.snapshot)}`;
  return terminalLine(
    `${r.claim.implementation.name} ${r.claim.implementation.version}: ${r.verdict}${reason}${judgedBy}${contained} -> ${dir}${digest ? ` (results.json sha256 ${digest})` : ''}`,
  );
}

/** An expected-failures list: a few hundred entries at most. */
const MAX_EXPECTED_BYTES = 4 * 1024 * 1024;

/**
 * A certification covers every check the claim needs: one that left some out (a run
 * stopped early, a merge missing shards) is incomplete, never partial, and never
 * conformant. A failure found before it stopped stays nonconformant.
 */
export function certifiedVerdict(r: ClaimResults): ClaimResults {
  const asCertified = (verdict: ClaimResults['verdict'], coverage?: Coverage, reason?: string) =>
    verdict === 'partial'
      ? {
          verdict: 'incomplete' as const,
          reason: `a certification needs every check the claim needs: ${coverage ? coverageText(coverage) : (reason ?? 'some did not run')}`,
        }
      : undefined;
  const claim = asCertified(r.verdict, r.coverage, r.reason);
  return {
    ...r,
    ...claim,
    targets: r.targets.map((t) => ({ ...t, ...asCertified(t.verdict, t.coverage, t.reason) })),
  };
}

/** Baseline results by implementation name: a results.json file, or an earlier reports folder. */
function loadBaselines(path: string): (implementation: string) => ClaimResults | undefined {
  const read = (file: string, given: boolean): ClaimResults | undefined => {
    // A regular file, bounded: /dev/zero, a FIFO or a link given here is one line, not a hang.
    const bytes = readRegularFile(file, { maxBytes: MAX_RESULTS_BYTES });
    if (bytes.kind === 'missing' && !given) return undefined;
    if (bytes.kind !== 'ok')
      throw new UsageError(`--baseline: ${file}: ${bytes.kind === 'missing' ? 'no such file' : bytes.why}`);
    try {
      // Results of an earlier version are read in today's shape (results.json version 1 named no commit).
      const r = readRecordedResults(JSON.parse(bytes.bytes.toString('utf8')));
      if (!r) throw new Error('not a results.json');
      return r;
    } catch {
      throw new UsageError(`--baseline: ${file} is not a results.json written by ahp-conformance`);
    }
  };
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`--baseline: ${path} does not exist`);
  }
  if (isDir) {
    const cache = new Map<string, ClaimResults | undefined>();
    const all = (name: string): ClaimResults | undefined => {
      if (!cache.has(name)) cache.set(name, read(join(path, name, 'results.json'), false));
      return cache.get(name);
    };
    return all;
  }
  const one = read(path, true);
  return (name) => (one?.claim.implementation.name === name ? one : undefined);
}

const entryOf = (e: ExpectedFailure): JudgedEntry => ({ ...e });

function loadExpectedFailures(path: string): ExpectedFailure[] {
  const read = readRegularFile(path, { maxBytes: MAX_EXPECTED_BYTES });
  if (read.kind !== 'ok')
    throw new UsageError(
      `--expected-failures: cannot read ${path}: ${read.kind === 'missing' ? 'no such file' : read.why}`,
    );
  const text = read.bytes.toString('utf8');
  try {
    return parseExpectedFailures(text, path);
  } catch (e) {
    if (e instanceof ExpectedFailuresError) throw new UsageError(e.message);
    throw e;
  }
}

/** One line; an expired entry that still matched a failure counts once, as expired. */
function expectedLine(o: ExpectedOutcome): string {
  const ids = (list: { check: string }[]): string => (list.length ? ` (${list.map((e) => e.check).join(', ')})` : '');
  return (
    `${o.matched.filter((m) => !o.expired.includes(m.entry)).length} matched, ${o.unexpected.length} unexpected${ids(o.unexpected.map((c) => ({ check: c.id })))}, ` +
    `${o.expired.length} expired${ids(o.expired)}, ${o.stale.length} no longer failing${ids(o.stale)}`
  );
}

function regressionLine(changes: readonly CheckChange[], excused: ReadonlySet<string>): string {
  const of = (kind: CheckChange['change']): CheckChange[] => changes.filter((c) => c.change === kind);
  const fresh = of('new-failure');
  const listed = fresh.filter((c) => excused.has(c.key)).length;
  // Expected failures come first: a new failure on the list does not fail the run, and the line says so.
  const onList = listed
    ? `; ${listed === fresh.length ? (listed === 1 ? 'it is' : 'all are') : `${listed} are`} on the expected-failures list, so not counted`
    : '';
  return [
    `${fresh.length} new failure${fresh.length === 1 ? '' : 's'}${fresh.length ? ` (${fresh.map((c) => c.key.trim()).join(', ')}${onList})` : ''}`,
    `${of('fixed').length} fixed`,
    `${of('still-failing').length} still failing`,
    `${of('new-check').length} new checks`,
    `${of('removed-check').length} removed`,
    // A partial run compares only what it ran.
    ...(of('not-run').length ? [`${of('not-run').length} not run in this run`] : []),
  ].join(', ');
}

/** A path as the user would type it: relative to the working directory when inside it. */
export function show(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

export interface AcceptanceCriteria {
  /** --certify: recorded in results.json and the report. */
  certification: boolean;
  /** --allow-weak-containment: a certification may run without the sandbox (the results say how it ran). */
  allowWeakContainment?: boolean;
  /** --grep / --grep-invert: a partial run. */
  selection?: { grep?: string; grepInvert?: string };
  expectedPath?: string;
  baselinePath?: string;
  baselines?: (implementation: string) => ClaimResults | undefined;
  expected?: ExpectedFailure[];
  /** --sign-key: the ed25519 key that signs each claim's attestation (unsigned without it). */
  signKey?: KeyObject;
}

/**
 * Read --baseline and --expected-failures (before anything runs: the baseline may be the
 * very reports folder the run overwrites), and refuse with --certify whatever relaxes a
 * certificate: those two, and the options named by `partial` (which leave checks out).
 */
export function prepareAcceptance(options: Record<string, string>, partial: readonly string[]): AcceptanceCriteria {
  if (options['allow-weak-containment'] !== undefined && options.certify === undefined)
    throw new UsageError('--allow-weak-containment relaxes --certify only: pass both or neither');
  if (options.certify !== undefined) {
    const relaxing = ['expected-failures', 'baseline', ...partial].filter((o) => options[o] !== undefined);
    if (relaxing.length)
      throw new UsageError(
        `--certify accepts no ${relaxing.map((o) => `--${o}`).join(', ')} (a certificate covers every check, with no expected failures)`,
      );
  }
  const selection = {
    ...(options.grep !== undefined ? { grep: options.grep } : {}),
    ...(options['grep-invert'] !== undefined ? { grepInvert: options['grep-invert'] } : {}),
  };
  return {
    certification: options.certify !== undefined,
    allowWeakContainment: options['allow-weak-containment'] !== undefined,
    // Read now, before anything runs: a bad key is bad input, not a run that signs nothing.
    ...(options['sign-key'] !== undefined ? { signKey: loadSigningKey(options['sign-key']) } : {}),
    ...(Object.keys(selection).length ? { selection } : {}),
    ...(options['expected-failures']
      ? {
          expectedPath: recordedClaimPath(process.cwd(), resolve(options['expected-failures'])),
          expected: loadExpectedFailures(resolve(options['expected-failures'])),
        }
      : {}),
    ...(options.baseline
      ? {
          // Recorded relative to where the run started, like the claim: no local home folder in published results.
          baselinePath: recordedClaimPath(process.cwd(), resolve(options.baseline)),
          baselines: loadBaselines(resolve(options.baseline)),
        }
      : {}),
  };
}

/** Why --certify refuses a run without the sandbox, as one line. */
export function weakContainmentRefusal(c: { kind: string; reason?: string }): string {
  return (
    `--certify needs the sandbox, and implementations ${c.kind === 'process-group' ? 'would run' : 'ran'} in ${c.kind} containment` +
    `${c.reason ? ` (${c.reason})` : ''}; install bubblewrap, or pass --allow-weak-containment to certify without it (the report says so)`
  );
}

/**
 * Judge each claim's recorded results (expected failures, baseline), write its views once
 * (results.json, JUnit, the report, regression.json), print its summary, and return the
 * exit code: 1 nonconformant (with a baseline: new failures only), 2 incomplete (a run
 * that stopped before every check ran included, unless a failure makes it 1).
 */
export function conclude(
  claims: readonly { results: ClaimResults; reportDir: string }[],
  criteria: AcceptanceCriteria,
  io: Io,
  written: { results: ClaimResults; dir: string }[],
  contextFor: (reportDir: string) => ReportContext = () => ({}),
): number {
  // A merge learns only from the shards that they selected checks: no certificate of a part.
  if (criteria.certification && claims.some((c) => c.results.run?.selection))
    throw new UsageError(
      '--certify accepts no shards that ran with --grep or --grep-invert (a certificate covers every check)',
    );
  // Nor of checks run several times: a certificate is of one run of each (run refuses --repeat with --certify).
  if (criteria.certification && claims.some((c) => c.results.run?.repeat))
    throw new UsageError(
      '--certify accepts no shards that ran with --repeat (a certificate is of one run of each check)',
    );
  // A certificate says how the implementation was contained: never a weak one unless asked for.
  const weak = claims.find((c) => c.results.containment && c.results.containment.kind !== 'sandbox');
  if (criteria.certification && !criteria.allowWeakContainment && weak)
    throw new UsageError(weakContainmentRefusal(weak.results.containment!));
  let exit: number = EXIT.ok;
  for (const { results: recorded, reportDir } of claims) {
    // How the run was made, beside what it found: a certification is told from a development run.
    const results: ClaimResults = {
      ...recorded,
      ...(criteria.certification ? certifiedVerdict(recorded) : {}),
      run: {
        ...recorded.run,
        certification: criteria.certification,
        ...(criteria.selection ? { selection: criteria.selection } : {}),
      },
    };
    const judgement: Judgement = { accepted: true };
    const name = results.claim.implementation.name;
    const lines: string[] = [];
    const acceptance: Acceptance = {};
    let failing = false;
    let regression: unknown;
    if (results.verdict === 'incomplete') {
      exit = Math.max(exit, EXIT.badInput);
    } else {
      const { expected, baselines } = criteria;
      const outcome = expected
        ? applyExpectedFailures(results, expected, new Date().toISOString().slice(0, 10))
        : undefined;
      if (outcome) {
        lines.push(`  expected failures: ${expectedLine(outcome)}`);
        acceptance.expected = outcome;
        judgement.expectedFailures = {
          file: criteria.expectedPath ?? '',
          matched: outcome.matched.map((m) => ({
            ...entryOf(m.entry),
            failed: `${m.check.id} ${targetLabel(m.check)}`,
          })),
          unexpected: outcome.unexpected.map((c) => `${c.id} ${targetLabel(c)}`),
          expired: outcome.expired.map(entryOf),
          stale: outcome.stale.map(entryOf),
        };
      }
      failing = outcome ? expectedFailuresFail(outcome) : results.verdict === 'nonconformant';
      if (baselines) {
        const before = baselines(name);
        if (!before) {
          lines.push(`  vs baseline: no baseline for ${name}; every failure counts as new`);
        } else {
          const excused = new Set(outcome?.matched.map((m) => checkKey(m.check)) ?? []);
          const changes = compareRuns(before, results);
          const moved = snapshotChange(before, results);
          const notComparable = changes.filter((c) => c.change === 'not-comparable').length;
          regression = {
            baseline: criteria.baselinePath,
            ...(moved ? { snapshots: moved, notComparable } : {}),
            changes,
          };
          if (moved) lines.push(`  vs baseline: ${snapshotChangeLine(moved, notComparable)}`);
          lines.push(`  vs baseline: ${regressionLine(changes, excused)}`);
          const fresh = changes.filter((c) => c.change === 'new-failure').map((c) => c.key);
          judgement.baseline = {
            file: criteria.baselinePath ?? '',
            newFailures: fresh,
            excused: fresh.filter((k) => excused.has(k)),
            fixed: changes.filter((c) => c.change === 'fixed').length,
            stillFailing: changes.filter((c) => c.change === 'still-failing').length,
            ...(moved ? { snapshot: moved.before, notComparable } : {}),
          };
          acceptance.regression = {
            baseline: criteria.baselinePath ?? '',
            changes,
            ...(moved ? { snapshots: moved } : {}),
          };
          // With a baseline only new failures count (expected ones excepted); a stale or expired list still fails.
          failing =
            changes.some((c) => c.change === 'new-failure' && !excused.has(c.key)) ||
            (outcome ? outcome.expired.length + outcome.stale.length > 0 : false);
        }
      }
    }
    const findings = findingsLine(results.findings);
    if (findings) lines.push(`  ${findings}`);
    if (results.run?.repeat) lines.push(...flakyLines(results.checks, targetLabel).map((l) => `  ${l}`));
    // A run that stopped before every check ran is never accepted: a failure it found is
    // still exit 1, else (a failure excused, or a baseline's) it is incomplete, exit 2.
    const stopped = results.counts['not-run'] > 0;
    if (stopped && !failing) exit = Math.max(exit, EXIT.badInput);
    judgement.accepted = !failing && results.verdict !== 'incomplete' && !stopped;
    if (judgement.expectedFailures || judgement.baseline) results.judgement = judgement;
    // Every view at once, after every implementation process is gone; the report shows
    // what the run was judged against, beside the verdict.
    const digest = writeClaimResults(reportDir, results, acceptance, regression, contextFor(reportDir), {
      ...(criteria.signKey ? { key: criteria.signKey } : {}),
      requirements: judgedRequirements(results),
    });
    written.push({ results, dir: reportDir });
    io.out(summaryLine(results, show(reportDir), digest));
    if (criteria.signKey) io.out(terminalLine(`  attestation signed by key ${keyId(criteria.signKey)}`));
    for (const line of lines) io.out(terminalLine(line));
    if (failing) exit = Math.max(exit, EXIT.finding);
  }
  return exit;
}
