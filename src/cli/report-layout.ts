// What a run leaves in its reports folder, so that the folder never shows a stale or
// clobbered report as this run's (docs/reports.md):
// - a partial run (--grep, --grep-invert) never replaces a full run's report: when the
//   folder holds one for any of its claims, the partial run writes into `<reports>/partial/`;
// - every run writes the matrix page (reports/index.html) of its own claims, and lists the
//   reports of earlier runs still in the folder apart;
// - Playwright's report of an earlier run at a place this run does not write is removed.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ReportContext } from '../results/html/claim-page.js';
import type { EarlierReport } from '../results/html/matrix-page.js';
import type { ClaimResults } from '../results/model.js';
import { recordedClaimPath } from '../results/run-record.js';
import { MAX_RESULTS_BYTES, RESULTS_FILE, writeMatrix } from '../results/write.js';
import { PARTIAL_FOLDER } from '../claims/limits.js';
import { Folder, readRegularFile, removeTree } from '../safe-fs.js';

export { PARTIAL_FOLDER };

/** A results.json as far as these decisions need it, or undefined when there is none or it is not ours. */
function readResults(file: string): ClaimResults | undefined {
  // Not followed through a link, and bounded: the folder may hold anything a user put there.
  const read = readRegularFile(file, { maxBytes: MAX_RESULTS_BYTES });
  if (read.kind !== 'ok') return undefined;
  try {
    const r = JSON.parse(read.bytes.toString('utf8')) as ClaimResults;
    return r && typeof r.claim?.implementation?.name === 'string' && typeof r.verdict === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folder a run writes its views into: the reports folder, or for a partial run, when it
 * holds a full run's report of one of these implementations, its `partial/` subfolder.
 */
export function viewsFolder(reportsDir: string, names: readonly string[], partial: boolean): string {
  if (!partial) return reportsDir;
  const full = names.some((n) => {
    const r = readResults(join(reportsDir, n, RESULTS_FILE));
    // A run that stopped early (its coverage short) is no full report either.
    return r !== undefined && r.run?.selection === undefined && !(r.coverage && r.coverage.ran < r.coverage.needed);
  });
  if (!full) return reportsDir;
  // Made a real folder now: a symlink or file planted at partial/ is replaced, not written through.
  const root = Folder.create(reportsDir);
  try {
    root.folder(PARTIAL_FOLDER).close();
  } finally {
    root.close();
  }
  return join(reportsDir, PARTIAL_FOLDER);
}

const posix = (p: string): string => p.split(sep).join('/');

/** The links of one claim's report, and the `--reports` its rerun commands name. */
export function reportContext(
  reportsRoot: string,
  viewsDir: string,
  playwrightDir: string,
  reportDir: string,
): ReportContext {
  const name = relative(viewsDir, reportDir);
  const full = viewsDir !== reportsRoot ? join(reportsRoot, name, 'index.html') : undefined;
  return {
    matrixHref: posix(relative(reportDir, join(viewsDir, 'index.html'))),
    playwrightHref: posix(relative(reportDir, join(playwrightDir, 'index.html'))),
    reportsArg: recordedClaimPath(process.cwd(), reportsRoot),
    ...(full && existsSync(full) ? { fullReportHref: posix(relative(reportDir, full)) } : {}),
  };
}

/** Reports of earlier runs in the folder: its subfolders holding a results.json this run did not write. */
export function earlierReports(viewsDir: string, written: readonly { dir: string }[]): EarlierReport[] {
  let entries: string[];
  try {
    entries = readdirSync(viewsDir).sort();
  } catch {
    return [];
  }
  const mine = new Set(written.map((w) => w.dir));
  return entries.flatMap((e) => {
    const dir = join(viewsDir, e);
    if (mine.has(dir)) return [];
    const r = readResults(join(dir, RESULTS_FILE));
    return r
      ? [
          {
            name: String(r.claim.implementation.name),
            version: String(r.claim.implementation.version ?? ''),
            verdict: String(r.verdict),
            generatedAt: String(r.generatedAt ?? ''),
            dir: e,
          },
        ]
      : [];
  });
}

/**
 * A folder this tool wrote: removed only when it looks like ours, never following a link.
 * What cannot be removed stays (an earlier run's report beside this one's, listed apart).
 */
function removeIf(dir: string, marker: string): void {
  let ours = false;
  try {
    ours = lstatSync(join(dir, marker)).isFile();
  } catch {
    // nothing there: not ours
  }
  if (ours) removeTree(dir);
}

/** Where a Playwright report's page stands before a run: compared after it, to tell whether the run wrote it. */
export const reportStamp = (dir: string): string | undefined => {
  try {
    const st = lstatSync(join(dir, 'index.html'));
    return st.isFile() ? `${st.ino}:${st.mtimeMs}:${st.size}` : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A run that judged nothing (an internal error) leaves no report of its own: the
 * Playwright report it wrote (its page differs from `before`) is removed, and one it never
 * reached stays as the earlier run left it.
 */
export function removeReportWritten(dir: string, before: string | undefined): void {
  const after = reportStamp(dir);
  if (after !== undefined && after !== before) removeIf(dir, 'index.html');
}

/**
 * After a run's claims are written: remove what earlier runs left where this run did not
 * write (Playwright's report at the other place, a partial run beside a new full one), and
 * write the matrix page of this run's claims. Returns the matrix file.
 */
export function finishReports(
  reportsRoot: string,
  viewsDir: string,
  playwrightDir: string,
  written: readonly { results: ClaimResults; dir: string }[],
): string {
  for (const candidate of [join(viewsDir, 'playwright'), ...written.map((w) => join(w.dir, 'playwright'))])
    if (candidate !== playwrightDir) removeIf(candidate, 'index.html');
  // A full run supersedes the partial runs made beside the previous one (each wrote its matrix there).
  if (viewsDir === reportsRoot) removeIf(join(reportsRoot, PARTIAL_FOLDER), 'index.html');
  return writeMatrix(viewsDir, written, {
    playwrightHref: posix(relative(viewsDir, join(playwrightDir, 'index.html'))),
    earlier: earlierReports(viewsDir, written),
  });
}
