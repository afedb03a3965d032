// Checking a published claim report folder: its results.json is the one the run wrote.
// Evidence, in order of strength: the sha256 the run printed in its closing line (given
// by the person verifying), the sha256 recorded in the report page, and a junit.xml that
// is exactly what these results render to. Any edit of results.json after the run breaks
// the first two; an edit of junit.xml breaks the third.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIGEST_META } from './html/claim-page.js';
import { junitXml } from './junit.js';
import { readRecordedResults, type ClaimResults } from './model.js';
import { JUNIT_FILE, REPORT_FILE, RESULTS_FILE, resultsDigest } from './write.js';

export interface Verification {
  dir: string;
  digest?: string;
  /** What does not hold; empty when the folder verifies. */
  problems: string[];
  name?: string;
  verdict?: string;
  /** How many of the checks the claim needs ran, when results.json records it. */
  coverage?: { ran: number; needed: number };
  /** Whether results.json says the run was a certification (`--certify`); undefined when it does not say. */
  certification?: boolean;
  /** The snapshot the results were judged by (a version 1 `draft` read as draft@2b5da580). */
  snapshot?: string;
}

/** The digest a report page records, if any. */
export function recordedDigest(html: string): string | undefined {
  const m = new RegExp(`<meta name="${RESULTS_DIGEST_META}" content="([0-9a-f]{64})">`).exec(html);
  return m?.[1];
}

export function verifyClaimFolder(dir: string, expected?: string): Verification {
  const out: Verification = { dir, problems: [] };
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, RESULTS_FILE));
  } catch {
    out.problems.push(`no readable ${RESULTS_FILE}`);
    return out;
  }
  const digest = resultsDigest(bytes);
  out.digest = digest;
  if (expected !== undefined && expected.toLowerCase() !== digest)
    out.problems.push(`${RESULTS_FILE} has sha256 ${digest}, not the ${expected} given`);
  let results: ClaimResults | undefined;
  try {
    results = JSON.parse(bytes.toString('utf8')) as ClaimResults;
    out.name = results.claim?.implementation?.name;
    out.verdict = results.verdict;
    const cov = results.coverage;
    if (cov && Number.isSafeInteger(cov.ran) && Number.isSafeInteger(cov.needed))
      out.coverage = { ran: cov.ran, needed: cov.needed };
    if (typeof results.run?.certification === 'boolean') out.certification = results.run.certification;
    const current = readRecordedResults(results);
    if (current) out.snapshot = current.claim.snapshot.id;
  } catch {
    out.problems.push(`${RESULTS_FILE} is not JSON`);
  }
  const page = join(dir, REPORT_FILE);
  if (existsSync(page)) {
    const recorded = recordedDigest(readFileSync(page, 'utf8'));
    if (!recorded) out.problems.push(`${REPORT_FILE} records no results digest`);
    else if (recorded !== digest)
      out.problems.push(`${RESULTS_FILE} has sha256 ${digest}; ${REPORT_FILE} records ${recorded}`);
  } else out.problems.push(`no ${REPORT_FILE}`);
  if (results) {
    let rendered: string | undefined;
    try {
      rendered = junitXml(results);
    } catch {
      out.problems.push(`${RESULTS_FILE} does not have the shape of results`);
    }
    const junit = join(dir, JUNIT_FILE);
    if (rendered !== undefined) {
      if (!existsSync(junit)) out.problems.push(`no ${JUNIT_FILE}`);
      else if (readFileSync(junit, 'utf8') !== rendered)
        out.problems.push(`${JUNIT_FILE} is not what ${RESULTS_FILE} renders to`);
    }
  }
  return out;
}
