// `ahp-conformance run <claim.yaml>... [--grep re] [--grep-invert re] [--workers n] [--reports dir]
//   [--baseline b] [--expected-failures f] [--certify] [--shard i/n] [--list] [--reporter r]
//   [--quiet] [--retries n] [--repeat n] [--max-failures n | -x] [--timeout-ms ms] [--full-transcripts]`:
// load the claims, write a run plan, run the suites through Playwright Test, and sum up.
// With --shard, run one Playwright shard and leave a blob report for `merge`; with --list,
// list the planned checks and run nothing. docs/cli.md describes the options.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { containment } from '../../drivers/containment.js';
import { loadClaim, workingFolderProblem, type ClaimOutcome, type ResolvedClaim } from '../claims/load.js';
import { plannedProjects, writePlan, type RunPlan } from '../engine/plan.js';
import { runPlaywright } from '../engine/playwright.js';
import { parseShard, shardLabel, SHARD_ENV, MERGE_ENV, type Shard } from '../engine/shards.js';
import { packageRoot, packageVersion } from '../package-root.js';
import { FLAKY_FAILS_ENV } from '../results/reporter.js';
import { countStatuses, RESULTS_SCHEMA_VERSION, type ClaimResults } from '../results/model.js';
import { readRunOutcome, recordedClaimPath, type RunOutcome } from '../results/run-record.js';
import { markedForPlaywright } from '../results/expected-failures.js';
import { writeClaimResults } from '../results/write.js';
import { implementationFiles } from '../engine/implementation-files.js';
import { loadSigningKey } from '../results/attestation.js';
import { requestedSnapshot, snapshotName, snapshotSummary } from '../results/snapshot.js';
import { finishReports, removeReportWritten, reportContext, reportStamp, viewsFolder } from './report-layout.js';
import { makeRunFolder, playwrightReportDir, removeRunFolder, RUN_FOLDER_ENV } from '../engine/run-folder.js';
import { claimsWritten, lockReports } from './run-lock.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import {
  conclude,
  prepareAcceptance,
  show,
  summaryLine,
  weakContainmentRefusal,
  type AcceptanceCriteria,
} from './acceptance.js';
import { terminalLine, terminalText } from '../terminal.js';
import { selectionRegExp } from '../results/check-title.js';
import { canonicalPath, cleanUp } from '../safe-fs.js';

export { summaryLine };

function incompleteResults(o: Extract<ClaimOutcome, { kind: 'incomplete' }>): ClaimResults {
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    runner: { name: 'ahp-conformance', version: packageVersion() },
    generatedAt: new Date().toISOString(),
    claim: {
      file: recordedClaimPath(process.cwd(), resolve(o.file)),
      implementation: o.implementation ?? { name: 'unknown', version: 'unknown' },
      // What the claim asked for, resolved if it can be: the claim never loaded far enough to say.
      snapshot: requestedSnapshot(o.snapshot),
      role: 'unknown',
      transports: [],
      lifecycles: [],
      profiles: [],
    },
    verdict: 'incomplete',
    reason: o.reason,
    counts: countStatuses([]),
    targets: [],
    checks: [],
  };
}

/**
 * The first claim whose implementation name equals an earlier claim's ignoring case, as one
 * line: on a case-insensitive file system `Acme` and `acme` are one report folder.
 */
function sameNameIgnoringCase(outcomes: readonly ClaimOutcome[]): string | undefined {
  const seen = new Map<string, { name: string; file: string }>();
  for (const o of outcomes) {
    const [name, file] =
      o.kind === 'ok'
        ? [o.claim.implementation.name, show(o.claim.file)]
        : o.kind === 'incomplete'
          ? [o.implementation?.name, o.file]
          : [];
    if (name === undefined || file === undefined) continue;
    const earlier = seen.get(name.toLowerCase());
    if (earlier) {
      return (
        `${file}: implementation.name "${name}" is the name in ${earlier.file} ("${earlier.name}")${earlier.name === name ? '' : ' ignoring case'}; ` +
        'each claim of a run needs a name of its own (it is the report folder)'
      );
    }
    seen.set(name.toLowerCase(), { name, file });
  }
  return undefined;
}

/**
 * The first claim that would get another claim's bearer token, as one line: its `passEnv`
 * names that claim's token variable, or it names the same token variable itself.
 */
function anotherClaimsToken(outcomes: readonly ClaimOutcome[]): string | undefined {
  const claims = outcomes.flatMap((o) => (o.kind === 'ok' ? [o.claim] : []));
  const owners = new Map<string, ResolvedClaim>();
  for (const c of claims) {
    // The event token and the upload receiver's own token (backend.upload.auth).
    const tokens: [string, string | undefined][] = [
      ['backend.http.auth.tokenEnv', c.backend?.http?.tokenEnv],
      ['backend.upload.auth.tokenEnv', c.backend?.upload?.tokenEnv],
    ];
    for (const [where, t] of tokens) {
      if (t === undefined) continue;
      const first = owners.get(t);
      if (first && first !== c) {
        return (
          `${show(c.file)}: ${where} ${t} is the token variable of ${show(first.file)} too; ` +
          'each claim of a run needs a token variable of its own (an implementation gets only its own token)'
        );
      }
      owners.set(t, c);
    }
  }
  for (const c of claims) {
    const lists: [string, readonly string[] | undefined][] = [
      ['backend.stdio.passEnv', c.backend?.stdio?.passEnv],
      ['backend.http.passEnv', c.backend?.http?.passEnv],
      ['harness.passEnv', c.harness?.passEnv],
    ];
    for (const [where, names] of lists) {
      for (const n of names ?? []) {
        const owner = owners.get(n);
        if (owner && owner !== c)
          return `${show(c.file)}: ${where}: ${n} is the token variable of ${show(owner.file)}; no claim gets another claim's token`;
      }
    }
  }
  return undefined;
}

/** The first claim whose working folder is the reports folder or inside it, as one line. */
function workingFolderInReports(outcomes: readonly ClaimOutcome[], reportsDir: string): string | undefined {
  for (const o of outcomes) {
    if (o.kind !== 'ok') continue;
    const problem = workingFolderProblem(o.claim, [{ what: 'the reports folder', path: reportsDir }]);
    if (problem) return `${show(o.claim.file)}: ${problem}`;
  }
  return undefined;
}

function newPlan(
  claims: ResolvedClaim[],
  options: Record<string, string>,
  reportsDir: string,
  hiddenReportsDir = reportsDir,
  timeoutMs?: number,
): RunPlan {
  const names = claims.map((c) => c.implementation.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup)
    throw new UsageError(`two claims name the implementation "${dup}"; their reports would overwrite each other`);
  return {
    runnerVersion: packageVersion(),
    createdAt: new Date().toISOString(),
    reportsDir,
    ...(hiddenReportsDir !== reportsDir ? { hiddenReportsDir } : {}),
    cwd: process.cwd(),
    ...selectionOf(options),
    ...(options['full-transcripts'] ? { fullTranscripts: true } : {}),
    ...(repeatOf(options) > 1 ? { repeat: repeatOf(options) } : {}),
    // Filled in by runPlan, which owns the folder's lifetime.
    workDir: '',
    containment: containment(),
    claims: claims.map((claim) => ({
      // --timeout-ms: every wait of the run derives from it (src/timing.ts), and the results record it.
      claim: timeoutMs === undefined ? claim : { ...claim, timeoutMs },
      reportDir: join(reportsDir, claim.implementation.name),
      // Hashed now, before anything is launched: the bytes the run tests.
      implementationFiles: implementationFiles(claim),
      ...(timeoutMs === undefined ? {} : { timeoutMsOverride: { claim: claim.timeoutMs, run: timeoutMs } }),
    })),
  };
}

/** A user's regular expression as the run compiles it (src/results/check-title.ts), refused when it does not compile. */
function checkRegExp(option: string, text: string): void {
  try {
    selectionRegExp(text);
  } catch (e) {
    throw new UsageError(
      `--${option} ${JSON.stringify(text)} is not a regular expression: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`,
    );
  }
}

const REPORTERS = ['list', 'line', 'dot', 'json'];

/** `{ selection }` when --grep or --grep-invert selects checks. */
function selectionOf(options: Record<string, string>): Pick<RunPlan, 'selection'> {
  const selection = {
    ...(options.grep !== undefined ? { grep: options.grep } : {}),
    ...(options['grep-invert'] !== undefined ? { grepInvert: options['grep-invert'] } : {}),
  };
  return Object.keys(selection).length ? { selection } : {};
}

/** Every run option checked before anything is loaded or started; the Playwright arguments they become. */
function playwrightArgs(options: Record<string, string>): string[] {
  const workers = options.workers;
  if (workers !== undefined) {
    const m = /^(\d+)(%?)$/.exec(workers);
    const n = m ? Number(m[1]) : NaN;
    if (!m || n < 1 || (m[2] && n > 100))
      throw new UsageError(
        `--workers takes a number of at least 1 or a percentage of the cores, 1% to 100% (got "${workers}")`,
      );
  }
  for (const o of ['grep', 'grep-invert']) if (options[o] !== undefined) checkRegExp(o, options[o]);
  if (options.retries !== undefined && !/^\d{1,2}$/.test(options.retries))
    throw new UsageError(`--retries takes a number from 0 to 99 (got "${options.retries}")`);
  if (options.x && options['max-failures'] !== undefined)
    throw new UsageError('-x is --max-failures 1: pass one of them');
  const maxFailures = options.x ? '1' : options['max-failures'];
  if (maxFailures !== undefined && !/^[1-9]\d{0,5}$/.test(maxFailures))
    throw new UsageError(`--max-failures takes a number of at least 1 (got "${maxFailures}")`);
  if (options.reporter !== undefined && !REPORTERS.includes(options.reporter))
    throw new UsageError(`--reporter takes ${REPORTERS.join(', ')} (got "${options.reporter}")`);
  if (options.reporter !== undefined && options.quiet)
    throw new UsageError('--quiet prints no progress: pass it or --reporter');
  // --grep and --grep-invert are not Playwright's here: the plan records them and the
  // config selects the checks by their titles (src/engine/plan.ts, selectedProjects).
  return [
    ...(workers ? ['--workers', workers] : []),
    ...(options.retries ? ['--retries', options.retries] : []),
    ...(maxFailures ? ['--max-failures', maxFailures] : []),
  ];
}

/** What the config reads besides the plan: the progress reporter (`--reporter`, `--quiet`) and the certification. */
function progressEnv(options: Record<string, string>): NodeJS.ProcessEnv {
  const progress = options.quiet ? 'quiet' : options.reporter;
  return {
    ...(progress ? { AHP_PROGRESS: progress } : {}),
    ...(options.certify ? { [FLAKY_FAILS_ENV]: '1' } : {}),
  };
}

/** `--repeat N`: how many times every check runs (1: once, as without it). */
function repeatOf(options: Record<string, string>): number {
  const text = options.repeat;
  if (text === undefined) return 1;
  const n = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 100)) throw new UsageError(`--repeat takes a number from 1 to 100 (got "${text}")`);
  if (options.certify && n > 1)
    throw new UsageError(
      '--certify accepts no --repeat (a certificate is of one run of each check; --repeat finds verdicts that differ between runs)',
    );
  return n;
}

/** `--timeout-ms`: a deadline for every claim's exchanges instead of its own `timeoutMs` (recorded in the results). */
function timeoutOverride(options: Record<string, string>): number | undefined {
  const text = options['timeout-ms'];
  if (text === undefined) return undefined;
  if (options.certify)
    throw new UsageError(
      '--certify accepts no --timeout-ms (a certificate is of the claim as written, its own timeoutMs)',
    );
  const n = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  // The claim schema's bounds: the override may say no more than a claim could.
  const schema = JSON.parse(readFileSync(join(packageRoot(), 'schemas', 'claim.schema.json'), 'utf8')) as {
    properties: { timeoutMs: { minimum: number; maximum: number } };
  };
  const { minimum, maximum } = schema.properties.timeoutMs;
  if (!(n >= minimum && n <= maximum))
    throw new UsageError(
      `--timeout-ms takes milliseconds from ${minimum} to ${maximum}, like a claim's timeoutMs (got "${text}")`,
    );
  return n;
}

/**
 * Start Playwright on a plan and return what its reporter recorded (a shard records nothing:
 * its blob report is the outcome). The plan, the outcome, Playwright's output and the
 * per-check folders live in a run folder of this run's own (src/engine/run-folder.ts), made
 * here and removed at the end: a run started beside this one never reads them.
 */
async function runPlan(
  plan: RunPlan,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; outcome?: RunOutcome; warnings: string[]; stderr: string }> {
  const folder = makeRunFolder();
  let result: { code: number; outcome?: RunOutcome; stderr: string };
  let left: string | undefined;
  try {
    plan.workDir = folder.root;
    writePlan(plan, folder.plan);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, [RUN_FOLDER_ENV]: folder.root };
    delete childEnv[MERGE_ENV];
    // Ctrl+C or a SIGTERM ends Playwright first, so that this run still removes its folder and lock.
    const { code, output } = await runPlaywright('test', args, childEnv, false, true, true);
    const outcome = readRunOutcome(folder.outcome);
    result = { code, stderr: output, ...(outcome ? { outcome } : {}) };
  } finally {
    // Never throws: what the implementations left that cannot be removed is a warning of the run.
    left = removeRunFolder(folder);
  }
  return { ...result, warnings: left ? [left] : [] };
}

/**
 * An error of the runner itself (a module that did not load, a worker that died, a reporter
 * that threw): one line and exit 3, whatever else the run printed; it judged nothing.
 */
function internalError(message: string, io: Io): number {
  io.err(terminalLine(`ahp-conformance: internal error: ${message} (no verdict written)`));
  return EXIT.internal;
}

/** The first error line of what Playwright printed on stderr (its stack is not shown). */
const firstErrorLine = (stderr: string): string | undefined =>
  stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /^[A-Za-z]*Error\b/.test(l));

/** Playwright's stderr of a run that did not break, relayed when it ended (runPlaywright keeps it). */
function relayStderr(stderr: string): void {
  if (stderr && !process.stderr.destroyed) process.stderr.write(terminalText(stderr));
}

/** Why a Playwright run judged nothing, when it did not: the runner's own error. */
function runFailure(
  outcome: RunOutcome | undefined,
  code: number,
  stderr: string,
  claims?: number,
): string | undefined {
  if (outcome?.internalError !== undefined) return outcome.internalError;
  if (outcome && (claims === undefined || outcome.claims.length === claims)) return undefined;
  const why = firstErrorLine(stderr) ?? outcome?.error;
  return `no results were recorded (Playwright exited with ${code}${why ? `: ${why}` : ''})`;
}

/** Each claim's results with the run's warnings (a clean-up that failed), said once on stderr too. */
function withWarnings(claims: ClaimResults[], warnings: readonly string[], io: Io): ClaimResults[] {
  for (const w of warnings) io.err(terminalLine(`ahp-conformance: warning: ${w}`));
  if (!warnings.length) return claims;
  return claims.map((r) => ({ ...r, run: { ...r.run, warnings: [...(r.run?.warnings ?? []), ...warnings] } }));
}

const certifying = (plan: RunPlan, verb: string): string => {
  const targets = plannedProjects(plan).length;
  return (
    `ahp-conformance ${plan.runnerVersion}: ${verb} ${plan.claims.map(({ claim: c }) => `${c.implementation.name} ${c.implementation.version} by ${snapshotName(snapshotSummary(c.snapshot, c.snapshotRequested))}`).join(', ')} ` +
    `(${targets} target${targets === 1 ? '' : 's'})`
  );
};

/** What --timeout-ms replaced, said once at the start (results.json and the report record it per claim). */
const overrideLine = (plan: RunPlan): string =>
  terminalLine(
    `--timeout-ms ${plan.claims[0]?.timeoutMsOverride?.run}: replaces timeoutMs ${plan.claims.map((c) => `${c.timeoutMsOverride?.claim} of ${c.claim.implementation.name}`).join(', ')} (recorded in the results)`,
  );

/**
 * One shard of a run: Playwright's own `--shard i/n` over the same plan, writing only a
 * blob report (reports/blob/<i>-of-<n>/shard-<i>-of-<n>.zip). A shard gives no verdict:
 * `merge` judges the shards together, so options that judge belong there.
 */
async function runShard(
  shard: Shard,
  outcomes: ClaimOutcome[],
  options: Record<string, string>,
  reportsDir: string,
  io: Io,
): Promise<number> {
  const accepting = ['baseline', 'expected-failures', 'certify', 'allow-weak-containment'].filter(
    (o) => options[o] !== undefined,
  );
  if (accepting.length)
    throw new UsageError(
      `a shard gives no verdict: pass ${accepting.map((o) => `--${o}`).join(', ')} to \`ahp-conformance merge\``,
    );
  const incomplete = outcomes.filter(
    (o): o is Extract<ClaimOutcome, { kind: 'incomplete' }> => o.kind === 'incomplete',
  );
  for (const o of incomplete)
    io.err(
      terminalLine(`ahp-conformance: ${o.file}: incomplete claim: ${o.reason} (every shard needs complete claims)`),
    );
  if (incomplete.length) return EXIT.badInput;
  const plan = newPlan(
    outcomes.flatMap((o) => (o.kind === 'ok' ? [o.claim] : [])),
    options,
    reportsDir,
    reportsDir,
    timeoutOverride(options),
  );
  const label = shardLabel(shard);
  const blobDir = join(reportsDir, 'blob', label);
  const blob = join(blobDir, `shard-${label}.zip`);
  // A shard writes only its blob: it locks only that folder, so the shards of one run may
  // share a reports folder, and the same shard twice at once may not.
  const release = lockReports(
    blobDir,
    `shard ${shard.current}/${shard.total} of ${claimsWritten(lockClaims(outcomes))}`,
    io,
  );
  if (!release) return EXIT.badInput;
  let code: number;
  let warnings: string[] = [];
  let failure: string | undefined;
  try {
    rmSync(blob, { force: true });
    io.out(terminalLine(`${certifying(plan, 'certifying')}, shard ${shard.current}/${shard.total}`));
    if (plan.claims.some((c) => c.timeoutMsOverride)) io.out(overrideLine(plan));
    // The plan deals the checks to shards by cost (src/engine/shards.ts): Playwright's own --shard is not used.
    // A shard may get no check (more shards than checks): it still leaves its (empty) blob.
    let outcome: RunOutcome | undefined;
    let stderr: string;
    ({ code, warnings, outcome, stderr } = await runPlan(plan, [...playwrightArgs(options), '--pass-with-no-tests'], {
      ...progressEnv(options),
      [SHARD_ENV]: `${shard.current}/${shard.total}`,
    }));
    failure = runFailure(outcome, code, stderr);
    if (failure === undefined) relayStderr(stderr);
    // A blob of a run that broke is no shard of a run: merge never sees it.
    else rmSync(blob, { force: true });
  } finally {
    release();
  }
  withWarnings([], warnings, io);
  if (failure !== undefined) return internalError(failure, io);
  if (!existsSync(blob)) {
    io.err(
      terminalLine(
        `ahp-conformance: shard ${shard.current}/${shard.total} wrote no blob report (Playwright exited with ${code})`,
      ),
    );
    return EXIT.internal;
  }
  io.out(terminalLine(`shard ${shard.current}/${shard.total} -> ${show(blob)}`));
  io.out(`gather every shard's blob report, then: ahp-conformance merge <folder or .zip>... [--reports <dir>]`);
  return EXIT.ok;
}

/** The claims of a run as its lock names them. */
const lockClaims = (outcomes: readonly ClaimOutcome[]): { name?: string; file: string }[] =>
  outcomes.flatMap((o) =>
    o.kind === 'ok'
      ? [{ name: o.claim.implementation.name, file: show(o.claim.file) }]
      : o.kind === 'incomplete'
        ? [{ ...(o.implementation ? { name: o.implementation.name } : {}), file: o.file }]
        : [],
  );

/**
 * `run --list`: the checks the run would run (after --grep and --grep-invert), per target,
 * listed by Playwright's own `--list` over the same plan. Nothing is started, and
 * nothing is written but the run's private folder: it takes no lock of the reports folder.
 */
async function listRun(
  outcomes: ClaimOutcome[],
  options: Record<string, string>,
  reportsDir: string,
  io: Io,
): Promise<number> {
  let exit: number = EXIT.ok;
  for (const o of outcomes) {
    if (o.kind !== 'incomplete') continue;
    io.out(terminalLine(`${o.file}: incomplete claim: ${o.reason} (no check would run)`));
    exit = EXIT.badInput;
  }
  const claims = outcomes.flatMap((o) => (o.kind === 'ok' ? [o.claim] : []));
  if (claims.length === 0) return exit;
  // Each check once, whatever --repeat says: the repetitions are of the same checks.
  const { repeat: _repeat, ...once } = options;
  const plan = newPlan(claims, once, reportsDir, reportsDir, timeoutOverride(options));
  // The plan carries --grep and --grep-invert (newPlan): the config selects by them.
  // A selection that leaves nothing lists nothing (Playwright would call it an error).
  // Our listing names each check's target, as the progress lines do (src/results/listing.ts).
  const listing = join(packageRoot(), 'dist', 'src', 'results', 'listing.js');
  const { code, warnings, stderr } = await runPlan(plan, ['--list', '--reporter', listing, '--pass-with-no-tests'], {});
  withWarnings([], warnings, io);
  if (code !== 0) {
    const why = firstErrorLine(stderr);
    return internalError(`listing the checks failed (Playwright exited with ${code}${why ? `: ${why}` : ''})`, io);
  }
  relayStderr(stderr);
  return exit;
}

export async function runCommand(files: string[], options: Record<string, string>, given: Io): Promise<number> {
  // Playwright's json reporter owns stdout: our own lines go to stderr then.
  const io: Io = options.reporter === 'json' ? { out: given.err, err: given.err } : given;
  if (files.length === 0) throw new UsageError('run needs at least one claim file');
  // Every option is checked before a claim is read or a process starts.
  const args = playwrightArgs(options);
  if (options['allow-weak-containment'] !== undefined && options.certify === undefined)
    throw new UsageError('--allow-weak-containment relaxes --certify only: pass both or neither');
  const timeoutMs = timeoutOverride(options);
  repeatOf(options);
  const shard = options.shard !== undefined ? parseShard(options.shard) : undefined;
  if (typeof shard === 'string') throw new UsageError(shard);
  if (options.list && shard) throw new UsageError('--list lists every check of the run: pass it or --shard');
  if (options['sign-key'] !== undefined && shard)
    throw new UsageError('--sign-key signs what merge writes: pass it to `ahp-conformance merge`, not to a shard');
  // A key that is not one is refused before a claim is read (prepareAcceptance keeps the one it loads).
  if (options['sign-key'] !== undefined) loadSigningKey(options['sign-key']);
  // Pinned once (links resolved): later opens under it refuse a link planted there (src/safe-fs.ts).
  const reportsDir = canonicalPath(options.reports ?? 'reports');
  const outcomes = files.map((f) => loadClaim(f));
  const errors = outcomes.filter((o): o is Extract<ClaimOutcome, { kind: 'error' }> => o.kind === 'error');
  for (const line of errors.flatMap((e) => e.messages)) io.err(terminalLine(`ahp-conformance: ${line}`));
  if (errors.length) return EXIT.badInput;
  const clash =
    sameNameIgnoringCase(outcomes) ?? anotherClaimsToken(outcomes) ?? workingFolderInReports(outcomes, reportsDir);
  if (clash) {
    io.err(terminalLine(`ahp-conformance: ${clash}`));
    return EXIT.badInput;
  }
  if (options.list) return listRun(outcomes, options, reportsDir, io);
  if (shard) return runShard(shard, outcomes, options, reportsDir, io);

  const criteria = prepareAcceptance(options, ['grep', 'grep-invert']);
  // Refused before anything starts: a certification runs in the sandbox unless told otherwise.
  if (criteria.certification && !criteria.allowWeakContainment && containment().kind !== 'sandbox')
    throw new UsageError(weakContainmentRefusal(containment()));
  // One run at a time writes a reports folder (src/engine/reports-lock.ts): taken before
  // anything in it is read or written, so a second run leaves it as the first one writes it.
  const release = lockReports(reportsDir, `run of ${claimsWritten(lockClaims(outcomes))}`, io);
  if (!release) return EXIT.badInput;
  try {
    return await runLocked(outcomes, options, reportsDir, criteria, args, timeoutMs, io);
  } finally {
    release();
  }
}

/** The rest of `run`, holding the reports folder's lock. */
async function runLocked(
  outcomes: ClaimOutcome[],
  options: Record<string, string>,
  reportsDir: string,
  criteria: AcceptanceCriteria,
  args: string[],
  timeoutMs: number | undefined,
  io: Io,
): Promise<number> {
  // A partial run never replaces a full run's report (src/cli/report-layout.ts).
  const viewsDir = viewsFolder(
    reportsDir,
    outcomes.flatMap((o) =>
      o.kind === 'ok'
        ? [o.claim.implementation.name]
        : o.kind === 'incomplete'
          ? [o.implementation?.name ?? 'unknown']
          : [],
    ),
    criteria.selection !== undefined,
  );
  if (viewsDir !== reportsDir)
    io.out(terminalLine(`a partial run (--grep): the full report stays; this run's reports -> ${show(viewsDir)}`));
  const claimDirs = outcomes.flatMap((o) => (o.kind === 'ok' ? [join(viewsDir, o.claim.implementation.name)] : []));
  const playwrightDir = playwrightReportDir(viewsDir, claimDirs);
  const contextFor = (dir: string) => reportContext(reportsDir, viewsDir, playwrightDir, dir);
  let exit: number = EXIT.ok;
  const written: { results: ClaimResults; dir: string }[] = [];
  // Written after the run, which may end in the runner's own error: then nothing is written.
  const writeIncomplete = (): void => {
    for (const o of outcomes) {
      if (o.kind !== 'incomplete') continue;
      const results = { ...incompleteResults(o), run: { certification: criteria.certification } };
      const dir = join(viewsDir, results.claim.implementation.name);
      // Nothing of an incomplete claim runs, so Playwright's report has nothing of it to link to.
      writeClaimResults(dir, results, {}, undefined, { ...contextFor(dir), playwrightHref: undefined });
      written.push({ results, dir });
      io.out(terminalLine(`${o.file}: incomplete claim: ${o.reason}`));
      io.out(summaryLine(results, show(dir)));
      exit = EXIT.badInput;
    }
  };
  const claims = outcomes.flatMap((o) => (o.kind === 'ok' ? [o.claim] : []));
  if (claims.length === 0) {
    writeIncomplete();
    finishReports(reportsDir, viewsDir, playwrightDir, written);
    return exit;
  }
  const plan = newPlan(claims, options, viewsDir, reportsDir, timeoutMs);
  if (criteria.expected?.length && markedForPlaywright(args)) plan.expectedFailures = criteria.expected;
  io.out(terminalLine(certifying(plan, 'certifying')));
  if (timeoutMs !== undefined) io.out(overrideLine(plan));
  const before = reportStamp(playwrightDir);
  const { code, outcome, warnings, stderr } = await runPlan(plan, args, progressEnv(options));
  const failure = runFailure(outcome, code, stderr, plan.claims.length);
  if (failure === undefined) relayStderr(stderr);
  else {
    // The runner broke, not the implementation: no verdict, and no report of this run (docs/cli.md).
    withWarnings([], warnings, io);
    removeReportWritten(playwrightDir, before);
    return internalError(failure, io);
  }
  writeIncomplete();
  const recorded = withWarnings(outcome!.claims, warnings, io);
  exit = Math.max(
    exit,
    conclude(
      recorded.map((results, i) => ({ results, reportDir: plan.claims[i]!.reportDir })),
      criteria,
      io,
      written,
      contextFor,
    ),
  );
  const matrix = finishReports(reportsDir, viewsDir, playwrightDir, written);
  if (written.length > 1) io.out(terminalLine(`matrix of ${written.length} implementations -> ${show(matrix)}`));
  return exit;
}
