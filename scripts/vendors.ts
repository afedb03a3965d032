// `npm run vendors`: certify the official AHP SDKs (PyPI and crates.io `agenthooksprotocol`) as
// vendors would (docs/vendors.md). Installs the pinned SDKs into the ignored vendors/.work/ (a
// venv; the Rust programs built once with cargo), then runs the runner over every claim in
// vendors/claims/ in one run, with reports in reports/vendors/ (the matrix is its index.html).
//
//   npm run vendors [-- <more `run` options, e.g. --workers 1 or --grep ...>]
//
// Idempotent: a stamp file (vendors/.work/stamp.json) records what each install was made from
// (the pins and the toolchain); a second run reuses the venv and the binaries when they match.
// Exit codes: the runner's (0 all conformant, 1 some nonconformant — an expected outcome for
// a vendor —, 2 a claim incomplete or not startable, 3 internal error), or 4 when the
// vendors could not be installed (python3 or cargo missing, a registry unreachable): one line
// says which, and nothing is run.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/package-root.js';

/** Exit status when the vendors could not be installed (distinct from the runner's 0-3). */
export const EXIT_INSTALL_FAILED = 4;

export interface VendorPaths {
  readonly root: string;
  readonly work: string;
  readonly venv: string;
  readonly venvPython: string;
  readonly requirements: string;
  readonly cargoDir: string;
  readonly cargoTarget: string;
  readonly stamp: string;
  readonly claimsDir: string;
  readonly reports: string;
}

export function vendorPaths(root: string = packageRoot()): VendorPaths {
  const work = join(root, 'vendors', '.work');
  return {
    root,
    work,
    venv: join(work, 'venv'),
    venvPython: join(work, 'venv', 'bin', 'python'),
    requirements: join(root, 'vendors', 'python', 'requirements.txt'),
    cargoDir: join(root, 'vendors', 'rust'),
    cargoTarget: join(work, 'cargo-target'),
    stamp: join(work, 'stamp.json'),
    claimsDir: join(root, 'vendors', 'claims'),
    reports: join(root, 'reports', 'vendors'),
  };
}

/** Every vendor claim, relative to the package root, in a stable order. */
export function vendorClaims(paths: VendorPaths): string[] {
  return readdirSync(paths.claimsDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => relative(paths.root, join(paths.claimsDir, f)).split('\\').join('/'));
}

/** The Rust programs the claims launch: each `src/bin/<name>.rs` of the cargo project. */
export function rustBinaries(paths: VendorPaths): string[] {
  const bins = join(paths.cargoDir, 'src', 'bin');
  return readdirSync(bins)
    .filter((f) => f.endsWith('.rs'))
    .sort()
    .map((f) => join(paths.cargoTarget, 'release', f.slice(0, -3)));
}

export interface Stamp {
  python?: string;
  rust?: string;
}

function digest(parts: readonly (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * What each install is made from: the pins and the toolchain that builds them. The Rust
 * digest covers the sources too, since the binaries are built from them.
 */
export function wantedStamp(paths: VendorPaths, toolchain: { python: string; cargo: string }): Required<Stamp> {
  const rustInputs = [
    join(paths.cargoDir, 'Cargo.toml'),
    join(paths.cargoDir, 'Cargo.lock'),
    ...filesUnder(join(paths.cargoDir, 'src')),
  ].filter((f) => existsSync(f));
  return {
    python: digest([toolchain.python, readFileSync(paths.requirements)]),
    rust: digest([toolchain.cargo, ...rustInputs.flatMap((f) => [relative(paths.cargoDir, f), readFileSync(f)])]),
  };
}

export function readStamp(path: string): Stamp {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Stamp) : {};
  } catch {
    return {};
  }
}

/** An install is reused only when its stamp matches and what it made is still there. */
export function reusable(stamped: string | undefined, wanted: string, artefacts: readonly string[]): boolean {
  return stamped === wanted && artefacts.every((a) => existsSync(a));
}

class InstallError extends Error {}

function run(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
}

function toolVersion(command: string, hint: string): string {
  const result = run(command, ['--version']);
  if (result.error || result.status !== 0) throw new InstallError(`${command} is not found on PATH; ${hint}`);
  return (result.stdout || result.stderr).trim();
}

/** The most telling line of a failed install's output, for a one-line error. */
export function tellingLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const telling = lines.find((l) => /^(error|ERROR)\b|could not|failed to|No matching distribution|network/i.test(l));
  return (telling ?? lines.at(-1) ?? 'no output').slice(0, 300);
}

function failed(result: SpawnSyncReturns<string>, what: string, registry: string): never {
  const why = result.error ? result.error.message : tellingLine(`${result.stderr}\n${result.stdout}`);
  throw new InstallError(`${what} failed (is ${registry} reachable?): ${why}`);
}

function installPython(paths: VendorPaths): void {
  rmSync(paths.venv, { recursive: true, force: true });
  const venv = run('python3', ['-m', 'venv', paths.venv]);
  if (venv.status !== 0) throw new InstallError(`python3 -m venv failed: ${tellingLine(venv.stderr)}`);
  const pip = run(
    paths.venvPython,
    [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--retries',
      '1',
      '--timeout',
      '20',
      '-r',
      paths.requirements,
    ],
    { env: { ...process.env, PIP_NO_INPUT: '1' } },
  );
  if (pip.status !== 0) {
    rmSync(paths.venv, { recursive: true, force: true });
    failed(pip, `pip install -r ${relative(paths.root, paths.requirements)}`, 'PyPI');
  }
}

function buildRust(paths: VendorPaths): void {
  const build = run('cargo', ['build', '--release', '--locked', '--bins'], {
    cwd: paths.cargoDir,
    env: { ...process.env, CARGO_TARGET_DIR: paths.cargoTarget },
  });
  if (build.status !== 0) failed(build, 'cargo build --release (vendors/rust)', 'crates.io');
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

/** Installs what is missing or stale; returns one line per part saying what it did. */
export function install(paths: VendorPaths): string[] {
  const toolchain = {
    python: toolVersion('python3', 'install Python 3.11 or newer (the SDK needs 3.11+)'),
    cargo: toolVersion('cargo', 'install Rust with rustup (the crate needs Rust 1.88+)'),
  };
  const wanted = wantedStamp(paths, toolchain);
  const stamp = readStamp(paths.stamp);
  const said: string[] = [];
  mkdirSync(paths.work, { recursive: true });
  let started = performance.now();
  if (reusable(stamp.python, wanted.python, [paths.venvPython])) said.push('python venv: reused (stamp matches)');
  else {
    installPython(paths);
    stamp.python = wanted.python;
    writeFileSync(paths.stamp, JSON.stringify(stamp, null, 2) + '\n');
    said.push(`python venv + pip install: ${seconds(started)}`);
  }
  started = performance.now();
  if (reusable(stamp.rust, wanted.rust, rustBinaries(paths))) said.push('rust binaries: reused (stamp matches)');
  else {
    buildRust(paths);
    stamp.rust = wanted.rust;
    writeFileSync(paths.stamp, JSON.stringify(stamp, null, 2) + '\n');
    said.push(`cargo build --release: ${seconds(started)}`);
  }
  return said;
}

function main(): number {
  const paths = vendorPaths();
  try {
    for (const line of install(paths)) console.log(`vendors: ${line}`);
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    console.error(`ahp-conformance vendors: ${error.message}`);
    return EXIT_INSTALL_FAILED;
  }
  const claims = vendorClaims(paths);
  const args = [
    join(paths.root, 'bin', 'ahp-conformance.js'),
    'run',
    ...claims,
    '--reports',
    relative(paths.root, paths.reports),
    ...process.argv.slice(2),
  ];
  console.log(`vendors: node ${args.map((a) => relative(paths.root, a) || a).join(' ')}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: paths.root, stdio: 'inherit' });
  console.log(`vendors: run ${seconds(started)}; matrix: ${relative(paths.root, join(paths.reports, 'index.html'))}`);
  return result.status ?? 3;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
