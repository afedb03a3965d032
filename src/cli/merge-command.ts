// `ahp-conformance merge <blob folder or .zip>... [--reports dir] [--baseline b]
//   [--expected-failures f] [--certify]`: merge the blob reports of `run --shard i/n`
// (from one machine or many) with Playwright's `merge-reports`, into the same reports one
// unsharded run writes, then judge them exactly as `run` does.
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { packageRoot } from '../package-root.js';
import { runPlaywright } from '../engine/playwright.js';
import { MERGE_ENV, SHARD_ENV } from '../engine/shards.js';
import { makeRunFolder, playwrightReportDir, removeRunFolder, RUN_FOLDER_ENV } from '../engine/run-folder.js';
import { lockReports } from './run-lock.js';
import type { ClaimResults } from '../results/model.js';
import { readRunOutcome } from '../results/run-record.js';
import { FLAKY_FAILS_ENV } from '../results/reporter.js';
import { finishReports, removeReportWritten, reportContext, reportStamp } from './report-layout.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { conclude, prepareAcceptance, show, type AcceptanceCriteria } from './acceptance.js';
import { terminalLine } from '../terminal.js';
import { canonicalPath } from '../safe-fs.js';

/** Blob reports under the given paths: .zip files as named, folders searched a few levels deep. */
export function findBlobs(paths: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, entry.name);
      if (entry.isFile() && entry.name.endsWith('.zip')) found.push(p);
      else if (entry.isDirectory() && depth < 4) walk(p, depth + 1);
    }
  };
  for (const raw of paths) {
    const p = resolve(raw);
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new UsageError(`merge: ${raw} does not exist`);
    }
    if (st.isDirectory()) walk(p, 0);
    else if (p.endsWith('.zip') && st.isFile()) found.push(p);
    else throw new UsageError(`merge: ${raw} is neither a folder nor a blob report (.zip)`);
  }
  const unique = [...new Set(found)];
  if (unique.length === 0) throw new UsageError(`merge: no blob reports (.zip) under ${paths.join(', ')}`);
  // Shard blobs are named by shard (shard-<i>-of-<n>.zip): the same name twice is the same shard twice.
  const byName = new Map<string, string>();
  for (const f of unique) {
    const other = byName.get(basename(f));
    if (other) throw new UsageError(`merge: two blob reports of the same shard: ${other} and ${f}`);
    byName.set(basename(f), f);
  }
  return unique;
}

/**
 * The first error line of a merge that failed because the runner's own install did (its
 * config or a module of it did not load: the error names a file of the package), not
 * because of the blobs it was given.
 */
function brokenInstall(output: string): string | undefined {
  const root = `${packageRoot()}${sep}`;
  const lines = output.split('\n').map((l) => l.trim());
  const error = lines.find((l) => /^[A-Za-z]*Error\b/.test(l));
  return error !== undefined && (error.includes(root) || /Cannot find module/.test(error)) ? error : undefined;
}

export async function mergeCommand(paths: string[], options: Record<string, string>, io: Io): Promise<number> {
  if (paths.length === 0) throw new UsageError('merge needs the blob reports of the shards (folders or .zip files)');
  const blobs = findBlobs(paths);
  const criteria = prepareAcceptance(options, []);
  // Pinned once (links resolved): later opens under it refuse a link planted there (src/safe-fs.ts).
  const reportsDir = canonicalPath(options.reports ?? 'reports');
  // A merge writes the reports folder as a run does: one writer at a time (src/engine/reports-lock.ts).
  const release = lockReports(reportsDir, `merge of ${blobs.length} blob report${blobs.length === 1 ? '' : 's'}`, io);
  if (!release) return EXIT.badInput;
  try {
    return await mergeLocked(blobs, reportsDir, criteria, options, io);
  } finally {
    release();
  }
}

async function mergeLocked(
  blobs: string[],
  reportsDir: string,
  criteria: AcceptanceCriteria,
  options: Record<string, string>,
  io: Io,
): Promise<number> {
  // The merge's own run folder (src/engine/run-folder.ts): the outcome, and the blobs
  // gathered for merge-reports, which reads one folder.
  const folder = makeRunFolder();
  let result: { code: number; output: string };
  let merged;
  // The config puts a merge's Playwright report in the reports folder, whatever the claims.
  const playwrightDir = playwrightReportDir(reportsDir, undefined);
  const before = reportStamp(playwrightDir);
  try {
    const staging = join(folder.root, 'blobs');
    mkdirSync(staging);
    for (const b of blobs) copyFileSync(b, join(staging, basename(b)));
    // --certify: a check that passed only on a retry in its shard is failed here too.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [RUN_FOLDER_ENV]: folder.root,
      [MERGE_ENV]: reportsDir,
      ...(options.certify ? { [FLAKY_FAILS_ENV]: '1' } : {}),
    };
    delete env[SHARD_ENV];
    // Its progress lines name the staging folder: shown only when the merge fails.
    result = await runPlaywright('merge-reports', [staging], env, true);
    merged = readRunOutcome(folder.outcome);
  } finally {
    removeRunFolder(folder);
  }
  const code = result.code;
  if (merged?.internalError !== undefined) {
    // The runner broke (a reporter threw, a shard's blob replays the error of a run that
    // broke): no verdict, and no report of this merge (docs/cli.md).
    removeReportWritten(playwrightDir, before);
    io.err(terminalLine(`ahp-conformance: internal error: ${merged.internalError} (no verdict written)`));
    return EXIT.internal;
  }
  if (!merged && brokenInstall(result.output)) {
    io.err(terminalLine(`ahp-conformance: internal error: ${brokenInstall(result.output)} (no verdict written)`));
    return EXIT.internal;
  }
  if (!merged) {
    // One line of Playwright's error, not its stack.
    const why = result.output
      .split('\n')
      .map((l) => l.trim())
      .find((l) => /^[A-Za-z]*Error\b/.test(l))
      ?.replace(/^Error: /, '')
      .replace(/\.$/, '');
    io.err(
      terminalLine(
        `ahp-conformance: merging ${blobs.length} blob report${blobs.length === 1 ? '' : 's'} failed${why ? `: ${why}` : ` (Playwright exited with ${code})`}; are they blob reports of \`ahp-conformance run --shard\`?`,
      ),
    );
    return code === 0 ? EXIT.internal : EXIT.badInput;
  }
  if (merged.error || !merged.shards) {
    io.err(terminalLine(`ahp-conformance: merge: ${merged.error ?? 'the merge wrote no record'}`));
    return EXIT.badInput;
  }
  const { total, present, missing } = merged.shards;
  io.out(
    terminalLine(
      `ahp-conformance: merged shard${present.length === 1 ? '' : 's'} ${present.map((s) => `${s}/${total}`).join(', ')}` +
        `${missing.length ? `; MISSING ${missing.map((s) => `${s}/${total}`).join(', ')} (a claim is partial while checks it needs are in a missing shard; the merge exits 2 until every shard is merged)` : ''}`,
    ),
  );
  const written: { results: ClaimResults; dir: string }[] = [];
  const exit = conclude(
    merged.claims.map((results) => ({ results, reportDir: join(reportsDir, results.claim.implementation.name) })),
    criteria,
    io,
    written,
    (dir) => reportContext(reportsDir, reportsDir, playwrightDir, dir),
  );
  const matrix = finishReports(reportsDir, reportsDir, playwrightDir, written);
  if (written.length > 1) io.out(terminalLine(`matrix of ${written.length} implementations -> ${show(matrix)}`));
  // A merge is asked for the whole run: a shard missing is bad input, whatever the verdicts.
  return missing.length ? Math.max(exit, EXIT.badInput) : exit;
}
