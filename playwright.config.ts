// Conformance suites: Playwright Test is the engine that runs the checks of a claim.
// `ahp-conformance run` writes a run plan into the run's private folder (AHP_RUN_FOLDER names
// it: src/engine/run-folder.ts) and starts Playwright with this config, compiled
// with everything else (dist/playwright.config.js runs dist/suites), so a run never mixes
// source and compiled code. The plan decides the checks of each (claim, role, transport,
// lifecycle), a target (src/engine/plan.ts); each (claim, role) becomes one project,
// `acme:backend`, that runs all its targets, so they share its workers (Playwright never
// shares a worker between projects, and each worker costs a start). The suites register
// every check once per target shape, in a describe titled by it (`stdio:persistent`,
// `http`: suites/support/check.ts); the project's grep collects exactly the (shape, check)
// pairs the plan wants and its `use` gives the claim and its targets of the role. The
// results reporter records them for the CLI, which judges and writes the views.
// A shard (`run --shard i/n`) collects only its share of the checks and writes a blob
// report; `ahp-conformance merge` runs `playwright merge-reports` with this config again.
// (The self-tests of this tool use test/playwright.config.ts.)
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { join } from 'node:path';
import { plannedProjects, readPlan, selectedProjects, type RunPlan } from './src/engine/plan.js';
import { defaultWorkers } from './src/engine/playwright.js';
import { playwrightReportDir, runFolder, RUN_FOLDER_ENV } from './src/engine/run-folder.js';
import { MERGE_ENV, parseShard, recordPlan, shardLabel, shardProjects, SHARD_ENV } from './src/engine/shards.js';
import { checkTimeLimitMs } from './src/timing.js';
import type { ProgressOptions } from './src/results/progress.js';
import { FLAKY_FAILS_ENV, type ResultsReporterOptions } from './src/results/reporter.js';
import { listedChecks } from './src/results/expected-failures.js';
import { shapesGrep } from './src/results/check-title.js';
import { runMetadata } from './src/results/run-record.js';
import { roleProjectName, targetShape } from './src/results/model.js';
import type { RoleProjectMetadata } from './src/results/test-target.js';
import type { SuiteOptions } from './suites/support/check.js';

// Playwright loads this config in its main process and in every worker: each reads the
// same plan file in the run's own folder, and nothing else reads it. A merge has no plan
// (the shards' blobs hold it) but a run folder of its own for the outcome.
const runDir = process.env[RUN_FOLDER_ENV];
if (!runDir) throw new Error(`${RUN_FOLDER_ENV} is not set: ahp-conformance run and merge start this config`);
const folder = runFolder(runDir);
const merging = process.env[MERGE_ENV];
const plan: RunPlan | undefined = merging ? undefined : readPlan(folder.plan);
const shardText = process.env[SHARD_ENV];
const parsed = shardText ? parseShard(shardText) : undefined;
const shard = typeof parsed === 'object' ? parsed : undefined;

const all = plan ? plannedProjects(plan) : [];
// --grep and --grep-invert select here, by check title (src/results/check-title.ts), not by
// Playwright's title path; the CLI does not pass them to Playwright.
const chosen = plan ? selectedProjects(all, plan.selection) : [];
const targets = shard ? shardProjects(chosen, shard) : chosen;
// One project per claim and role, in plan order: its targets and their checks.
const projects: { claimIndex: number; role: RoleProjectMetadata['role']; targets: typeof targets }[] = [];
for (const t of targets) {
  const { claimIndex, role } = t.target;
  const group = projects.find((p) => p.claimIndex === claimIndex && p.role === role);
  if (group) group.targets.push(t);
  else projects.push({ claimIndex, role, targets: [t] });
}
// The judgement's day (src/cli/acceptance.ts reads it the same way): an expired entry counts again.
const today = new Date().toISOString().slice(0, 10);
const longestDeadline = Math.max(2000, ...(plan?.claims.map((c) => c.claim.timeoutMs) ?? []));
const reportsDir = merging ?? plan!.reportsDir;
// One claim: its Playwright report sits beside its results; several, or a merge (the
// claims are known only once the blobs are read): one shared report.
const htmlDir = playwrightReportDir(reportsDir, merging ? undefined : plan?.claims.map((c) => c.reportDir));
// `run --reporter` and `--quiet`: list, line and dot are ours (src/results/progress.ts: the
// failure blocks a vendor needs; quiet prints nothing), json Playwright's own.
const progressName = process.env.AHP_PROGRESS ?? 'list';
const progress: ReporterDescription =
  progressName === 'json'
    ? ['json']
    : [
        './src/results/progress.js',
        {
          style: progressName === 'line' || progressName === 'dot' || progressName === 'quiet' ? progressName : 'list',
        } satisfies ProgressOptions,
      ];
const results: ResultsReporterOptions = {
  outcomeFile: folder.outcome,
  mode: merging ? 'merge' : shard ? 'shard' : 'run',
  flakyFails: process.env[FLAKY_FAILS_ENV] === '1',
  expectsChecks: projects.length > 0,
};

// Every run, a shard's too, has the results reporter: it records the runner's own errors
// (exit 3, no verdict), whatever else it records.
const reporter: ReporterDescription[] = shard
  ? [
      progress,
      ['./src/results/reporter.js', results],
      ['blob', { outputDir: join(reportsDir, 'blob', shardLabel(shard)), fileName: `shard-${shardLabel(shard)}.zip` }],
    ]
  : [
      ...(merging ? [] : [progress]),
      ['./src/results/reporter.js', results],
      ['html', { outputFolder: htmlDir, open: 'never' }],
    ];

export default defineConfig<SuiteOptions>({
  testMatch: '**/*.spec.js',
  fullyParallel: true,
  workers: defaultWorkers(),
  forbidOnly: true,
  retries: 0,
  // run --repeat N: every check N times, folded into one result by the results reporter.
  repeatEach: plan?.repeat ?? 1,
  timeout: checkTimeLimitMs(longestDeadline),
  outputDir: folder.playwrightOutput,
  reporter,
  metadata: plan ? runMetadata(recordPlan(plan, all), shard) : {},
  projects: projects.map((p) => {
    const claim = plan!.claims[p.claimIndex]!.claim;
    const byShape = p.targets.map((t) => ({ shape: targetShape(t.target), checks: t.checks }));
    return {
      name: roleProjectName(claim.implementation.name, p.role),
      testDir: `./suites/${p.role}`,
      grep: new RegExp(shapesGrep(byShape)),
      // The reporter reads the claim and role here, a test's shape from its annotation (blob
      // reports keep both), and the checks each target must collect (a suite that did not
      // load is the runner's error).
      metadata: { claimIndex: p.claimIndex, role: p.role, targets: byShape } satisfies RoleProjectMetadata,
      use: {
        claim,
        snapshot: claim.snapshot,
        targets: p.targets.map((t) => t.target),
        // --expected-failures: each target's listed checks, Playwright's expected failures.
        ...(plan!.expectedFailures
          ? {
              listed: Object.fromEntries(
                p.targets.map((t) => [
                  targetShape(t.target),
                  listedChecks(plan!.expectedFailures!, claim.implementation.name, t.target, today),
                ]),
              ),
            }
          : {}),
        runFolders: {
          workDir: plan!.workDir,
          reportsDir: plan!.hiddenReportsDir ?? plan!.reportsDir,
          containment: plan!.containment,
        },
      },
    };
  }),
});
