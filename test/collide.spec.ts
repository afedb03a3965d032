// Runs that cannot collide (issue 23, item 4; test/hostile/README.md rows CR1-CR9; the lock's
// own rows CR10-CR16 are in test/unit/reports-lock.spec.ts): two runs started together from
// one folder with the default reports folder, a clean reference backend and a faulty one,
// once swapped verdicts through a shared `reports/.run/`. Now each
// run has a private folder (src/engine/run-folder.ts) and one run at a time writes a reports
// folder (src/engine/reports-lock.ts): every pair gives two right verdicts, or one right
// verdict and a one-line refusal (exit 2) naming the other run. npm test runs 2 pairs;
// `npm run test:collide` (a step of .ci/run) runs 10 (AHP_COLLIDE_PAIRS).
//
// Each run is narrowed with --grep to one cheap check (base.protocol-version, which the
// `no-result-version` fault fails), and its TMPDIR is a folder of this worker's (the tests of
// one worker run one after another): a run's private folder is made there and must be gone
// after it. Shared by the worker's runs, so that Playwright's transform cache there stays warm.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { containment } from '../drivers/containment.js';
import type { ClaimResults } from '../src/results/model.js';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
const PAIRS = Number(process.env.AHP_COLLIDE_PAIRS ?? 2);
const GREP = ['--grep', 'base\\.protocol-version'];
const workspace = tempFolders('ahp-collide-');
test.setTimeout(Math.max(120_000, PAIRS * 60_000));

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

let runsTmp: string | undefined;
/** The TMPDIR of this worker's runs. */
const tmpOfRuns = (): string => (runsTmp ??= workspace());

/** A folder with `clean.yaml` and `faulty.yaml`: the reference backend over stdio, or `command` around it. */
function folder(
  command: (fault: string) => [string, string[]] = (f) => [
    process.execPath,
    [MAIN, '--transport', 'stdio', ...f.split(' ').filter(Boolean)],
  ],
): string {
  const dir = workspace();
  for (const [name, fault] of [
    ['clean', ''],
    ['faulty', '--fault no-result-version'],
  ] as const) {
    const [cmd, args] = command(fault);
    writeFileSync(
      join(dir, `${name}.yaml`),
      `implementation: { name: ${name}, version: 1.0.0 }\nrole: backend\ntransports: [stdio]\nprofiles: [tool-interception]\n` +
        `backend:\n  stdio: { command: ${JSON.stringify(cmd)}, args: ${JSON.stringify(args)}, lifecycle: persistent }\n`,
    );
  }
  return dir;
}

const cliEnv = (): NodeJS.ProcessEnv => ({ ...process.env, AHP_PROGRESS: 'quiet', TMPDIR: tmpOfRuns() });

/** `ahp-conformance <args>` in `dir`, started now. */
function start(dir: string, args: string[], detached = false): { pid: number; done: Promise<Ran> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: cliEnv(), detached });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  return {
    pid: child.pid!,
    done: new Promise((done) => child.on('close', (code) => done({ code, out, err }))),
  };
}

function cli(dir: string, args: string[]): Ran {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: cliEnv(),
    encoding: 'utf8',
    timeout: 150_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const results = (dir: string, name: string): ClaimResults =>
  JSON.parse(readFileSync(join(dir, 'reports', name, 'results.json'), 'utf8')) as ClaimResults;

/** The one line of a refusal naming the run that holds `folder`. */
const refusal = (folder: string, what: string): RegExp =>
  new RegExp(
    `^ahp-conformance: ${folder} is being written by another run \\(pid \\d+, started \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z: ${what}\\); wait for it to end, or pass --reports <another folder>\\n$`,
  );

/**
 * A run of `name` judged: its own right verdict, read back from the results.json whose
 * sha256 its closing line printed, or a one-line refusal naming `other`'s run.
 */
function judge(dir: string, name: 'clean' | 'faulty', r: Ran, other: string): 'right' | 'refused' {
  const context = `${name}: exit ${r.code}\n${r.out}${r.err}`;
  if (r.code === 2) {
    expect(r.out, context).toBe('');
    expect(r.err, context).toMatch(refusal('reports', `run of ${other} \\(${other}\\.yaml\\)`));
    return 'refused';
  }
  const clean = name === 'clean';
  expect(r.code, context).toBe(clean ? 0 : 1);
  const line = new RegExp(
    `^${name} 1\\.0\\.0: .* -> reports/${name} \\(results\\.json sha256 ([0-9a-f]{64})\\)$`,
    'm',
  ).exec(r.out);
  expect(line, context).not.toBeNull();
  const file = join(dir, 'reports', name, 'results.json');
  expect(
    createHash('sha256').update(readFileSync(file)).digest('hex'),
    `${context}: the results it printed are on disk`,
  ).toBe(line![1]);
  const res = results(dir, name);
  expect(res.claim.implementation.name).toBe(name);
  expect(res.checks.map((c) => [c.id, c.status])).toEqual([['base.protocol-version', clean ? 'passed' : 'failed']]);
  if (clean) expect(res.verdict, context).not.toMatch(/nonconformant|incomplete/);
  else expect(res.verdict, context).toBe('nonconformant');
  return 'right';
}

/** Private run folders in the runs' TMPDIR (Playwright keeps its transform cache there too). */
const runFoldersLeft = (): string[] => readdirSync(tmpOfRuns()).filter((f) => f.startsWith('ahp-conformance-run-'));

/** After the runs: no lock, no `.run/`, no private run folder left. */
function nothingLeft(dir: string): void {
  expect(
    readdirSync(join(dir, 'reports')).filter((f) => f.startsWith('.')),
    'hidden files in reports/',
  ).toEqual([]);
  expect(runFoldersLeft(), 'private run folders left in TMPDIR').toEqual([]);
}

test(`CR1: ${PAIRS} pairs of runs (a clean and a faulty claim) started together from one folder: right verdicts or one-line refusals`, async () => {
  const tally = { right: 0, refused: 0 };
  for (let i = 0; i < PAIRS; i++) {
    const dir = folder();
    const clean = start(dir, ['run', 'clean.yaml', ...GREP]);
    const faulty = start(dir, ['run', 'faulty.yaml', ...GREP]);
    const [c, f] = await Promise.all([clean.done, faulty.done]);
    const verdicts = [judge(dir, 'clean', c, 'faulty'), judge(dir, 'faulty', f, 'clean')];
    // Never both refused: one of them held the folder.
    expect(verdicts, `pair ${i + 1}`).toContain('right');
    for (const v of verdicts) tally[v]++;
    nothingLeft(dir);
  }
  test.info().annotations.push({
    type: 'pairs',
    description: `${PAIRS} pairs: ${tally.right} right verdicts, ${tally.refused} refusals`,
  });
});

/** A program that looks around its TMPDIR, writes what it saw into its working folder, then runs `argv`. */
function snoop(): string {
  const file = join(workspace(), 'snoop.cjs');
  writeFileSync(
    file,
    `const fs = require('fs'), path = require('path');
const runDir = path.dirname(process.env.TMPDIR);
const seen = { runDir };
for (const f of ['plan.json', 'outcome.json']) {
  try { seen[f] = fs.readFileSync(path.join(runDir, f), 'utf8').length; } catch (e) { seen[f] = e.code; }
}
try { seen.listing = fs.readdirSync(runDir); } catch (e) { seen.listing = e.code; }
fs.writeFileSync(path.join(process.cwd(), 'seen.json'), JSON.stringify(seen));
require('child_process').spawnSync(process.execPath, process.argv.slice(2), { stdio: 'inherit' });
`,
  );
  return file;
}

test('CR2, CR3, CR9: a run killed mid-way leaves a lock the next run takes over; a planted reports/.run/ is not read; the run folder is hidden', async () => {
  // The faulty claim starts through the snoop: it looks for its run's plan and outcome.
  const script = snoop();
  const dir = folder((f) => [
    process.execPath,
    [...(f ? [script] : []), MAIN, '--transport', 'stdio', ...f.split(' ').filter(Boolean)],
  ]);
  // A forged outcome and plan where the runner once kept them, saying the faulty claim passed.
  const planted = join(dir, 'reports', '.run');
  mkdirSync(planted, { recursive: true });
  const forged = JSON.stringify({ claims: [{ verdict: 'conformant', claim: { implementation: { name: 'faulty' } } }] });
  writeFileSync(join(planted, 'outcome.json'), forged);
  writeFileSync(join(planted, 'plan.json'), '{"claims": []}');
  // Killed as a CI job is cancelled: the whole process tree, SIGKILL, once it holds the lock.
  const killed = start(dir, ['run', 'clean.yaml', ...GREP], true);
  const lock = join(dir, 'reports', '.lock');
  await expect.poll(() => existsSync(lock), { timeout: 60_000 }).toBe(true);
  process.kill(-killed.pid, 'SIGKILL');
  expect((await killed.done).code).toBeNull();
  expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: killed.pid, what: 'run of clean (clean.yaml)' });
  // (A process killed with SIGKILL cannot remove its own private folder.)
  const leftByKilled = runFoldersLeft();

  const next = cli(dir, ['run', 'faulty.yaml', ...GREP]);
  expect(judge(dir, 'faulty', next, 'clean')).toBe('right');
  expect(existsSync(lock)).toBe(false);
  expect(runFoldersLeft()).toEqual(leftByKilled);
  // The planted files were neither read nor touched.
  expect(readFileSync(join(planted, 'outcome.json'), 'utf8')).toBe(forged);
  expect(readFileSync(join(planted, 'plan.json'), 'utf8')).toBe('{"claims": []}');

  // The implementation's TMPDIR was in the run's private folder, in the runner's TMPDIR...
  const seen = JSON.parse(readFileSync(join(dir, 'seen.json'), 'utf8')) as Record<string, unknown>;
  expect(String(seen.runDir).startsWith(join(tmpOfRuns(), 'ahp-conformance-run-')), JSON.stringify(seen)).toBe(true);
  if (containment().kind === 'sandbox') {
    // ...and, contained, it found nothing there but its own check folder.
    expect(seen, JSON.stringify(seen)).toMatchObject({ 'plan.json': 'ENOENT', 'outcome.json': 'ENOENT' });
    expect(
      (seen.listing as string[]).every((f) => f.startsWith('check-')),
      JSON.stringify(seen),
    ).toBe(true);
  }
  for (const f of leftByKilled) rmSync(join(tmpOfRuns(), f), { recursive: true, force: true });
});

test('CR4: a run ended by SIGTERM ends Playwright, releases its lock and removes its private folder', async () => {
  const dir = folder();
  const run = start(dir, ['run', 'clean.yaml', ...GREP]);
  const lock = join(dir, 'reports', '.lock');
  await expect.poll(() => existsSync(lock), { timeout: 60_000 }).toBe(true);
  process.kill(run.pid, 'SIGTERM');
  const r = await run.done;
  // Interrupted: whatever it says, it does not say a verdict it did not reach, and it cleans up.
  expect(r.code, r.out + r.err).not.toBe(0);
  expect(existsSync(lock)).toBe(false);
  expect(runFoldersLeft()).toEqual([]);
});

/** A live lock of this test's own process (a run that is still going), as a run writes it. */
function liveLock(reports: string, what: string): void {
  mkdirSync(reports, { recursive: true });
  const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  writeFileSync(
    join(reports, '.lock'),
    JSON.stringify({
      tool: 'ahp-conformance',
      pid: process.pid,
      startedAt: new Date().toISOString(),
      host: hostname(),
      what,
      nonce: 'abcdefabcdefabcdefabcdefabcdef12',
      procStart: stat
        .slice(stat.lastIndexOf(')') + 1)
        .trim()
        .split(' ')[19],
    }),
  );
}

test('CR5-CR7: a folder another run writes: run and merge are refused in one line, --list runs, a shard locks only its blob folder', () => {
  test.skip(process.platform !== 'linux', 'the live lock is planted with its /proc start time');
  const dir = folder();
  const reports = join(dir, 'reports');
  liveLock(reports, 'run of other (other.yaml)');
  const before = readFileSync(join(reports, '.lock'), 'utf8');

  const refused = cli(dir, ['run', 'clean.yaml', 'faulty.yaml']);
  expect(refused.code, refused.out + refused.err).toBe(2);
  expect(refused.out).toBe('');
  expect(refused.err).toMatch(refusal('reports', 'run of other \\(other\\.yaml\\)'));

  // A merge writes the reports folder too (a blob that is never opened: the lock comes first).
  writeFileSync(join(dir, 'shard-1-of-1.zip'), 'not opened');
  const merge = cli(dir, ['merge', 'shard-1-of-1.zip']);
  expect(merge.code, merge.out + merge.err).toBe(2);
  expect(merge.err).toMatch(refusal('reports', 'run of other \\(other\\.yaml\\)'));

  // --list writes nothing in the reports folder and takes no lock.
  const list = cli(dir, ['run', 'clean.yaml', '--list']);
  expect(list.code, list.out + list.err).toBe(0);
  expect(list.out).toContain('base.protocol-version');

  // A shard writes only its blob: the reports folder's lock does not stop it, its blob
  // folder's does. (The one check goes to shard 1: shard 2 runs nothing and is cheap.)
  const shard = cli(dir, ['run', 'clean.yaml', '--shard', '2/2', ...GREP]);
  expect(shard.code, shard.out + shard.err).toBe(0);
  expect(existsSync(join(reports, 'blob', '2-of-2', 'shard-2-of-2.zip'))).toBe(true);
  liveLock(join(reports, 'blob', '1-of-2'), 'shard 1/2 of clean (clean.yaml)');
  const twice = cli(dir, ['run', 'clean.yaml', '--shard', '1/2', ...GREP]);
  expect(twice.code, twice.out + twice.err).toBe(2);
  expect(twice.err).toMatch(refusal('reports/blob/1-of-2', 'shard 1/2 of clean \\(clean\\.yaml\\)'));

  // The other run's lock is as it wrote it; nothing but it and the blobs is in the folder.
  expect(readFileSync(join(reports, '.lock'), 'utf8')).toBe(before);
  expect(readdirSync(reports).sort()).toEqual(['.lock', 'blob']);
  expect(runFoldersLeft()).toEqual([]);
});

test('CR8: a lock that is a symlink is refused in one line, not followed and not removed', () => {
  const dir = folder();
  const reports = join(dir, 'reports');
  mkdirSync(reports);
  const target = join(dir, 'precious.txt');
  writeFileSync(target, 'keep me');
  symlinkSync(target, join(reports, '.lock'));
  const r = cli(dir, ['run', 'clean.yaml', ...GREP]);
  expect(r.code, r.out + r.err).toBe(2);
  expect(r.err).toBe('ahp-conformance: reports/.lock is a symbolic link; if no run is writing reports, remove it\n');
  expect(readFileSync(target, 'utf8')).toBe('keep me');
  expect(readdirSync(reports)).toEqual(['.lock']);
  // A reports folder that is a file is one line too.
  const file = cli(dir, ['run', 'clean.yaml', '--reports', 'precious.txt']);
  expect(file.code, file.out + file.err).toBe(2);
  expect(file.err).toBe(
    'ahp-conformance: the reports folder precious.txt cannot be locked for this run: it is not a folder\n',
  );
});

test('the private run folder is made mode 0700 in the system temporary folder and removed with the run', async () => {
  const { makeRunFolder, removeRunFolder } = await import('../src/engine/run-folder.js');
  const f = makeRunFolder();
  try {
    expect(statSync(f.root).mode & 0o777).toBe(0o700);
    expect([f.plan, f.outcome, f.playwrightOutput].every((p) => p.startsWith(`${f.root}/`))).toBe(true);
  } finally {
    removeRunFolder(f);
  }
  expect(existsSync(f.root)).toBe(false);
});
