// `ahp-conformance verify <reports dir or claim folder>... [--key <public key>]
// [--implementation <file>] [--snapshot <snapshot folder>] [--sha256 <hex>]`: check that
// published reports are self-consistent, signed by the key given, about the bytes given
// (src/results/verify.ts), and with --snapshot, whether the requirement texts they proved
// have changed since (src/results/staleness.ts). Exit 0 when every claim folder verifies
// (and none is stale), 1 when one does not, 2 for a path with no results in it, a bad key
// or a file that is not read (a symlink, FIFO, device or folder, or over the bound).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadPublicKey, type AttestedRequirement, type Statement } from '../results/attestation.js';
import {
  CatalogueError,
  readRequirementCatalogue,
  staleness,
  stalenessLines,
  type RequirementCatalogue,
} from '../results/staleness.js';
import { verifyClaimFolder } from '../results/verify.js';
import { sha256OfFile } from '../safe-fs.js';
import { RESULTS_FILE } from '../results/write.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { show } from './acceptance.js';
import { terminalLine } from '../terminal.js';

/** What a verified folder means, said with every verification (docs/cli.md, "verify"). */
export const VERIFY_PROVES =
  `verify proves that each results.json has the sha256 its report records (and the one given with --sha256), that junit.xml renders from it, and that the attestation's subjects are these files; ` +
  'only --key proves who signed them (without it a folder written by hand can verify)';

/** The newer snapshot's requirement catalogue, or a one-line usage error. */
function newerCatalogue(folder: string): RequirementCatalogue {
  try {
    return readRequirementCatalogue(folder);
  } catch (e) {
    if (e instanceof CatalogueError) throw new UsageError(`--snapshot: ${e.message}`);
    throw e;
  }
}

/** The requirements an attestation recorded, when it recorded them in their shape (it comes from anyone). */
function attestedOf(statement: Statement | undefined): AttestedRequirement[] | undefined {
  const list: unknown = statement?.predicate.ahp.requirements;
  if (!Array.isArray(list)) return undefined;
  const ok = list.every(
    (r: unknown) =>
      typeof r === 'object' &&
      r !== null &&
      typeof (r as AttestedRequirement).id === 'string' &&
      /^[0-9a-f]{64}$/.test(String((r as AttestedRequirement).textSha256)) &&
      Array.isArray((r as AttestedRequirement).checks) &&
      (r as AttestedRequirement).checks.every((c) => typeof c === 'string'),
  );
  return ok ? (list as AttestedRequirement[]) : undefined;
}

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
  // Read before any folder: a key that is not one is bad input, not a folder that fails.
  const key = options.key !== undefined ? loadPublicKey(options.key) : undefined;
  const catalogue = options.snapshot !== undefined ? newerCatalogue(options.snapshot) : undefined;
  const folders = paths.flatMap(claimFolders);
  if (folders.length === 0) throw new UsageError(`no ${RESULTS_FILE} under ${paths.join(', ')}`);
  if (expected !== undefined && folders.length !== 1)
    throw new UsageError('--sha256 checks one claim folder; name that folder');
  if (options.implementation !== undefined && folders.length !== 1)
    throw new UsageError('--implementation checks one claim folder; name that folder');
  // A file to compare that cannot be read is bad input, like a key that cannot.
  if (options.implementation !== undefined) {
    const h = sha256OfFile(options.implementation);
    if (h.kind !== 'ok')
      throw new UsageError(
        `--implementation ${options.implementation}: ${h.kind === 'missing' ? 'no such file' : `${h.why}; not read`}`,
      );
  }
  let exit: number = EXIT.ok;
  for (const dir of folders) {
    const v = verifyClaimFolder(dir, {
      ...(expected !== undefined ? { expected } : {}),
      ...(key ? { key } : {}),
      ...(options.implementation !== undefined ? { implementation: options.implementation } : {}),
    });
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
    const who = `${v.name ?? '(no readable results)'}${v.verdict ? ` (${v.verdict}${ran}${kind}${whole})` : ''}`;
    if (v.problems.length === 0) {
      // Against a newer catalogue first, so the line says at once whether it still holds.
      const attested = catalogue ? attestedOf(v.statement) : undefined;
      const s = catalogue && attested ? staleness(attested, catalogue) : undefined;
      const stale = catalogue !== undefined && (s === undefined || !s.fresh);
      if (stale) exit = Math.max(exit, EXIT.finding);
      io.out(
        terminalLine(
          `${show(dir)}: verified${stale ? ' but STALE' : ''}: ${who}${v.snapshot ? `, judged by ${v.snapshot}` : ''}, results.json sha256 ${v.digest}${v.signature ? `; ${v.signature}` : ''}`,
        ),
      );
      if (v.implementationMatch)
        io.out(terminalLine(`  ${options.implementation}: the bytes the run tested (${v.implementationMatch})`));
      if (catalogue && !s)
        io.out(terminalLine(`  no attestation of requirement texts: nothing to compare with ${catalogue.path}`));
      if (catalogue && s) for (const line of stalenessLines(s, catalogue)) io.out(terminalLine(`  ${line}`));
    } else {
      exit = Math.max(exit, EXIT.finding);
      io.out(terminalLine(`${show(dir)}: NOT VERIFIED: ${who}: ${v.problems.join('; ')}`));
    }
  }
  if (exit !== EXIT.badInput) io.out(VERIFY_PROVES);
  return exit;
}
