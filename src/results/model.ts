// The results model: what one claim's certification found. results.json, JUnit, the HTML
// conformance report and the matrix page are views of this one model.
import { claimRoles, type Level, type Lifecycle, type Role, type Transport } from '../checks/catalogue.js';
import { claimScope, ledgerFor, type Ledger } from '../checks/ledger.js';
import { LAUNCH_FAILURE_PREFIX } from './annotations.js';
import { knownSnapshot, readSnapshot, type SnapshotSummary } from './snapshot.js';

/**
 * 3: a check that did not run is `not-run` (2 said `skipped`). 2: `claim.snapshot` is the
 * snapshot's identity (src/results/snapshot.ts); 1 recorded a bare `"draft"`.
 * {@link readRecordedResults} still reads both.
 */
export const RESULTS_SCHEMA_VERSION = 3;

/**
 * `incomplete`: the check applies but could not judge (e.g. silence, when the follow-up got no reply).
 * `not-run`: the run stopped (-x / --max-failures, a signal, Playwright's global timeout)
 * before the check finished or before it started: no result, never a failure.
 */
export type CheckStatus = 'passed' | 'failed' | 'warning' | 'incomplete' | 'not-run' | 'not-applicable';

/** A status as the views show it: `not run`, `not applicable`. */
export const statusWord = (s: string): string => s.replace(/-/g, ' ');
/**
 * `partial`: every check that ran passed (or only warned), but the run left out checks the
 * claim needs on purpose (--grep, --grep-invert, a shard missing from a merge): never a
 * certificate, and never told as `conformant`. A MUST failure is `nonconformant` whatever
 * else ran; a MUST check that could not judge, or a check the run stopped before it
 * finished or started (`not-run`), makes it `incomplete`.
 */
export type Verdict = 'conformant' | 'nonconformant' | 'incomplete' | 'partial';

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

/**
 * How much of what the claim needs ran: `needed` is every (check, target) pair the plan
 * runs for the claim (its applicable checks, less those declared not applicable), `ran`
 * how many of them ran to a result (passed, failed, warning, incomplete, or not applicable
 * at run time; a check the run stopped before it finished or started is `not-run`).
 */
export interface Coverage {
  ran: number;
  needed: number;
  /** Why some did not run, when they did not (--grep, the run stopped early, a shard missing). */
  why?: string[];
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
  /**
   * The raw wire transcript: whole for failed, warning and incomplete checks (and for every
   * check under `run --full-transcripts`); a passing one keeps 40 entries.
   */
  transcript?: TranscriptLine[];
  /** How many times it ran, when `run --retries` retried it. */
  attempts?: number;
  /**
   * Its outcome was not the same every time it ran: it passed only on a retry (`run
   * --retries`; under --certify it is failed instead), or its repetitions differ (`run
   * --repeat`, src/results/repetitions.ts).
   */
  flaky?: boolean;
  /** `run --repeat N`: each of the N runs of the check, in order. */
  repetitions?: Repetition[];
}

/** One of a check's runs under `run --repeat`. */
export interface Repetition {
  status: CheckStatus;
  durationMs: number;
  /** Its message, when it is not the check's own. */
  message?: string;
  /** How many times it ran, when `run --retries` retried it. */
  attempts?: number;
}

export interface ClaimSummary {
  file: string;
  implementation: { name: string; version: string };
  /** The snapshot the claim was judged by, and what the claim asked for. */
  snapshot: SnapshotSummary;
  role: string;
  transports: string[];
  lifecycles: string[];
  profiles: string[];
  /** `run --timeout-ms`: the deadline of this run's exchanges, when it replaced the claim's `timeoutMs`. */
  timeoutMsOverride?: { claim: number; run: number };
  /** sha256 of the claim file's bytes: which claim, exactly, the results are for. */
  digest?: string;
  /** The implementation's files, hashed before it was launched: what bytes were tested (the attestation's subjects). */
  implementationFiles?: ImplementationFile[];
}

/** One file of the implementation under test (src/engine/implementation-files.ts). */
export interface ImplementationFile {
  /**
   * As the claim names it: an `artifacts` entry or an argument as written; a command by its
   * path (a bare command name as found on PATH, absolute).
   */
  name: string;
  kind: 'command' | 'argument' | 'artifact';
  /** Absent when it could not be hashed; `notHashed` says why. */
  sha256?: string;
  notHashed?: string;
}

/** Where and how the checks ran: Node, OS, CPU architecture and Playwright of the machine. */
export interface RunEnvironment {
  node: string;
  platform: string;
  arch: string;
  playwright: string;
}

/** How a run was made: a published result must be told apart from a development run. */
export interface RunInfo {
  /** `--certify`: every check, no expected failures, no baseline, no selection. */
  certification?: boolean;
  /** `--grep` / `--grep-invert`: only some checks ran (never a certificate). */
  selection?: { grep?: string; grepInvert?: string };
  /** `--full-transcripts`: every check keeps its whole transcript (else a passing one keeps 40 entries). */
  fullTranscripts?: true;
  /** `--repeat N` (N > 1): every check ran N times; each check records its repetitions. */
  repeat?: number;
  startedAt?: string;
  /** Wall time of the Playwright run (for a merge: as the merged reports give it). */
  durationMs?: number;
  environment?: RunEnvironment;
  /** What went wrong around the checks without changing a verdict (a clean-up that failed), one line each. */
  warnings?: string[];
}

/** An expected-failures entry as the judgement records it. */
export interface JudgedEntry {
  check: string;
  reason: string;
  expires?: string;
  implementation?: string;
  target?: string;
}

/**
 * What the run was judged against and the outcome (src/cli/acceptance.ts): with expected
 * failures or a baseline, whether the run is accepted is not the verdict.
 */
export interface Judgement {
  /** false: the run exits 1 (or 2 when incomplete). */
  accepted: boolean;
  expectedFailures?: {
    file: string;
    /** Failed checks an entry excused, each as `id target`. */
    matched: (JudgedEntry & { failed: string })[];
    /** Failed MUST checks no entry covers, as `id target`. */
    unexpected: string[];
    expired: JudgedEntry[];
    stale: JudgedEntry[];
  };
  baseline?: {
    file: string;
    /** New failures since the baseline, as `id role transport lifecycle`. */
    newFailures: string[];
    /** Those of them on the expected-failures list: they do not fail the run. */
    excused: string[];
    fixed: number;
    stillFailing: number;
    /** The baseline's snapshot, when it is not this run's. */
    snapshot?: string;
    /** Across a snapshot change: checks left out of the comparison. */
    notComparable?: number;
  };
}

/** One (role, transport, lifecycle) a claim certifies: a Playwright project of the run. */
export interface TargetKey {
  role: Role;
  transport: Transport;
  /** stdio only. */
  lifecycle?: Lifecycle;
}

/** One target of one claim in a run: the claim's place in the plan, and the target. */
export interface Target extends TargetKey {
  claimIndex: number;
}

/** A target's own verdict, from its checks alone. */
export interface TargetResult extends TargetKey {
  verdict: Verdict;
  /** Why the target is incomplete or partial. */
  reason?: string;
  counts: Record<CheckStatus, number>;
  /** How many of the target's needed checks ran (when the plan recorded them). */
  coverage?: Coverage;
}

export interface ClaimResults {
  schemaVersion: number;
  runner: { name: 'ahp-conformance'; version: string };
  generatedAt: string;
  /**
   * How the implementation's processes were contained: `sandbox` (bubblewrap, with its
   * version: drivers/containment.ts), `process-group` (the fallback, with the reason), or
   * `pid-namespace` (the namespace chain of runner versions before the sandbox; only read).
   */
  containment?: { kind: 'sandbox' | 'pid-namespace' | 'process-group'; tool?: string; reason?: string };
  run?: RunInfo;
  /** Set when the run was judged against expected failures or a baseline. */
  judgement?: Judgement;
  claim: ClaimSummary;
  /**
   * Incomplete if any target is, else nonconformant if any MUST check failed, else partial
   * when not every check the claim needs ran, else conformant.
   */
  verdict: Verdict;
  /** Why the verdict is incomplete or partial. */
  reason?: string;
  counts: Record<CheckStatus, number>;
  /** How many of the checks the claim needs ran (absent in results of runners before it was recorded). */
  coverage?: Coverage;
  /** One entry per target, sorted by role, transport and lifecycle. */
  targets: TargetResult[];
  checks: CheckResult[];
  /**
   * The traceability ledger of the claim's snapshot, roles and profiles (src/checks/ledger.ts):
   * every requirement and profile sentence, the checks that judge it, or why none does.
   * Absent for a claim whose snapshot is unknown, and in results of earlier runners.
   */
  ledger?: Ledger;
  /** The claim against what the implementation advertised and did (absent: not compared, e.g. a run of an earlier version). */
  findings?: Finding[];
}

/**
 * What a finding compares: the claim says more than was seen (`-unexercised`, `-unused`,
 * `-unanswered`, `-unseen`), or the implementation advertises or does more than the claim
 * covers (`-uncovered`, `-unclaimed`, `advertised-beyond-manifest`).
 */
export type FindingKind =
  | 'profile-unexercised'
  | 'boundary-unexercised'
  | 'uploads-unexercised'
  | 'authentication-unused'
  | 'configuration-unanswered'
  | 'sample-effect-unseen'
  | 'configuration-unclaimed'
  | 'profile-uncovered'
  | 'boundaries-uncovered'
  | 'advertised-beyond-manifest'
  | 'transport-uncovered'
  | 'authentication-uncovered'
  | 'effects-uncovered';

/**
 * One difference between what the claim says and what the implementation advertised or did
 * in the run (src/results/over-claim.ts). A `failure` is one the spec makes false and the
 * named check failed for (that check, not the finding, decides the verdict); every other is
 * a `warning`.
 */
export interface Finding {
  kind: FindingKind;
  level: 'warning' | 'failure';
  /** The claim against the behaviour, in one sentence. */
  says: string;
  /** What was observed, and where. */
  evidence: string;
  /** The requirement the comparison rests on. */
  requirement: string;
  /** The check that judges it, where one does. */
  check?: string;
  /** The targets it was seen on (`harness/http`). */
  targets: string[];
}

/** Whether a target's implementation could be started: a launch failure, and whether any check got past launching. */
export interface LaunchRecord {
  failure?: string;
  started: boolean;
}

export function countStatuses(checks: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = {
    passed: 0,
    failed: 0,
    warning: 0,
    incomplete: 0,
    'not-run': 0,
    'not-applicable': 0,
  };
  for (const c of checks) counts[c.status]++;
  return counts;
}

/**
 * Conformant when every applicable MUST check passed. A failed SHOULD check is reported
 * as a warning and does not make the verdict nonconformant.
 */
export function verdictOf(checks: readonly CheckResult[]): Verdict {
  if (checks.some((c) => c.status === 'failed' && c.level === 'MUST')) return 'nonconformant';
  // A MUST check that could not judge leaves the verdict open: never conformant by default.
  return checks.some((c) => c.status === 'incomplete' && c.level === 'MUST') ? 'incomplete' : 'conformant';
}

/** Why checks left a verdict open: the first MUST check that could not judge. */
function openReason(checks: readonly CheckResult[]): string | undefined {
  const c = checks.find((x) => x.status === 'incomplete' && x.level === 'MUST');
  return c ? `${c.id} could not judge: ${c.message.split('\n')[0]}` : undefined;
}

/** A map key for a target (role, transport, lifecycle); sorts like the checks. */
export const targetKey = (t: TargetKey): string => [t.role, t.transport, t.lifecycle ?? ''].join('\u0000');

/** `backend/stdio/persistent`, `harness/http`. */
export const targetLabel = (t: TargetKey): string => [t.role, t.transport, t.lifecycle].filter(Boolean).join('/');

/**
 * A target's transport and lifecycle, `stdio:persistent`, `http`: the suites register each
 * check once per shape it applies to (suites/support/check.ts), so one Playwright project
 * per claim and role runs every target of that role.
 */
export const targetShape = (t: Pick<TargetKey, 'transport' | 'lifecycle'>): string =>
  [t.transport, t.lifecycle].filter(Boolean).join(':');

/** Every shape a target can have, in plan order. */
export const TARGET_SHAPES = ['stdio:persistent', 'stdio:per_event', 'http'] as const;

/** The transport and lifecycle a shape names; undefined for a text that is no shape. */
export function shapeParts(shape: string): Pick<TargetKey, 'transport' | 'lifecycle'> | undefined {
  if (!(TARGET_SHAPES as readonly string[]).includes(shape)) return undefined;
  const [transport, lifecycle] = shape.split(':') as [Transport, Lifecycle | undefined];
  return { transport, ...(lifecycle ? { lifecycle } : {}) };
}

/**
 * The Playwright project of one claim's role, `acme:backend`: it runs the checks of every
 * target of that role (playwright.config.ts).
 */
export const roleProjectName = (implementation: string, role: Role): string => `${implementation}:${role}`;

/**
 * The name users see for one claim's target, `acme:backend:stdio:persistent`: its role's
 * project name and its shape. Progress lines show it, `run --grep` selects by it and the
 * report's rerun command greps for it (src/results/check-title.ts).
 */
export const targetName = (implementation: string, t: TargetKey): string =>
  `${roleProjectName(implementation, t.role)}:${targetShape(t)}`;

const NO_CHECK = 'no check ran (interrupted, or nothing matched --grep)';
const byKey = <T extends TargetKey>(a: T, b: T): number =>
  targetKey(a) < targetKey(b) ? -1 : targetKey(a) > targetKey(b) ? 1 : 0;

/** A target of the plan, with the checks the claim needs judged there when the plan recorded them. */
export interface PlannedTarget extends TargetKey {
  checks?: readonly string[];
}

/** Whether a check ran to a result: a `not-run` one did not (the run stopped before it finished or started). */
export const ranToResult = (c: Pick<CheckResult, 'status'>): boolean => c.status !== 'not-run';

/** How many of `needed` (check ids of one target) have a result in `mine` (that target's checks). */
function coverageOf(needed: readonly string[], mine: readonly CheckResult[]): Coverage {
  const ran = new Set(mine.filter(ranToResult).map((c) => c.id));
  return { ran: [...new Set(needed)].filter((id) => ran.has(id)).length, needed: new Set(needed).size };
}

/** `ran 1 of 120 checks the claim needs (left out by --grep ...)`: the one wording of a partial run. */
export function coverageText(c: Coverage, of = ''): string {
  return `ran ${c.ran} of ${c.needed} checks${of}${c.why?.length ? ` (${c.why.join('; ')})` : ''}`;
}

const isPartial = (c: Coverage | undefined): boolean => c !== undefined && c.ran < c.needed;

/**
 * Whether a claim's reason is its coverage (`ran 1 of 3 checks the claim needs (...)`): a
 * partial claim, or one incomplete because the run stopped. The views then show the counts
 * beside it, as for any verdict.
 */
export const reasonIsCoverage = (r: Pick<ClaimResults, 'verdict' | 'reason' | 'coverage'>): boolean =>
  isPartial(r.coverage) &&
  (r.verdict === 'partial' ||
    (r.verdict === 'incomplete' && r.reason === coverageText(r.coverage!, ' the claim needs')));

/** Why a target whose run stopped is incomplete: its coverage, or without one (an earlier plan) how many did not run. */
function stopReason(mine: readonly CheckResult[], coverage: Coverage | undefined, why?: readonly string[]): string {
  if (isPartial(coverage)) return coverageText(coverage!);
  const n = mine.filter((c) => !ranToResult(c)).length;
  return `${n} check${n === 1 ? '' : 's'} not run${why?.length ? ` (${why.join('; ')})` : ''}`;
}

/**
 * The verdict of each target, sorted by role, transport and lifecycle: the planned targets
 * plus any other a check names. A target is incomplete when its implementation never
 * started for any check (`launches`, keyed by {@link targetKey}), when a MUST check could
 * not judge, or when none of its checks ran and the plan did not record what it needs; else
 * nonconformant when a MUST check failed; else incomplete when the run stopped before some
 * of its checks finished or started (`not-run`); else partial when some check it needs was
 * left out (`why` says why), else conformant.
 */
export function targetResults(
  targets: readonly PlannedTarget[],
  checks: readonly CheckResult[],
  launches?: ReadonlyMap<string, LaunchRecord>,
  why?: readonly string[],
): TargetResult[] {
  const all = new Map<string, PlannedTarget>();
  for (const t of [...targets, ...checks]) {
    const key = targetKey(t);
    const planned = targets.find((x) => targetKey(x) === key)?.checks;
    if (!all.has(key))
      all.set(key, {
        role: t.role,
        transport: t.transport,
        ...(t.lifecycle ? { lifecycle: t.lifecycle } : {}),
        ...(planned ? { checks: planned } : {}),
      });
  }
  return [...all.entries()]
    .map(([key, { checks: needed, ...t }]): TargetResult => {
      const mine = checks.filter((c) => targetKey(c) === key);
      const launch = launches?.get(key);
      const coverage = needed ? { ...coverageOf(needed, mine), ...(why?.length ? { why: [...why] } : {}) } : undefined;
      const verdict: Pick<TargetResult, 'verdict' | 'reason'> =
        mine.length === 0 && !(coverage && coverage.needed > 0)
          ? { verdict: 'incomplete', reason: NO_CHECK }
          : launch?.failure && !launch.started
            ? { verdict: 'incomplete', reason: `${LAUNCH_FAILURE_PREFIX}${launch.failure}` }
            : verdictOf(mine) === 'incomplete'
              ? { verdict: 'incomplete', reason: openReason(mine)! }
              : verdictOf(mine) === 'nonconformant'
                ? { verdict: 'nonconformant' }
                : mine.some((c) => !ranToResult(c))
                  ? { verdict: 'incomplete', reason: stopReason(mine, coverage, why) }
                  : isPartial(coverage)
                    ? { verdict: 'partial', reason: coverageText(coverage!) }
                    : { verdict: 'conformant' };
      if (coverage && !isPartial(coverage)) delete coverage.why;
      return { ...t, ...verdict, counts: countStatuses(mine), ...(coverage ? { coverage } : {}) };
    })
    .sort(byKey);
}

/**
 * Whether a target is incomplete only because the run stopped before some of its checks
 * finished or started (no launch failure, no MUST check that could not judge, no MUST
 * failure): the branch of {@link targetResults} that says so.
 */
function stoppedOnly(t: TargetResult, checks: readonly CheckResult[]): boolean {
  const mine = checks.filter((c) => targetKey(c) === targetKey(t));
  return (
    t.verdict === 'incomplete' &&
    !t.reason?.startsWith(LAUNCH_FAILURE_PREFIX) &&
    verdictOf(mine) === 'conformant' &&
    mine.some((c) => !ranToResult(c))
  );
}

/**
 * The claim's coverage: the sum of its targets', when every target's is known (the plan
 * recorded what each needs), with why some checks did not run.
 */
export function claimCoverage(targets: readonly TargetResult[], why?: readonly string[]): Coverage | undefined {
  if (targets.length === 0 || targets.some((t) => !t.coverage)) return undefined;
  const ran = targets.reduce((n, t) => n + t.coverage!.ran, 0);
  const needed = targets.reduce((n, t) => n + t.coverage!.needed, 0);
  return { ran, needed, ...(ran < needed && why?.length ? { why: [...why] } : {}) };
}

/**
 * The claim's verdict: incomplete if no check ran or a target is incomplete (its
 * implementation never started, a MUST check could not judge), else nonconformant if a
 * MUST check failed (a failure is a finding whatever else ran, a run stopped early
 * included), else incomplete if the run stopped before some check finished or started,
 * else partial when a check the claim needs was left out, else conformant.
 */
export function claimVerdict(
  targets: readonly TargetResult[],
  checks: readonly CheckResult[],
  coverage?: Coverage,
): Pick<ClaimResults, 'verdict' | 'reason'> {
  if (checks.filter(ranToResult).length === 0) return { verdict: 'incomplete', reason: NO_CHECK };
  const incomplete = targets.filter((t) => t.verdict === 'incomplete');
  const reason = (): string =>
    targets.length === 1
      ? (incomplete[0]!.reason ?? 'incomplete')
      : incomplete.map((t) => `${targetLabel(t)}: ${t.reason ?? 'incomplete'}`).join('; ');
  if (incomplete.some((t) => !stoppedOnly(t, checks))) return { verdict: 'incomplete', reason: reason() };
  const verdict = verdictOf(checks);
  if (verdict === 'nonconformant') return { verdict };
  if (incomplete.length)
    return {
      verdict: 'incomplete',
      reason: isPartial(coverage) ? coverageText(coverage!, ' the claim needs') : reason(),
    };
  if (verdict === 'conformant' && isPartial(coverage))
    return { verdict: 'partial', reason: coverageText(coverage!, ' the claim needs') };
  return { verdict };
}

export interface ClaimResultsInput {
  runnerVersion: string;
  generatedAt: string;
  /** The claim; its `lifecycles` follow from the targets. */
  claim: Omit<ClaimSummary, 'lifecycles'>;
  /**
   * The targets the run planned for this claim, each with the checks it needs when the plan
   * recorded them (then a target of which some did not run is partial).
   */
  targets: readonly PlannedTarget[];
  checks: readonly CheckResult[];
  /** Launch records keyed by {@link targetKey}. */
  launches?: ReadonlyMap<string, LaunchRecord>;
  containment?: ClaimResults['containment'];
  run?: RunInfo;
  /** Why checks the claim needs may not have run: said only when some did not. */
  why?: readonly string[];
}

/** One claim's results from its planned targets and the checks that ran: what results.json holds. */
export function buildClaimResults(input: ClaimResultsInput): ClaimResults {
  const checks = sortChecks([...input.checks]);
  const targets = targetResults(input.targets, checks, input.launches, input.why);
  const coverage = claimCoverage(targets, input.why);
  const lifecycles = (['persistent', 'per_event'] as const).filter((l) => targets.some((t) => t.lifecycle === l));
  const ledger = claimLedger(input.claim, lifecycles);
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    runner: { name: 'ahp-conformance', version: input.runnerVersion },
    generatedAt: input.generatedAt,
    ...(input.containment ? { containment: input.containment } : {}),
    ...(input.run ? { run: input.run } : {}),
    claim: { ...input.claim, lifecycles },
    ...claimVerdict(targets, checks, coverage),
    counts: countStatuses(checks),
    ...(coverage ? { coverage } : {}),
    targets,
    checks,
    ...(ledger ? { ledger } : {}),
  };
}

/** The ledger of a claim whose snapshot and role are known: what its certificate proves, and not. */
export function claimLedger(
  claim: Pick<ClaimSummary, 'snapshot' | 'role' | 'transports' | 'profiles'>,
  lifecycles: readonly Lifecycle[],
): Ledger | undefined {
  const snapshot = knownSnapshot(claim.snapshot);
  const role = claim.role;
  if (snapshot === undefined || (role !== 'harness' && role !== 'backend' && role !== 'both')) return undefined;
  return ledgerFor(
    claimScope({
      snapshot,
      roles: claimRoles(role),
      transports: claim.transports as Transport[],
      profiles: claim.profiles,
      lifecycles,
    }),
  );
}

/** What results.json of version 2 and earlier called a check that did not run. */
export const LEGACY_NOT_RUN = 'skipped';

/**
 * Results as an earlier run wrote them (a baseline, a report folder), in the current shape:
 * version 1's bare snapshot name becomes its identity, version 2's `skipped` (a check that
 * did not run) becomes `not-run`. Undefined when it is not results.
 */
export function readRecordedResults(raw: unknown): ClaimResults | undefined {
  const r = raw as ClaimResults | null;
  if (!r || typeof r !== 'object' || !Array.isArray(r.checks) || typeof r.claim?.implementation?.name !== 'string')
    return undefined;
  return {
    ...r,
    claim: { ...r.claim, snapshot: readSnapshot(r.claim.snapshot) },
    ...(r.counts ? { counts: readCounts(r.counts) } : {}),
    ...(Array.isArray(r.targets)
      ? { targets: r.targets.map((t) => (t?.counts ? { ...t, counts: readCounts(t.counts) } : t)) }
      : {}),
    checks: r.checks.map((c) => ((c?.status as string) === LEGACY_NOT_RUN ? { ...c, status: 'not-run' } : c)),
  };
}

function readCounts(counts: Record<CheckStatus, number>): Record<CheckStatus, number> {
  const all = { ...counts } as Record<string, number>;
  const legacy = all[LEGACY_NOT_RUN];
  if (legacy === undefined) return counts;
  delete all[LEGACY_NOT_RUN];
  all['not-run'] = (all['not-run'] ?? 0) + legacy;
  return all as Record<CheckStatus, number>;
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
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, order((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return `${JSON.stringify(order(value), null, 2)}\n`;
}
