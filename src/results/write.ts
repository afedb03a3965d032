// Writes one claim's results.json, junit.xml and conformance report (index.html), and the
// matrix page over several claims: all views of the same results model.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { claimPage, type Acceptance, type ReportContext } from './html/claim-page.js';
import { matrixPage, type MatrixContext } from './html/matrix-page.js';
import { junitXml } from './junit.js';
import { stableJson, type ClaimResults } from './model.js';

export const RESULTS_FILE = 'results.json';
export const JUNIT_FILE = 'junit.xml';
export const REPORT_FILE = 'index.html';

/** The sha256 (hex) of results.json's bytes: printed in the closing line, shown in the report, checked by `verify`. */
export function resultsDigest(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export const REGRESSION_FILE = 'regression.json';

/**
 * Write a claim's views, each once: results.json, junit.xml, the report (with what the run
 * was judged against) and, when compared with a baseline, regression.json. Returns the
 * digest of the results.json written.
 */
export function writeClaimResults(
  dir: string,
  results: ClaimResults,
  acceptance: Acceptance = {},
  regression?: unknown,
  context: ReportContext = {},
): string {
  mkdirSync(dir, { recursive: true });
  const json = stableJson(results);
  const digest = resultsDigest(json);
  writeFileSync(join(dir, RESULTS_FILE), json);
  writeFileSync(join(dir, JUNIT_FILE), junitXml(results));
  writeFileSync(join(dir, REPORT_FILE), claimPage(results, acceptance, digest, context));
  if (regression !== undefined) writeFileSync(join(dir, REGRESSION_FILE), stableJson(regression));
  else rmSync(join(dir, REGRESSION_FILE), { force: true });
  return digest;
}

/** reports/index.html: one row per implementation and target, linking to each report. */
export function writeMatrix(
  reportsDir: string,
  claims: readonly { results: ClaimResults; dir: string }[],
  context: MatrixContext = {},
): string {
  mkdirSync(reportsDir, { recursive: true });
  const file = join(reportsDir, 'index.html');
  writeFileSync(
    file,
    matrixPage(
      claims.map((c) => c.results),
      claims.map((c) => relative(reportsDir, c.dir)),
      new Date().toISOString(),
      context,
    ),
  );
  return file;
}
