// Conformance suites: Playwright Test is the engine that runs the checks of a claim.
// `ahp-conformance run` writes a run plan and starts Playwright with this config; each
// (claim, role, transport, lifecycle) becomes a project, fixtures launch the
// implementation under test, and reporters write results.json, JUnit and the HTML report.
// A shard (`run --shard i/n`) writes only a blob report; `ahp-conformance merge` runs
// `playwright merge-reports` with this config again, and the same reporters write the
// merged reports (src/engine/shards.ts).
// (The self-tests of this tool use test/playwright.config.ts.)
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { join } from 'node:path';
import { planFromEnv, plannedProjects, PLAN_ENV } from './src/engine/plan.js';
import { checkTimeLimitMs } from './src/timing.js';
import { MERGE_ENV, parseShard, runMetadata, shardLabel, SHARD_ENV } from './src/engine/shards.js';

const plan = planFromEnv();
const projects = plan ? plannedProjects(plan) : [];
const longestDeadline = Math.max(2000, ...(plan?.claims.map((c) => c.claim.timeoutMs) ?? []));
const merging = process.env[MERGE_ENV];
const reportsDir = merging ?? plan?.reportsDir ?? join(process.cwd(), 'reports');
const shardText = process.env[SHARD_ENV];
const parsed = shardText ? parseShard(shardText) : undefined;
const shard = typeof parsed === 'object' ? parsed : undefined;
// One claim: its Playwright report sits beside its results; several, or a merge (the
// claims are known only once the blobs are read): one shared report.
const htmlDir = !merging && plan && plan.claims.length === 1 ? join(plan.claims[0]!.reportDir, 'playwright') : join(reportsDir, 'playwright');
const progress: ReporterDescription = [process.env.AHP_PROGRESS === 'line' ? 'line' : 'list'];

const reporter: ReporterDescription[] = shard
  ? [progress, ['blob', { outputDir: join(reportsDir, 'blob', shardLabel(shard)), fileName: `shard-${shardLabel(shard)}.zip` }]]
  : [...(merging ? [] : [progress]), ['./src/results/reporter.ts'], ['html', { outputFolder: htmlDir, open: 'never' }]];

export default defineConfig({
  testDir: './suites',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  timeout: checkTimeLimitMs(longestDeadline),
  outputDir: join(reportsDir, '.run', 'playwright-output'),
  reporter,
  metadata: plan ? runMetadata(plan, shard) : {},
  projects: projects.map((p) => ({ name: p.name, metadata: { target: p.target, plan: process.env[PLAN_ENV] } })),
});
