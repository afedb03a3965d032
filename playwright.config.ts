// Conformance suites: Playwright Test is the engine that runs the checks of a claim.
// `ahp-conformance run` writes a run plan and starts Playwright with this config; each
// (claim, role, transport, lifecycle) becomes a project, fixtures launch the
// implementation under test, and reporters write results.json, JUnit and the HTML report.
// (The self-tests of this tool use test/playwright.config.ts.)
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { join } from 'node:path';
import { planFromEnv, plannedProjects, PLAN_ENV } from './src/engine/plan.js';

const plan = planFromEnv();
const projects = plan ? plannedProjects(plan) : [];
const longestDeadline = Math.max(2000, ...(plan?.claims.map((c) => c.claim.timeoutMs) ?? []));
const reportsDir = plan?.reportsDir ?? join(process.cwd(), 'reports');
// One claim: its Playwright report sits beside its results; several: one shared report.
const htmlDir = plan && plan.claims.length === 1 ? join(plan.claims[0]!.reportDir, 'playwright') : join(reportsDir, 'playwright');

const reporter: ReporterDescription[] = [
  [process.env.AHP_PROGRESS === 'line' ? 'line' : 'list'],
  ['./src/results/reporter.ts'],
  ['html', { outputFolder: htmlDir, open: 'never' }],
];

export default defineConfig({
  testDir: './suites',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  // A check makes a few exchanges, each bounded by the claim's deadline.
  timeout: 30_000 + 12 * longestDeadline,
  outputDir: join(reportsDir, '.run', 'playwright-output'),
  reporter,
  projects: projects.map((p) => ({ name: p.name, metadata: { target: p.target, plan: process.env[PLAN_ENV] } })),
});
