// Which bytes a run tests: the files of the implementation under test, hashed before it is
// launched, so the results and the attestation name them and not only the name and
// version its claim declares (docs/reports.md, "Attestation"). They are: each launch
// command (a bare name as found on PATH), every argument that names an existing regular
// file (relative to the command's working folder), and the claim's `artifacts`.
//
// Hashed once, by the CLI, before Playwright starts anything: what the implementation does
// to its own files during the run does not change what was attested. A file that cannot
// be hashed (a FIFO named as an argument, a file over the bound) is listed with the reason.
import { isAbsolute, resolve } from 'node:path';
import { findOnPath } from '../../drivers/processes.js';
import type { ResolvedClaim } from '../claims/load.js';
import type { ImplementationFile } from '../results/model.js';
import { sha256OfFile } from '../safe-fs.js';

interface Launch {
  command: string;
  args: readonly string[];
  cwd: string;
}

/** A placeholder the runner fills at launch ({port}, {config}): never a file of the implementation. */
const PLACEHOLDER = /\{[a-z]+\}/;

export function implementationFiles(claim: ResolvedClaim, pathVar = process.env.PATH ?? ''): ImplementationFile[] {
  const launches: Launch[] = [
    ...(claim.backend?.stdio ? [claim.backend.stdio] : []),
    ...(claim.backend?.http?.command !== undefined
      ? [{ command: claim.backend.http.command, args: claim.backend.http.args, cwd: claim.backend.http.cwd }]
      : []),
    ...(claim.harness ? [claim.harness] : []),
  ];
  const out: ImplementationFile[] = [];
  const seen = new Set<string>();
  const add = (name: string, path: string, kind: ImplementationFile['kind'], optional: boolean): void => {
    if (seen.has(path)) return;
    const h = sha256OfFile(path);
    // An argument that names no file is an ordinary argument (a flag, a module name).
    if (optional && h.kind !== 'ok') return;
    seen.add(path);
    if (h.kind === 'ok') out.push({ name, kind, sha256: h.sha256 });
    else out.push({ name, kind, notHashed: h.kind === 'missing' ? 'no such file' : h.why });
  };
  for (const l of launches) {
    // The loader resolved a command with a '/' to an absolute path; a bare one runs from PATH.
    const path = isAbsolute(l.command) ? l.command : findOnPath(l.command, pathVar);
    if (path) add(path, path, 'command', false);
    else out.push({ name: l.command, kind: 'command', notHashed: 'not found on PATH' });
    for (const arg of l.args) {
      if (arg === '' || PLACEHOLDER.test(arg) || arg.startsWith('-')) continue;
      add(arg, isAbsolute(arg) ? arg : resolve(l.cwd, arg), 'argument', true);
    }
  }
  for (const a of claim.artifacts) add(a.name, a.path, 'artifact', false);
  return out;
}
