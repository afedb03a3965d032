// Checking a published claim report folder: its results.json is the one the run wrote.
// Evidence, in order of strength: the sha256 the run printed in its closing line (given
// by the person verifying), the sha256 recorded in the report page, and a junit.xml that
// is exactly what these results render to. Any edit of results.json after the run breaks
// the first two; an edit of junit.xml breaks the third.
//
// The attestation (attestation.intoto.jsonl, src/results/attestation.ts) adds who: with the
// signer's public key, a valid signature over a statement whose subject digests match the
// folder's files proves the folder is what that key's holder signed; with --implementation,
// that given bytes are among those the run tested. Without a key only self-consistency is
// proved: anyone can write a results.json, its report, junit.xml and an unsigned (or
// otherwise signed) attestation by hand.
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { readRegularFile, sha256OfFile } from '../safe-fs.js';
import {
  CLAIM_SUBJECT,
  IMPLEMENTATION_SUBJECT,
  keyId,
  readAttestation,
  signatureBy,
  ATTESTATION_FILE,
  type Statement,
} from './attestation.js';
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
  /** What the attestation says of its signature: checked with the key given, or only named. */
  signature?: string;
  /** The statement of a well-formed attestation whose subjects were compared. */
  statement?: Statement;
  /** `--implementation`: the subject the given file's bytes are. */
  implementationMatch?: string;
}

export interface VerifyOptions {
  /** sha256 of results.json as the run printed it. */
  expected?: string;
  /** The signer's public key: the attestation must carry a signature it verifies. */
  key?: KeyObject;
  /** A file that must be one the run tested (a subject of the attestation). */
  implementation?: string;
}

/** The digest a report page records, if any. */
export function recordedDigest(html: string): string | undefined {
  const m = new RegExp(`<meta name="${RESULTS_DIGEST_META}" content="([0-9a-f]{64})">`).exec(html);
  return m?.[1];
}

export function verifyClaimFolder(dir: string, options: VerifyOptions = {}): Verification {
  const { expected } = options;
  const out: Verification = { dir, problems: [] };
  /** The sha256 of each file of the folder read (for the attestation's subjects). */
  const digests = new Map<string, string>();
  /** A file of the folder as bytes, bounded and never through a link; undefined when missing or refused. */
  const read = (name: string): Buffer | undefined => {
    const r = readRegularFile(join(dir, name), { maxBytes: MAX_RESULTS_BYTES });
    if (r.kind === 'ok') {
      digests.set(name, resultsDigest(r.bytes));
      return r.bytes;
    }
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
  checkAttestation(dir, out, digests, results, options);
  return out;
}

/** The attestation against the folder's files, the key and the implementation given. */
function checkAttestation(
  dir: string,
  out: Verification,
  digests: ReadonlyMap<string, string>,
  results: ClaimResults | undefined,
  options: VerifyOptions,
): void {
  const a = readAttestation(dir);
  if (a.kind === 'refused') {
    out.refused ??= `${join(dir, ATTESTATION_FILE)}: ${a.why}`;
    return;
  }
  if (a.kind === 'missing') {
    if (options.key || options.implementation) out.problems.push(`no ${ATTESTATION_FILE}: nothing signed this folder`);
    out.signature = 'no attestation';
    return;
  }
  if (a.kind === 'invalid') {
    out.problems.push(`${ATTESTATION_FILE}: ${a.why}`);
    return;
  }
  const ahp = a.statement.predicate.ahp;
  const named = a.envelope.signatures.map((s) => s.keyid).filter(Boolean);
  if (options.key) {
    const by = signatureBy(a, options.key);
    if (by) out.signature = `signed by key ${by} at ${String(ahp.signedAt)}`;
    else if (a.envelope.signatures.length === 0) out.problems.push(`${ATTESTATION_FILE} is unsigned`);
    else
      out.problems.push(
        `${ATTESTATION_FILE}: no signature verifies with key ${keyId(options.key)}${named.length ? ` (it names key ${named.join(', ')})` : ''}`,
      );
  } else
    out.signature = a.envelope.signatures.length
      ? `names key ${named.join(', ') || '?'} as signer, not checked (anyone can write a key id: give --key <public key>)`
      : 'unsigned attestation';
  // Every view of the folder is a subject, and each must be the file that is here.
  const subjects = new Map(a.statement.subject.map((s) => [s.name, s.digest.sha256]));
  for (const name of [RESULTS_FILE, JUNIT_FILE, REPORT_FILE]) {
    const attested = subjects.get(name);
    const here = digests.get(name);
    if (attested === undefined) out.problems.push(`${ATTESTATION_FILE} names no ${name}`);
    else if (here !== undefined && here !== attested)
      out.problems.push(`${name} has sha256 ${here}; ${ATTESTATION_FILE} records ${attested}`);
  }
  // The signed summary and the results must tell the same story (a signer's bug otherwise).
  if (results) {
    const same =
      ahp.verdict === results.verdict &&
      ahp.implementation?.name === results.claim?.implementation?.name &&
      ahp.implementation?.version === results.claim?.implementation?.version &&
      (ahp.claim?.sha256 ?? null) === (results.claim?.digest ?? null);
    if (!same)
      out.problems.push(`${ATTESTATION_FILE} and ${RESULTS_FILE} disagree on the implementation, claim or verdict`);
  }
  out.statement = a.statement;
  if (options.implementation !== undefined) {
    const h = sha256OfFile(options.implementation);
    if (h.kind !== 'ok') {
      out.problems.push(`--implementation ${options.implementation}: ${h.kind === 'missing' ? 'no such file' : h.why}`);
      return;
    }
    const tested = a.statement.subject.filter(
      (s) => s.name.startsWith(IMPLEMENTATION_SUBJECT) || s.name.startsWith(CLAIM_SUBJECT),
    );
    const hit = tested.find((s) => s.digest.sha256 === h.sha256);
    if (hit) out.implementationMatch = hit.name;
    else
      out.problems.push(
        `${options.implementation} (sha256 ${h.sha256}) is none of the files the run tested (${tested.map((s) => s.name).join(', ') || 'none recorded'})`,
      );
  }
}
