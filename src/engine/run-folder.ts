// A run's private work folder and every path in it: the plan, the outcome the reporter
// hands to the CLI, Playwright's output and the per-check folders (src/engine/workspace.ts).
// Each `run` and `merge` makes its own, in the system's temporary folder, mode 0700, and
// removes it at its end: two runs started together from one folder never share one (they
// once shared `reports/.run/` and swapped verdicts), and nothing an earlier or hostile run
// left in a reports folder is read as this run's. The folder is the plan's `workDir`, which
// containment hides from every implementation (drivers/containment.ts).
import { chmodSync, lstatSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp } from '../safe-fs.js';

/** The variable naming the run folder for playwright.config.ts (in `run` and in `merge`). */
export const RUN_FOLDER_ENV = 'AHP_RUN_FOLDER';

export interface RunFolder {
  root: string;
  /** The run plan the config reads (src/engine/plan.ts); none in a merge. */
  plan: string;
  /** What the reporter recorded for the CLI to judge and render (src/results/run-record.ts). */
  outcome: string;
  /** Playwright's own outputDir (attachments of running tests). */
  playwrightOutput: string;
}

/** The paths inside the run folder `root`. */
export function runFolder(root: string): RunFolder {
  return {
    root,
    plan: join(root, 'plan.json'),
    outcome: join(root, 'outcome.json'),
    playwrightOutput: join(root, 'playwright-output'),
  };
}

/**
 * A new private run folder: a fresh name (mkdtemp never reuses one), only the runner's
 * user may enter it. Refuses anything but a real folder of ours at that name.
 */
export function makeRunFolder(): RunFolder {
  const root = mkdtempSync(join(tmpdir(), 'ahp-conformance-run-'));
  // mkdtemp makes it 0700 already; said here so a umask or platform never loosens it.
  chmodSync(root, 0o700);
  const st = lstatSync(root);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()))
    throw new Error(`the run folder ${root} is not a folder of this user`);
  const folder = runFolder(root);
  // Removed at exit too, when the run ends another way (a signal while it holds the folder).
  const atExit = (): void => void removeRunFolder(folder);
  exitCleanups.set(root, atExit);
  process.once('exit', atExit);
  return folder;
}

const exitCleanups = new Map<string, () => void>();

/**
 * Remove a run folder (iteratively, never following a link out of it, src/safe-fs.ts);
 * never throws: what cannot be removed (an implementation's immutable file) is returned as
 * a warning of the run, never its failure.
 */
export function removeRunFolder(folder: RunFolder): string | undefined {
  const atExit = exitCleanups.get(folder.root);
  if (atExit) {
    exitCleanups.delete(folder.root);
    process.off('exit', atExit);
  }
  // What is left stays in the system's temporary folder, mode 0700.
  return cleanUp(folder.root, "the run's work folder");
}

/**
 * Where Playwright's HTML report of a run goes: beside the claim's results for one claim,
 * else one shared report in the reports folder (a merge learns its claims only from the
 * blobs, so it always shares). The config writes it there and the claim reports link to it.
 */
export function playwrightReportDir(reportsDir: string, claimDirs: readonly string[] | undefined): string {
  return claimDirs?.length === 1 ? join(claimDirs[0]!, 'playwright') : join(reportsDir, 'playwright');
}
