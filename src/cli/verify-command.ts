// `ahp-conformance verify <reports dir or claim folder>... [--sha256 <hex>]`: check that
// published reports are self-consistent and, with --sha256, are the results.json whose
// digest was given (src/results/verify.ts); not who wrote them. Exit 0 when every claim
// folder verifies, 1 when one does not, 2 for a path with no results in it or a file in it
// that is not read (a symlink, FIFO, device or folder, or over the bound).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { verifyClaimFolder } from '../results/verify.js';
import { RESULTS_FILE } from '../results/write.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { show } from './acceptance.js';
import { terminalLine } from '../terminal.js';

/** What a verified folder means, said with every verification (docs/cli.md, "verify"). */
export const VERIFY_PROVES =
  `verify proves that each results.json has the sha256 its report records (and the one given with --sha256) and that junit.xml renders from it; ` +
  "it does not prove who wrote the folder (a folder written by hand can verify): trust a digest only from the run's own closing line";

/** Claim folders: the path itself when it holds results.json, else its subfolders that do. */
function claimFolders(path: string): string[] {
  const p = resolve(path);
  let st;
  try {
    st = statSync(p);
  } catch {
    throw new UsageError(`${path}: no such folder`);
  }
  if (!st.isDirectory())
    throw new UsageError(`${path}: not a folder (give a reports folder or a claim's report folder)`);
  if (existsSync(join(p, RESULTS_FILE))) return [p];
  return readdirSync(p, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(p, e.name, RESULTS_FILE)))
    .map((e) => join(p, e.name))
    .sort();
}

export function verifyCommand(paths: string[], options: Record<string, string>, io: Io): number {
  if (paths.length === 0) throw new UsageError('verify needs a reports folder or a claim report folder');
  const expected = options.sha256;
  if (expected !== undefined && !/^[0-9a-fA-F]{64}$/.test(expected))
    throw new UsageError('--sha256 takes the 64 hex digits the run printed');
  const folders = paths.flatMap(claimFolders);
  if (folders.length === 0) throw new UsageError(`no ${RESULTS_FILE} under ${paths.join(', ')}`);
  if (expected !== undefined && folders.length !== 1)
    throw new UsageError('--sha256 checks one claim folder; name that folder');
  let exit: number = EXIT.ok;
  for (const dir of folders) {
    const v = verifyClaimFolder(dir, expected);
    if (v.refused) {
      io.err(terminalLine(`ahp-conformance: verify: ${v.refused}; not read`));
      exit = Math.max(exit, EXIT.badInput);
      continue;
    }
    // Whether it was a certification, so a published result is not taken for a development run.
    const kind = v.certification === undefined ? '' : v.certification ? ', certification' : ', not a certification';
    // A run that left out checks says how many ran of how many the claim needs.
    const ran =
      v.coverage && v.coverage.ran < v.coverage.needed
        ? `, ran ${v.coverage.ran} of ${v.coverage.needed} checks the claim needs`
        : '';
    // Published complete logs say so: a reader need not wonder what a passing check left out.
    const whole = v.fullTranscripts ? ', whole transcripts' : '';
    const who = `${v.name ?? '?'}${v.verdict ? ` (${v.verdict}${ran}${kind}${whole})` : ''}`;
    if (v.problems.length === 0)
      io.out(
        terminalLine(
          `${show(dir)}: verified: ${who}${v.snapshot ? `, judged by ${v.snapshot}` : ''}, results.json sha256 ${v.digest}`,
        ),
      );
    else {
      exit = Math.max(exit, EXIT.finding);
      io.out(terminalLine(`${show(dir)}: NOT VERIFIED: ${who}: ${v.problems.join('; ')}`));
    }
  }
  if (exit !== EXIT.badInput) io.out(VERIFY_PROVES);
  return exit;
}
