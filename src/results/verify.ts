// Checking a published claim report folder: its results.json is the one the run wrote.
// Evidence, in order of strength: the sha256 the run printed in its closing line (given
// by the person verifying), the sha256 recorded in the report page, and a junit.xml that
// is exactly what these results render to. Any edit of results.json after the run breaks
// the first two; an edit of junit.xml breaks the third.
//
// What this does not prove: who wrote the folder. Anyone can write a results.json and the
// matching report and junit.xml by hand; `verify` says the folder is self-consistent and,
// with --sha256, that it is the results.json whose digest was given. Signed certificates
// come in a later issue ("Certificates that travel").
import { join } from 'node:path';
import { readRegularFile } from '../safe-fs.js';
import { RESULTS_DIGEST_META } from './html/claim-page.js';
import { junitXml } from './junit.js';
import { readRecordedResults, type ClaimResults } from './model.js';
import { JUNIT_FILE, MAX_RESULTS_BYTES, REPORT_FILE, RESULTS_FILE, resultsDigest } from './write.js';

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
  /** results.json says every transcript is whole (`run --full-transcripts`). */
  fullTranscripts?: boolean;
  /** The snapshot the results were judged by (a version 1 `draft` read as draft@2b5da580). */
  snapshot?: string;
  /**
   * A file of the folder that is not read at all (a symlink, FIFO, device or folder, or over
   * the bound), one line naming it: bad input, not a finding about the results.
   */
  refused?: string;
}

/** The digest a report page records, if any. */
export function recordedDigest(html: string): string | undefined {
  const m = new RegExp(`<meta name="${RESULTS_DIGEST_META}" content="([0-9a-f]{64})">`).exec(html);
  return m?.[1];
}

export function verifyClaimFolder(dir: string, expected?: string): Verification {
  const out: Verification = { dir, problems: [] };
  /** A file of the folder as bytes, bounded and never through a link; undefined when missing or refused. */
  const read = (name: string): Buffer | undefined => {
    const r = readRegularFile(join(dir, name), { maxBytes: MAX_RESULTS_BYTES });
    if (r.kind === 'ok') return r.bytes;
    if (r.kind === 'refused') out.refused ??= `${join(dir, name)}: ${r.why}`;
    return undefined;
  };
  const bytes = read(RESULTS_FILE);
  if (!bytes) {
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
    if (results.run?.fullTranscripts === true) out.fullTranscripts = true;
    const current = readRecordedResults(results);
    if (current) out.snapshot = current.claim.snapshot.id;
  } catch {
    out.problems.push(`${RESULTS_FILE} is not JSON`);
  }
  const page = read(REPORT_FILE);
  if (page) {
    const recorded = recordedDigest(page.toString('utf8'));
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
    if (rendered !== undefined) {
      const junit = read(JUNIT_FILE);
      if (!junit) out.problems.push(`no ${JUNIT_FILE}`);
      else if (junit.toString('utf8') !== rendered)
        out.problems.push(`${JUNIT_FILE} is not what ${RESULTS_FILE} renders to`);
    }
  }
  return out;
}
