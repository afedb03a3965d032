// A check's workspace on disk: the per-check TMPDIR an implementation under test may
// write, inside the run's work folder, and the confinement its processes run under
// (drivers/containment.ts). The run's work folder and the reports folder are hidden from
// every implementation: verdicts, the run plan and other checks' files are out of reach;
// the runner's own folder is read-only for every implementation.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Confinement } from '../../drivers/containment.js';
import { packageRoot } from '../package-root.js';
import { cleanUp } from '../safe-fs.js';

export interface RunFolders {
  /** The run's work folder (per-check folders live here); hidden from implementations. */
  workDir: string;
  /** Where verdicts are written; hidden from implementations. */
  reportsDir: string;
}

export interface CheckWorkspace {
  /** The check's own folder: the implementation's TMPDIR, writable, removed after the check. */
  readonly dir: string;
  /** Contain a launch: writable are this check's folder and `alsoWritable` (the claim's working folder). */
  confine(alsoWritable: readonly string[], supervise?: boolean): Confinement;
  /**
   * Remove the check's folder; never throws. What cannot be removed (a file made immutable)
   * is returned as a warning line, and stays for the run's own clean-up to report.
   */
  dispose(): string | undefined;
}

let fallbackWorkDir: string | undefined;

/** Without a run plan (self-tests): one work folder per process, removed at exit. */
function processWorkDir(): string {
  if (!fallbackWorkDir) {
    const dir = mkdtempSync(join(tmpdir(), 'ahp-work-'));
    fallbackWorkDir = dir;
    process.once('exit', () => void cleanUp(dir, 'the work folder'));
  }
  return fallbackWorkDir;
}

export function checkWorkspace(run: RunFolders | undefined): CheckWorkspace {
  const workDir = run?.workDir ?? processWorkDir();
  mkdirSync(workDir, { recursive: true });
  const dir = mkdtempSync(join(workDir, 'check-'));
  const hidden = [workDir, ...(run ? [run.reportsDir] : [])];
  return {
    dir,
    // The runner's own folder stays read-only, even when a claim's working folder holds it.
    confine: (alsoWritable, supervise = false) => ({
      writable: [dir, ...alsoWritable],
      hidden,
      readOnly: [packageRoot()],
      supervise,
    }),
    // Iterative and never following a link the implementation left (src/safe-fs.ts).
    dispose: () => cleanUp(dir, "a check's TMPDIR"),
  };
}
