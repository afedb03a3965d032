// `ahp-conformance show-report [<folder>] [--host h] [--port p]`: serve a conformance report
// on localhost and open it, with Playwright's own `show-report` server (a static folder
// server), so the report's relative links (the Playwright report, the matrix) work as
// published.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runPlaywright } from '../engine/playwright.js';
import { REPORT_FILE } from '../results/write.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { show } from './acceptance.js';

/**
 * The folder to serve: one holding index.html (a reports folder with its matrix, or one
 * claim's report folder), or a reports folder with exactly one claim report in it.
 */
export function reportFolder(path: string): string {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new UsageError(
      `show-report: ${path} does not exist (run \`ahp-conformance run\` first, or name a reports folder)`,
    );
  }
  if (!isDir) throw new UsageError(`show-report: ${path} is not a folder`);
  if (existsSync(join(path, REPORT_FILE))) return path;
  const reports = readdirSync(path, { withFileTypes: true }).filter(
    (e) => e.isDirectory() && existsSync(join(path, e.name, REPORT_FILE)),
  );
  if (reports.length === 1) return join(path, reports[0]!.name);
  throw new UsageError(
    reports.length
      ? `show-report: ${path} holds ${reports.length} claim reports and no matrix (index.html); name one of them`
      : `show-report: ${path} holds no conformance report (index.html)`,
  );
}

export async function showReportCommand(paths: string[], options: Record<string, string>, io: Io): Promise<number> {
  if (paths.length > 1) throw new UsageError('show-report takes one folder');
  if (options.port !== undefined && !/^\d{1,5}$/.test(options.port))
    throw new UsageError(`--port takes a port number (got "${options.port}")`);
  const folder = reportFolder(resolve(paths[0] ?? 'reports'));
  io.out(`ahp-conformance: serving ${show(folder)} (Ctrl+C to stop)`);
  const { code } = await runPlaywright(
    'show-report',
    [folder, ...(options.host ? ['--host', options.host] : []), ...(options.port ? ['--port', options.port] : [])],
    process.env,
    false,
    true,
  );
  return code === 0 || code === 130 ? EXIT.ok : EXIT.internal;
}
