// `ahp-conformance run <claim.yaml>... [--grep re] [--grep-invert re] [--workers n] [--reports dir]`:
// load the claims, write a run plan, run the suites through Playwright Test, and sum up.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { loadClaim, type ClaimOutcome } from '../claims/load.js';
import { planFile, sharedRunsDir, plannedProjects, PLAN_ENV, writePlan, type RunPlan } from '../engine/plan.js';
import { packageRoot, packageVersion } from '../package-root.js';
import { countStatuses, RESULTS_SCHEMA_VERSION, stableJson, targetLabel, type ClaimResults } from '../results/model.js';
import { writeClaimResults, writeMatrix } from '../results/write.js';
import { checkKey, compareRuns, type CheckChange } from '../results/baseline.js';
import { applyExpectedFailures, ExpectedFailuresError, expectedFailuresFail, parseExpectedFailures, type ExpectedFailure, type ExpectedOutcome } from '../results/expected-failures.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';

function incompleteResults(o: Extract<ClaimOutcome, { kind: 'incomplete' }>): ClaimResults {
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    runner: { name: 'ahp-conformance', version: packageVersion() },
    generatedAt: new Date().toISOString(),
    claim: {
      file: resolve(o.file), implementation: o.implementation ?? { name: 'unknown', version: 'unknown' },
      snapshot: 'draft', role: 'unknown', transports: [], lifecycles: [], profiles: [],
    },
    verdict: 'incomplete',
    reason: o.reason,
    counts: countStatuses([]),
    targets: [],
    checks: [],
  };
}

/**
 * `name version: verdict (counts) -> dir`, or `: reason` for an incomplete claim; with
 * more than one target, each target's verdict follows (`; backend/http conformant, ...`).
 */
export function summaryLine(r: ClaimResults, dir: string): string {
  const c = r.counts;
  const parts = [`${c.passed} passed`, `${c.failed} failed`, c.warning ? `${c.warning} warning${c.warning > 1 ? 's' : ''}` : '',
    c['not-applicable'] ? `${c['not-applicable']} not applicable` : '', c.skipped ? `${c.skipped} skipped` : ''].filter(Boolean);
  const targets = (r.targets ?? []).length > 1 ? r.targets.map((t) => `${targetLabel(t)} ${t.verdict}`).join(', ') : '';
  const reason = r.reason ? `: ${r.reason}${targets ? ` (${targets})` : ''}` : ` (${parts.join(', ')}${targets ? `; ${targets}` : ''})`;
  return `${r.claim.implementation.name} ${r.claim.implementation.version}: ${r.verdict}${reason} -> ${dir}`;
}

/** Baseline results by implementation name: a results.json file, or an earlier reports folder. */
function loadBaselines(path: string): (implementation: string) => ClaimResults | undefined {
  const read = (file: string): ClaimResults | undefined => {
    try {
      const r = JSON.parse(readFileSync(file, 'utf8')) as ClaimResults;
      if (!r || !Array.isArray(r.checks) || !r.claim?.implementation?.name) throw new Error('not a results.json');
      return r;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
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
      if (!cache.has(name)) cache.set(name, read(join(path, name, 'results.json')));
      return cache.get(name);
    };
    return all;
  }
  const one = read(path);
  return (name) => (one?.claim.implementation.name === name ? one : undefined);
}

function loadExpectedFailures(path: string): ExpectedFailure[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`--expected-failures: cannot read ${path}`);
  }
  try {
    return parseExpectedFailures(text, path);
  } catch (e) {
    if (e instanceof ExpectedFailuresError) throw new UsageError(e.message);
    throw e;
  }
}

function expectedLine(o: ExpectedOutcome): string {
  const ids = (list: { check: string }[]): string => (list.length ? ` (${list.map((e) => e.check).join(', ')})` : '');
  return `${o.matched.length} matched, ${o.unexpected.length} unexpected${ids(o.unexpected.map((c) => ({ check: c.id })))}, ` +
    `${o.expired.length} expired${ids(o.expired)}, ${o.stale.length} no longer failing${ids(o.stale)}`;
}

function regressionLine(changes: readonly CheckChange[]): string {
  const of = (kind: CheckChange['change']): CheckChange[] => changes.filter((c) => c.change === kind);
  const fresh = of('new-failure');
  return [
    `${fresh.length} new failure${fresh.length === 1 ? '' : 's'}${fresh.length ? ` (${fresh.map((c) => c.key.trim()).join(', ')})` : ''}`,
    `${of('fixed').length} fixed`, `${of('still-failing').length} still failing`, `${of('new-check').length} new checks`, `${of('removed-check').length} removed`,
  ].join(', ');
}

export async function runCommand(files: string[], options: Record<string, string>, io: Io): Promise<number> {
  if (files.length === 0) throw new UsageError('run needs at least one claim file');
  if (options.workers !== undefined && !/^(\d+|\d+%)$/.test(options.workers)) throw new UsageError('--workers takes a number or a percentage');
  const reportsDir = resolve(options.reports ?? 'reports');
  const outcomes = files.map((f) => loadClaim(f));
  const errors = outcomes.filter((o): o is Extract<ClaimOutcome, { kind: 'error' }> => o.kind === 'error');
  for (const e of errors) io.err(`ahp-conformance: ${e.message}`);
  if (errors.length) return EXIT.badInput;

  if (options.certify !== undefined) {
    // A certificate is the verdict of a complete run, with nothing excused.
    const relaxing = ['expected-failures', 'baseline', 'grep', 'grep-invert'].filter((o) => options[o] !== undefined);
    if (relaxing.length) throw new UsageError(`--certify accepts no ${relaxing.map((o) => `--${o}`).join(', ')} (a certificate covers every check, with no expected failures)`);
  }
  const expected = options['expected-failures'] ? loadExpectedFailures(resolve(options['expected-failures'])) : undefined;
  // Read before the run: the baseline may be this very reports folder.
  const baselines = options.baseline ? loadBaselines(resolve(options.baseline)) : undefined;
  let exit: number = EXIT.ok;
  const show = (dir: string): string => {
    const rel = relative(process.cwd(), dir);
    return rel === '' ? '.' : rel.startsWith('..') ? dir : rel;
  };
  const written: { results: ClaimResults; dir: string }[] = [];
  for (const o of outcomes) {
    if (o.kind !== 'incomplete') continue;
    const results = incompleteResults(o);
    const dir = join(reportsDir, results.claim.implementation.name);
    writeClaimResults(dir, results);
    written.push({ results, dir });
    io.out(`${o.file}: incomplete claim: ${o.reason}`);
    io.out(summaryLine(results, show(dir)));
    exit = EXIT.badInput;
  }
  const claims = outcomes.flatMap((o) => (o.kind === 'ok' ? [o.claim] : []));
  if (claims.length === 0) {
    if (written.length > 1) writeMatrix(reportsDir, written);
    return exit;
  }
  const names = claims.map((c) => c.implementation.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UsageError(`two claims name the implementation "${dup}"; their reports would overwrite each other`);

  const plan: RunPlan = {
    runnerVersion: packageVersion(),
    createdAt: new Date().toISOString(),
    reportsDir,
    claims: claims.map((claim) => ({ claim, reportDir: join(reportsDir, claim.implementation.name) })),
  };
  for (const c of plan.claims) rmSync(join(c.reportDir, 'results.json'), { force: true });
  rmSync(sharedRunsDir(reportsDir), { recursive: true, force: true });
  const file = planFile(reportsDir);
  writePlan(plan, file);
  io.out(`ahp-conformance ${plan.runnerVersion}: certifying ${claims.map((c) => `${c.implementation.name} ${c.implementation.version}`).join(', ')} ` +
    `(${plannedProjects(plan).length} target${plannedProjects(plan).length === 1 ? '' : 's'})`);

  const root = packageRoot();
  const cli = createRequire(join(root, 'package.json')).resolve('@playwright/test/cli');
  const args = [cli, 'test', '-c', join(root, 'playwright.config.ts')];
  if (options.grep) args.push('--grep', options.grep);
  if (options['grep-invert']) args.push('--grep-invert', options['grep-invert']);
  if (options.workers) args.push('--workers', options.workers);
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, [PLAN_ENV]: file } });
    child.on('exit', (c, signal) => done(c ?? (signal ? 130 : 1)));
    child.on('error', () => done(-1));
  });
  // Shared harness runs hold adapter output: they live only as long as the run.
  rmSync(sharedRunsDir(reportsDir), { recursive: true, force: true });

  for (const { claim, reportDir } of plan.claims) {
    const path = join(reportDir, 'results.json');
    if (!existsSync(path)) {
      io.err(`ahp-conformance: no results were written for ${claim.implementation.name} (Playwright exited with ${code})`);
      exit = Math.max(exit, EXIT.internal);
      continue;
    }
    const results = JSON.parse(readFileSync(path, 'utf8')) as ClaimResults;
    written.push({ results, dir: reportDir });
    io.out(summaryLine(results, show(reportDir)));
    if (results.verdict === 'incomplete') {
      exit = Math.max(exit, EXIT.badInput);
      continue;
    }
    const outcome = expected ? applyExpectedFailures(results, expected, new Date().toISOString().slice(0, 10)) : undefined;
    if (outcome) io.out(`  expected failures: ${expectedLine(outcome)}`);
    let failing = outcome ? expectedFailuresFail(outcome) : results.verdict === 'nonconformant';
    if (baselines) {
      const before = baselines(claim.implementation.name);
      if (!before) {
        io.out(`  vs baseline: no baseline for ${claim.implementation.name}; every failure counts as new`);
      } else {
        const excused = new Set(outcome?.matched.map((m) => checkKey(m.check)) ?? []);
        const changes = compareRuns(before, results);
        writeFileSync(join(reportDir, 'regression.json'), stableJson({ baseline: options.baseline, changes }));
        io.out(`  vs baseline: ${regressionLine(changes)}`);
        // With a baseline only new failures count (expected ones excepted); a stale or expired list still fails.
        failing = changes.some((c) => c.change === 'new-failure' && !excused.has(c.key)) || (outcome ? outcome.expired.length + outcome.stale.length > 0 : false);
      }
    }
    if (failing) exit = Math.max(exit, EXIT.finding);
  }
  if (written.length > 1) io.out(`matrix of ${written.length} implementations -> ${show(writeMatrix(reportsDir, written))}`);
  return exit;
}
