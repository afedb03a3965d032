// Writes one claim's results.json, junit.xml and conformance report (index.html), and the
// matrix page over several claims: all views of the same results model.
import { createHash, type KeyObject } from 'node:crypto';
import { basename, dirname, join, relative } from 'node:path';
import { Folder } from '../safe-fs.js';
import { claimPage, type Acceptance, type ReportContext } from './html/claim-page.js';
import { matrixPage, type MatrixContext } from './html/matrix-page.js';
import { ATTESTATION_FILE, buildStatement, envelopeLine, keyId, type AttestedRequirement } from './attestation.js';
import { junitXml } from './junit.js';
import { stableJson, type ClaimResults } from './model.js';

export const RESULTS_FILE = 'results.json';
export const JUNIT_FILE = 'junit.xml';
export const REPORT_FILE = 'index.html';
/**
 * The most bytes any reader takes of a results.json (and of its junit.xml and report page):
 * far above what a run writes (the hostile corpus keeps results.json under 4 MiB).
 */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

/** The sha256 (hex) of results.json's bytes: printed in the closing line, shown in the report, checked by `verify`. */
export function resultsDigest(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export const REGRESSION_FILE = 'regression.json';

/** How a claim's attestation is written: signed with `key`, or unsigned without one. */
export interface AttestationOptions {
  key?: KeyObject;
  requirements: AttestedRequirement[];
}

/**
 * Write a claim's views, each once: results.json, junit.xml, the report (with what the run
 * was judged against), when compared with a baseline, regression.json, and with `attest`
 * the attestation over them (src/results/attestation.ts). Returns the digest of the
 * results.json written.
 */
export function writeClaimResults(
  dir: string,
  results: ClaimResults,
  acceptance: Acceptance = {},
  regression?: unknown,
  context: ReportContext = {},
  attest?: AttestationOptions,
): string {
  // The claim's folder is made a real folder (a symlink or file planted there is replaced),
  // and every view is written into that very folder, replacing whatever was at its name
  // (src/safe-fs.ts): nothing planted in the reports folder redirects a write.
  const views = Folder.create(dirname(dir));
  let folder: Folder | undefined;
  try {
    folder = views.folder(basename(dir));
    const json = stableJson(results);
    const digest = resultsDigest(json);
    const junit = junitXml(results);
    const report = claimPage(results, acceptance, digest, {
      ...context,
      ...(attest ? { attestation: attest.key ? { signedBy: keyId(attest.key) } : {} } : {}),
    });
    folder.write(RESULTS_FILE, json);
    folder.write(JUNIT_FILE, junit);
    folder.write(REPORT_FILE, report);
    const replace = (name: string, text: string | undefined): void => {
      if (text !== undefined) return folder!.write(name, text);
      const left = folder!.remove(name);
      if (left.length) throw new Error(`a stale ${name} cannot be removed: ${left[0]}`);
    };
    replace(REGRESSION_FILE, regression !== undefined ? stableJson(regression) : undefined);
    // Over the very strings written, never read back: nothing planted since changes what is signed.
    replace(
      ATTESTATION_FILE,
      attest &&
        envelopeLine(
          buildStatement({
            results,
            views: { results: digest, junit: resultsDigest(junit), report: resultsDigest(report) },
            requirements: attest.requirements,
            signedAt: new Date().toISOString(),
          }),
          attest.key,
        ),
    );
    return digest;
  } finally {
    folder?.close();
    views.close();
  }
}

/** reports/index.html: one row per implementation and target, linking to each report. */
export function writeMatrix(
  reportsDir: string,
  claims: readonly { results: ClaimResults; dir: string }[],
  context: MatrixContext = {},
): string {
  const file = join(reportsDir, 'index.html');
  const folder = Folder.create(reportsDir);
  try {
    folder.write(
      'index.html',
      matrixPage(
        claims.map((c) => c.results),
        claims.map((c) => relative(reportsDir, c.dir)),
        new Date().toISOString(),
        context,
      ),
    );
  } finally {
    folder.close();
  }
  return file;
}
