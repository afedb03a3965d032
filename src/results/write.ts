// Writes one claim's results.json, junit.xml and conformance report (index.html), and the
// matrix page over several claims: all views of the same results model.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { claimPage } from './html/claim-page.js';
import { matrixPage } from './html/matrix-page.js';
import { junitXml } from './junit.js';
import { stableJson, type ClaimResults } from './model.js';

export function writeClaimResults(dir: string, results: ClaimResults): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), stableJson(results));
  writeFileSync(join(dir, 'junit.xml'), junitXml(results));
  writeFileSync(join(dir, 'index.html'), claimPage(results));
}

/** reports/index.html: one row per implementation and target, linking to each report. */
export function writeMatrix(reportsDir: string, claims: readonly { results: ClaimResults; dir: string }[]): string {
  mkdirSync(reportsDir, { recursive: true });
  const file = join(reportsDir, 'index.html');
  writeFileSync(file, matrixPage(claims.map((c) => c.results), claims.map((c) => relative(reportsDir, c.dir)), new Date().toISOString()));
  return file;
}
