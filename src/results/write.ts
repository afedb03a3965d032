// Writes one claim's results.json, junit.xml and conformance report (index.html), and the
// matrix page over several claims: all views of the same results model.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { claimPage } from './html/claim-page.js';
import { matrixPage } from './html/matrix-page.js';
import { junitXml } from './junit.js';
import { stableJson, type ClaimResults } from './model.js';

export const RESULTS_FILE = 'results.json';
export const JUNIT_FILE = 'junit.xml';
export const REPORT_FILE = 'index.html';

/** The sha256 (hex) of results.json's bytes: printed in the closing line, shown in the report, checked by `verify`. */
export function resultsDigest(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Write a claim's views; returns the digest of the results.json written. */
export function writeClaimResults(dir: string, results: ClaimResults): string {
  mkdirSync(dir, { recursive: true });
  const json = stableJson(results);
  const digest = resultsDigest(json);
  writeFileSync(join(dir, RESULTS_FILE), json);
  writeFileSync(join(dir, JUNIT_FILE), junitXml(results));
  writeFileSync(join(dir, REPORT_FILE), claimPage(results, {}, digest));
  return digest;
}

/** reports/index.html: one row per implementation and target, linking to each report. */
export function writeMatrix(reportsDir: string, claims: readonly { results: ClaimResults; dir: string }[]): string {
  mkdirSync(reportsDir, { recursive: true });
  const file = join(reportsDir, 'index.html');
  writeFileSync(file, matrixPage(claims.map((c) => c.results), claims.map((c) => relative(reportsDir, c.dir)), new Date().toISOString()));
  return file;
}
