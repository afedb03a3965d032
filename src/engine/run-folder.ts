// Every path under a reports folder's `.run/`: the run's private working area beside the
// reports (the plan, the outcome the reporter hands to the CLI, Playwright's output).
// `.run/` is hidden from implementations under test (drivers/containment.ts hides the
// whole reports folder) and is not a report: `run` and `merge` replace it.
import { join } from 'node:path';

export interface RunFolder {
  root: string;
  /** The run plan the config reads (src/engine/plan.ts). */
  plan: string;
  /** What the reporter recorded for the CLI to judge and render (src/results/run-record.ts). */
  outcome: string;
  /** Playwright's own outputDir (attachments of running tests). */
  playwrightOutput: string;
}

export function runFolder(reportsDir: string): RunFolder {
  const root = join(reportsDir, '.run');
  return {
    root,
    plan: join(root, 'plan.json'),
    outcome: join(root, 'outcome.json'),
    playwrightOutput: join(root, 'playwright-output'),
  };
}

/**
 * Where Playwright's HTML report of a run goes: beside the claim's results for one claim,
 * else one shared report in the reports folder (a merge learns its claims only from the
 * blobs, so it always shares). The config writes it there and the claim reports link to it.
 */
export function playwrightReportDir(reportsDir: string, claimDirs: readonly string[] | undefined): string {
  return claimDirs?.length === 1 ? join(claimDirs[0]!, 'playwright') : join(reportsDir, 'playwright');
}
