// Playwright reporter that records conformance tests as each claim's results, from the
// annotations and attachments the suites record, into the run outcome file (one per run or
// merge). It judges and renders nothing: the CLI does that once (src/results/run-record.ts).
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { checkSpec } from '../checks/catalogue.js';
import {
  ANNOTATION,
  ATTACHMENT,
  LAUNCH_FAILURE_PREFIX,
  NOT_FINISHED,
  NOT_STARTED,
  type AnnotatedStatus,
} from './annotations.js';
import {
  buildClaimResults,
  targetName,
  targetKey,
  type CheckResult,
  type CheckStatus,
  type Evidence,
  type LaunchRecord,
  type TranscriptLine,
} from './model.js';
import {
  declaredResults,
  mergeCoverage,
  type DeclaredNotApplicable,
  recordedPlan,
  writeRunOutcome,
  type RecordedPlan,
  type RunOutcome,
} from './run-record.js';
import { readSnapshot } from './snapshot.js';
import { selected } from './check-title.js';
import { mergeObserved, readObserved, type Observed } from './observed.js';
import { claimFindings } from './over-claim.js';
import { foldChecks } from './repetitions.js';
import { roleProjectMetadata, testShape, testTarget } from './test-target.js';

/** What the config gives this reporter. */
export interface ResultsReporterOptions {
  /** Where the outcome goes (src/engine/run-folder.ts). */
  outcomeFile: string;
  /**
   * `merge`: the claims come from the shards' metadata, and every shard must be present.
   * `shard`: a shard's blob is its outcome; this records only the runner's own errors.
   */
  mode: 'run' | 'merge' | 'shard';
  /** `--certify`: a check that passed only on a retry is failed (a certificate takes no flaky pass). */
  flakyFails?: boolean;
  /** The config gave Playwright checks to run: "No tests found" is then the runner's error, not an empty --grep. */
  expectsChecks?: boolean;
}

/** Set by `run --certify` and `merge --certify` for playwright.config.ts: {@link ResultsReporterOptions.flakyFails}. */
export const FLAKY_FAILS_ENV = 'AHP_FLAKY_FAILS';

const ANSI = /\u001b\[[0-9;]*m/g;

function annotation(test: TestCase, result: TestResult, type: string): string | undefined {
  return [...result.annotations, ...test.annotations].find((a) => a.type === type)?.description;
}

function attachmentJson<T>(result: TestResult, name: string): T | undefined {
  const a = result.attachments.find((x) => x.name === name && x.body);
  if (!a?.body) return undefined;
  try {
    return JSON.parse(a.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Entries of a passing check's transcript kept in results.json: enough to see it was
 * exercised. `run --full-transcripts` keeps them all (the plan records it, so a merge keeps
 * what its shards kept).
 */
export const PASS_TRANSCRIPT_ENTRIES = 40;

function transcriptOf(result: TestResult, bound?: number): TranscriptLine[] | undefined {
  const a = result.attachments.find((x) => x.name === ATTACHMENT.transcript && x.body);
  if (!a?.body) return undefined;
  const all = a.body
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TranscriptLine);
  if (bound === undefined || all.length <= bound) return all;
  const head = all.slice(0, bound - 1);
  const last = all[all.length - 1]!;
  return [
    ...head,
    {
      ...last,
      note: `${all.length - bound} entries left out here (a passing check keeps ${bound}; the Playwright report has them all)${last.note ? `; ${last.note}` : ''}`,
    },
  ];
}

/**
 * Is a declared not-applicable check within the run's --grep / --grep-invert? The declared
 * ones never reach Playwright, so the selection that picked the checks that ran
 * (src/results/check-title.ts) is applied to them here.
 */
function inSelection(claim: string, d: DeclaredNotApplicable, selection: RecordedPlan['selection']): boolean {
  return selected(selection, targetName(claim, d), d.id, checkSpec(d.id).title);
}

function specResult(id: string): Pick<CheckResult, 'id' | 'title' | 'level' | 'profile' | 'requirements'> {
  const spec = checkSpec(id);
  return { id, title: spec.title, level: spec.level, profile: spec.profile, requirements: [...spec.requirements] };
}

export default class ResultsReporter implements Reporter {
  private readonly byClaim = new Map<number, CheckResult[]>();
  /** Each test's entry so far (`--retries`: a retry replaces the attempt before it), and its first failure. */
  private readonly attempts = new Map<string, { entry: CheckResult; firstFailure?: string }>();
  /** `run --repeat`: each entry's repetition (Playwright's repeatEachIndex), for folding them in order. */
  private readonly repetition = new Map<CheckResult, number>();
  /** Per claim, per target (keyed by targetKey): a launch failure reason, and whether any check got past launching. */
  private readonly launch = new Map<number, Map<string, LaunchRecord>>();
  /** Per claim, per target (keyed by targetKey): what its checks observed the implementation advertise and do. */
  private readonly observed = new Map<number, Map<string, Observed>>();
  private metadata: Record<string, unknown> = {};
  private timing: { startedAt?: string; durationMs?: number } = {};
  /** --max-failures of the run (0: none), the failures so far, and whether a check was cut short. */
  private maxFailures = 0;
  private failures = 0;
  private stoppedEarly = false;
  /** The tests Playwright was given (after --grep): one that never ended was never started. */
  private suite?: Suite;
  /** The plan's --full-transcripts: every check keeps its whole transcript. */
  private fullTranscripts = false;
  /** Errors of the runner itself, each one line: any makes the outcome an internal error (exit 3). */
  private readonly internal: string[] = [];
  private ended = false;

  constructor(private readonly options: ResultsReporterOptions) {}

  onBegin(config: FullConfig, suite?: Suite): void {
    this.metadata = config.metadata ?? {};
    this.maxFailures = config.maxFailures ?? 0;
    this.fullTranscripts = recordedPlan(this.metadata)?.fullTranscripts === true;
    this.suite = suite;
    if (this.options.mode !== 'merge' && suite) this.collected(config, suite);
  }

  /**
   * Every check the config gave a project for each target (its metadata) must be among the
   * tests Playwright collected for it under that target's shape. A suite file missing from
   * the install is no error to Playwright, which collects what it finds: the checks it held
   * would not run, and the run would read as partial or incomplete. That is the runner's error.
   */
  private collected(config: FullConfig, suite: Suite): void {
    for (const project of config.projects) {
      const meta = roleProjectMetadata(project.metadata);
      if (!meta) continue;
      const tests = suite.suites.find((s) => s.project()?.name === project.name)?.allTests() ?? [];
      for (const { shape, checks } of meta.targets) {
        const got = new Set(
          tests
            .filter((t) => testShape(t) === shape)
            .map((t) => t.annotations.find((a) => a.type === ANNOTATION.check)?.description),
        );
        const missing = checks.filter((id) => !got.has(id));
        if (missing.length)
          this.internalError(
            `${missing.length} check${missing.length === 1 ? '' : 's'} of ${project.name}:${shape} never loaded (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}): a suite of the runner is missing`,
          );
      }
    }
  }

  /**
   * Why checks the plan needs may not have run in this run (said only where some did not):
   * left out on purpose (--grep, a shard missing from a merge), or the run stopped.
   */
  private why(plan: RecordedPlan, status: FullResult['status'], missingShards?: string): string[] {
    const s = plan.selection;
    // Quoted as a shell word, as the user typed it.
    const word = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
    return [
      ...(s?.grep !== undefined ? [`left out by --grep ${word(s.grep)}`] : []),
      ...(s?.grepInvert !== undefined ? [`left out by --grep-invert ${word(s.grepInvert)}`] : []),
      ...(this.maxFailures > 0 && this.failures >= this.maxFailures
        ? [`the run stopped early at --max-failures ${this.maxFailures}`]
        : status === 'timedout'
          ? ["the run reached Playwright's global timeout"]
          : status === 'interrupted' || this.stoppedEarly
            ? ['the run was interrupted']
            : []),
      ...(missingShards ? [missingShards] : []),
    ];
  }

  /**
   * An error outside every check: a test file or module that did not load (in this process
   * or a worker), a worker that exited or whose teardown failed, a reporter that threw
   * (Playwright hands every reporter's error to every reporter, this one's included).
   */
  onError(error: TestError): void {
    const text = (error.message ?? String(error.value ?? 'unknown error')).replace(ANSI, '');
    // Two errors Playwright reports that are no fault of the runner: --max-failures reached
    // (the checks that did not run are `not-run`), and a --grep that selected
    // nothing (no check ran: incomplete), where the config gave it no check at all. Their
    // wording is Playwright's (1.65).
    if (/^\s*(Error: )?Testing stopped early after \d+ maximum allowed failures/.test(text)) return;
    if (/^\s*(Error: )?No tests found/.test(text) && !this.options.expectsChecks) return;
    this.internalError(text);
  }

  private internalError(text: string): void {
    const line = text.replace(ANSI, '').trim().split('\n')[0]!.trim() || 'unknown error';
    if (!this.internal.includes(line)) this.internal.push(line);
    // A reporter after this one (the HTML report) may throw in its own onEnd, after this one wrote.
    if (this.ended) this.writeOutcome({ claims: [] });
  }

  /** The outcome, or the runner's own error instead of it. */
  private writeOutcome(outcome: RunOutcome): void {
    const internalError = this.internal.length
      ? `${this.internal[0]}${this.internal.length > 1 ? ` (and ${this.internal.length - 1} more)` : ''}`
      : undefined;
    writeRunOutcome(this.options.outcomeFile, internalError ? { claims: [], internalError } : outcome);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const id = annotation(test, result, ANNOTATION.check);
    const target = testTarget(test);
    if (!id || !target) return;
    // A worker that ran the check returns the check's own annotations with its result. A
    // failure without them never reached the check: Playwright failed it from outside (its
    // file or a fixture did not load in the worker, the worker died). That is the runner's
    // error, never a finding about the implementation; the checks skipped with it are `not-run`.
    if (
      (result.status === 'failed' || result.status === 'timedOut') &&
      !result.annotations.some((a) => a.type === ANNOTATION.check)
    ) {
      const err = result.errors[0] ?? result.error;
      this.internalError(`${id} did not run in its worker: ${err?.message ?? `Playwright ended it ${result.status}`}`);
      return;
    }
    const annotated = annotation(test, result, ANNOTATION.status) as AnnotatedStatus | undefined;
    let status: CheckStatus;
    let message = annotation(test, result, ANNOTATION.message) ?? '';
    if (result.status === 'skipped') {
      // Skipped by Playwright itself (beside a worker that died): it did not run.
      status =
        annotated === 'not-applicable' ? 'not-applicable' : annotated === 'incomplete' ? 'incomplete' : 'not-run';
      message ||= result.annotations.find((a) => a.type === 'skip')?.description ?? 'Playwright skipped it';
    } else if (result.status === 'passed') {
      status = annotated === 'warning' ? 'warning' : 'passed';
    } else if (result.status === 'interrupted') {
      // Stopped by -x / --max-failures, a signal or the global timeout before it judged (or
      // after: Playwright then drops what it found): never a finding. The target is incomplete.
      status = 'not-run';
      message = NOT_FINISHED;
      this.stoppedEarly = true;
    } else {
      status = 'failed';
      this.failures++;
      const err = result.errors[0] ?? result.error;
      message =
        result.status === 'timedOut'
          ? `the check did not finish within its time limit (${test.timeout} ms)`
          : (err?.message ?? 'failed').replace(ANSI, '').replace(/^CheckFailure: /, '');
    }
    const entry: CheckResult = {
      ...specResult(id),
      role: target.role,
      transport: target.transport,
      ...(target.lifecycle ? { lifecycle: target.lifecycle } : {}),
      status,
      message,
      durationMs: Math.round(result.duration),
    };
    const evidence = attachmentJson<Evidence>(result, ATTACHMENT.evidence);
    if (evidence) entry.evidence = evidence;
    // Every attempt's: a retried check's earlier attempts showed the implementation too.
    const seen = attachmentJson<unknown>(result, ATTACHMENT.observed);
    if (seen !== undefined) {
      const byTarget = this.observed.get(target.claimIndex) ?? new Map<string, Observed>();
      byTarget.set(targetKey(target), mergeObserved(byTarget.get(targetKey(target)) ?? {}, readObserved(seen)));
      this.observed.set(target.claimIndex, byTarget);
    }
    // Every check keeps its evidence: failures in full, passes bounded (a reviewer can see a
    // pass was exercised) unless the run asked for every entry.
    const whole = this.fullTranscripts || status === 'failed' || status === 'warning' || status === 'incomplete';
    const transcript = transcriptOf(result, whole ? undefined : PASS_TRANSCRIPT_ENTRIES);
    if (transcript) entry.transcript = transcript;
    const launches = this.launch.get(target.claimIndex) ?? new Map<string, LaunchRecord>();
    const launch = launches.get(targetKey(target)) ?? { started: false };
    const failure = annotation(test, result, ANNOTATION.launchFailure);
    if (failure) launch.failure ??= failure;
    else if (status !== 'not-run' && status !== 'not-applicable') launch.started = true;
    launches.set(targetKey(target), launch);
    this.launch.set(target.claimIndex, launches);
    const list = this.byClaim.get(target.claimIndex) ?? [];
    this.repetition.set(entry, test.repeatEachIndex ?? 0);
    const earlier = this.attempts.get(test.id);
    if (earlier) {
      entry.attempts = result.retry + 1;
      const firstFailure = earlier.firstFailure ?? earlier.entry.message;
      if (status === 'not-run') entry.message = `${NOT_FINISHED} (attempt 1: ${firstFailure})`;
      if (status === 'passed' || status === 'warning') {
        entry.flaky = true;
        const what = `passed only on attempt ${entry.attempts} (flaky); attempt 1: ${firstFailure}`;
        if (this.options.flakyFails) {
          entry.status = 'failed';
          entry.message = `${what}; a certification takes no flaky pass`;
        } else entry.message = entry.message ? `${what}; ${entry.message}` : what;
      }
      list[list.indexOf(earlier.entry)] = entry;
      this.attempts.set(test.id, { entry, firstFailure });
    } else {
      list.push(entry);
      this.attempts.set(test.id, { entry });
    }
    this.byClaim.set(target.claimIndex, list);
  }

  onEnd(result: FullResult): void {
    this.ended = true;
    this.timing = { startedAt: result.startTime.toISOString(), durationMs: Math.round(result.duration) };
    if (this.options.mode === 'shard') {
      this.writeOutcome({ claims: [] });
      return;
    }
    this.notStarted();
    if (this.options.mode === 'merge') {
      const coverage = mergeCoverage(this.metadata);
      if (coverage.kind === 'error') {
        this.writeOutcome({ claims: [], error: coverage.message });
        return;
      }
      const { total, present, missing } = coverage;
      // A verdict over the checks of some shards only would certify what was never run.
      const absent = missing.length
        ? `shard${missing.length > 1 ? 's' : ''} ${missing.map((m) => `${m}/${total}`).join(', ')} missing from the merge (merged: ${present.map((m) => `${m}/${total}`).join(', ')})`
        : undefined;
      this.writeOutcome({
        claims: this.claims(coverage.plan, this.why(coverage.plan, result.status, absent), absent),
        shards: { total, present, missing },
      });
      return;
    }
    const plan = recordedPlan(this.metadata);
    const outcome: RunOutcome = plan
      ? { claims: this.claims(plan, this.why(plan, result.status)) }
      : { claims: [], error: 'the run recorded no plan' };
    this.writeOutcome(outcome);
  }

  /**
   * The checks Playwright was given (in a merge: those of the shards merged) that never
   * ended: the run stopped before they started (-x, a signal, the global timeout). Each is
   * `not-run`, so its target is incomplete rather than partial: nobody chose to leave it out.
   */
  private notStarted(): void {
    for (const test of this.suite?.allTests() ?? []) {
      if (this.attempts.has(test.id)) continue;
      const id = test.annotations.find((a) => a.type === ANNOTATION.check)?.description;
      const target = testTarget(test);
      if (!id || !target) continue;
      const entry: CheckResult = {
        ...specResult(id),
        role: target.role,
        transport: target.transport,
        ...(target.lifecycle ? { lifecycle: target.lifecycle } : {}),
        status: 'not-run',
        message: NOT_STARTED,
        durationMs: 0,
      };
      this.attempts.set(test.id, { entry });
      this.byClaim.set(target.claimIndex, [...(this.byClaim.get(target.claimIndex) ?? []), entry]);
      this.stoppedEarly = true;
    }
  }

  /**
   * `absent`: shards missing from a merge. The claims' coverage then says partial (or the
   * failures nonconformant; left out, as by --grep, not stopped: the merge exits 2 for it
   * anyway); a plan of an earlier version records no checks per target, so without
   * coverage every claim is incomplete instead.
   */
  private claims(plan: RecordedPlan, why: string[], absent?: string): RunOutcome['claims'] {
    return plan.claims.map(({ claim, targets, notApplicable, digest, declares }, index) => {
      const recorded = this.byClaim.get(index) ?? [];
      // --repeat: one result per (check, target), with every repetition's (src/results/repetitions.ts).
      const ran = plan.repeat ? foldChecks(recorded, (e) => this.repetition.get(e) ?? 0) : recorded;
      const built = buildClaimResults({
        runnerVersion: plan.runnerVersion,
        generatedAt: new Date().toISOString(),
        // Blobs of an earlier version recorded a bare snapshot name: read in today's shape.
        claim: { ...claim, snapshot: readSnapshot(claim.snapshot), digest },
        targets,
        // Declared not applicable by the plan: shown, never run. Only beside checks that ran
        // for its target, so a target left out by --grep stays without checks.
        checks: [
          ...ran,
          ...declaredResults(
            (notApplicable ?? []).filter(
              (d) =>
                ran.some((c) => targetKey(c) === targetKey(d)) &&
                inSelection(claim.implementation.name, d, plan.selection),
            ),
            specResult,
          ),
        ],
        launches: this.launch.get(index),
        ...(plan.containment ? { containment: plan.containment } : {}),
        run: {
          ...this.timing,
          ...(plan.environment ? { environment: plan.environment } : {}),
          ...(plan.selection ? { selection: plan.selection } : {}),
          ...(plan.fullTranscripts ? { fullTranscripts: true } : {}),
          ...(plan.repeat ? { repeat: plan.repeat } : {}),
        },
        why,
      });
      // The claim against what its implementation advertised and did; a target whose
      // implementation never started showed nothing to compare.
      const results = declares
        ? {
            ...built,
            findings: claimFindings({
              claim,
              declares,
              targets: built.targets.filter((t) => !t.reason?.startsWith(LAUNCH_FAILURE_PREFIX)),
              observed: this.observed.get(index) ?? new Map(),
              checks: built.checks,
            }),
          }
        : built;
      return absent && !results.coverage
        ? {
            ...results,
            verdict: 'incomplete',
            reason: absent,
            targets: results.targets.map((t) => ({ ...t, verdict: 'incomplete', reason: absent })),
          }
        : results;
    });
  }

  printsToStdio(): boolean {
    return false;
  }
}
