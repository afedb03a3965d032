// Sharding as a nightly job uses it: two claims (a conforming backend and a faulty one)
// run once unsharded and once as two Playwright shards in separate reports folders (as on
// two machines); `merge` of the two blob reports must give the same results, verdicts,
// exit code, matrix and summary lines as the unsharded run. A missing shard and shards of
// different runs must never pass for a complete merge.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ClaimResults } from '../src/results/model.js';
import { ROOT } from './support/paths.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
let dir: string;

test.describe.configure({ mode: 'serial' });
test.setTimeout(10 * 60_000);

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ahp-shard-'));
});
test.afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function claim(name: string, fault?: string, snapshot?: string, file = join(dir, `${name}.yaml`)): string {
  writeFileSync(
    file,
    [
      `implementation: { name: ${name}, version: 1.0.0 }`,
      ...(snapshot ? [`snapshot: ${snapshot}`] : []),
      'role: backend',
      'transports: [http]',
      'profiles: [tool-interception, lifecycle-observation]',
      'backend:',
      '  http:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(MAIN)}, --transport, http, --port, "{port}"${fault ? `, --fault, ${fault}` : ''}]`,
      '    url: "http://127.0.0.1:{port}/hooks"',
      '',
    ].join('\n'),
  );
  return file;
}

function cli(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 5 * 60_000,
    env: { ...process.env, AHP_PROGRESS: 'line' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const results = (reports: string, name: string): ClaimResults =>
  JSON.parse(readFileSync(join(reports, name, 'results.json'), 'utf8')) as ClaimResults;

/** What must not depend on how the run was split: everything but times and the per-run random ids in evidence. */
function comparable(r: ClaimResults): unknown {
  const { generatedAt: _, checks, run, ...rest } = r;
  const { startedAt: _s, durationMs: _t, ...how } = run ?? {};
  return {
    ...rest,
    run: how,
    checks: checks.map(({ durationMs: _d, evidence, transcript, message, ...c }) => ({
      ...c,
      message: message
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
        .replace(/\d+(\.\d+)? ?ms\b/g, '<n> ms'),
      evidence: evidence !== undefined,
      transcript: transcript !== undefined,
    })),
  };
}

/** Summary lines without the reports folder each points to. */
const summaries = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => / (conformant|nonconformant|incomplete|partial)\b.* -> /.test(l))
    .map((l) => l.replace(/ -> .*$/, ''));

test('two shards merged give the same results as one unsharded run', () => {
  const claims = [claim('good'), claim('faulty', 'no-result-version')];
  const whole = cli(['run', ...claims, '--reports', 'whole']);
  expect(whole.code, whole.err).toBe(1);

  const one = cli(['run', ...claims, '--shard', '1/2', '--reports', 'machine-1']);
  const two = cli(['run', ...claims, '--shard', '2/2', '--reports', 'machine-2']);
  for (const s of [one, two]) {
    expect(s.code, s.err).toBe(0); // a shard gives no verdict
    expect(s.out).toMatch(/shard [12]\/2 -> /);
  }
  expect(existsSync(join(dir, 'machine-1', 'good', 'results.json'))).toBe(false);
  const merged = cli(['merge', 'machine-1/blob', 'machine-2/blob', '--reports', 'merged']);
  expect(merged.code, merged.err).toBe(whole.code);
  expect(merged.err).toBe('');
  expect(merged.out).toContain('merged shards 1/2, 2/2');
  expect(merged.out).not.toContain('ahp-merge-'); // Playwright's progress lines name the staging folder

  for (const name of ['good', 'faulty']) {
    const a = results(join(dir, 'whole'), name);
    const b = results(join(dir, 'merged'), name);
    expect(comparable(b)).toEqual(comparable(a));
  }
  expect(results(join(dir, 'merged'), 'good').verdict).toBe('conformant');
  expect(results(join(dir, 'merged'), 'faulty').verdict).toBe('nonconformant');
  // The failing check keeps its evidence and wire transcript through the blob reports.
  const failed = results(join(dir, 'merged'), 'faulty').checks.filter((c) => c.status === 'failed');
  expect(failed.length).toBeGreaterThan(0);
  for (const c of failed) expect(c.transcript?.length, c.id).toBeGreaterThan(0);
  expect(summaries(merged.out)).toEqual(summaries(whole.out));
  for (const f of [
    'index.html',
    'playwright/index.html',
    'good/index.html',
    'good/junit.xml',
    'faulty/index.html',
    'faulty/junit.xml',
  ]) {
    expect(existsSync(join(dir, 'merged', f)), f).toBe(true);
  }
  expect(readFileSync(join(dir, 'merged', 'index.html'), 'utf8')).toContain('faulty');

  // The merge judges like run: a baseline of the unsharded run finds no new failure.
  // Signed by the merge (--sign-key): the attestation verifies with the public key.
  expect(cli(['keygen', 'merger']).code).toBe(0);
  const judged = cli([
    'merge',
    'machine-1',
    'machine-2',
    '--reports',
    'merged-vs-whole',
    '--baseline',
    'whole',
    '--sign-key',
    'merger.key',
  ]);
  expect(judged.code, judged.err).toBe(0);
  expect(judged.out).toContain('vs baseline: 0 new failures');
  const verified = cli(['verify', 'merged-vs-whole', '--key', 'merger.pub']);
  expect(verified.code, verified.out).toBe(0);
  expect(verified.out).toMatch(/merged-vs-whole\/good: verified: .*; signed by key [0-9a-f]{64} at /);
});

test('a merge with a shard missing is partial (or nonconformant for a failure it holds), never conformant; exit 2', () => {
  const r = cli(['merge', 'machine-1/blob', '--reports', 'half']);
  expect(r.code).toBe(2);
  expect(r.out).toContain('MISSING 2/2');
  for (const name of ['good', 'faulty']) {
    const res = results(join(dir, 'half'), name);
    // A failure in the merged shard is a finding; without one the claim is partial.
    expect(res.verdict).toBe(res.counts.failed ? 'nonconformant' : 'partial');
    expect(res.coverage!.ran).toBeLessThan(res.coverage!.needed);
    expect(res.coverage!.why?.join(' ')).toContain('shard 2/2 missing from the merge');
    expect(res.targets.every((t) => t.verdict !== 'conformant')).toBe(true);
    expect(r.out).toMatch(
      new RegExp(
        `${name} 1\\.0\\.0: (partial: |nonconformant \\(.*)ran ${res.coverage!.ran} of ${res.coverage!.needed} checks the claim needs`,
      ),
    );
  }
  expect(results(join(dir, 'half'), 'good').verdict).toBe('partial');
  // The matrix names the reason under each target, and a cell with checks of the missing shard is never green.
  const matrix = readFileSync(join(dir, 'half', 'index.html'), 'utf8');
  expect(matrix).toMatch(/<div class="muted reason">ran \d+ of \d+ checks \(shard 2\/2 missing from the merge/);
  expect(matrix).toContain('s-incomplete">not all run');
  expect(matrix).not.toMatch(/<span class="s s-passed">passed<\/span><\/a><div class="muted">[^<]*not run/);
  // merge --certify of the same half: never partial, never conformant.
  const certified = cli(['merge', 'machine-1/blob', '--reports', 'half-certified', '--certify']);
  expect(certified.code).toBe(2);
  const good = results(join(dir, 'half-certified'), 'good');
  expect(good.verdict).toBe('incomplete');
  expect(good.reason).toContain('a certification needs every check the claim needs: ran');
});

test('shards of different runs, the same shard twice, and junk are refused in one line', () => {
  // Shard 2/2 of another set of claims (only the first claim), kept small with --grep.
  const other = cli(['run', claim('good'), '--shard', '2/2', '--reports', 'other', '--grep', 'base.jsonrpc-utf8']);
  expect(other.code, other.err).toBe(0);
  const mixed = cli(['merge', 'machine-1/blob', 'other/blob', '--reports', 'mixed']);
  expect(mixed.code).toBe(2);
  expect(mixed.err.trim().split('\n')).toHaveLength(1);
  expect(mixed.err).toContain('different runs');

  mkdirSync(join(dir, 'copy'));
  copyFileSync(join(dir, 'machine-1', 'blob', '1-of-2', 'shard-1-of-2.zip'), join(dir, 'copy', 'shard-1-of-2.zip'));
  const twice = cli(['merge', 'machine-1/blob', 'copy', 'machine-2/blob', '--reports', 'twice']);
  expect(twice.code).toBe(2);
  expect(twice.err).toContain('two blob reports of the same shard');
  writeFileSync(join(dir, 'junk.zip'), 'not a zip');
  const junk = cli(['merge', 'junk.zip', '--reports', 'junk']);
  expect(junk.code).toBe(2);
  expect(junk.err.trim().split('\n')).toHaveLength(1);
  expect(junk.err).not.toMatch(/\n\s+at /);
  const none = cli(['merge', 'whole/good']);
  expect(none.code).toBe(2);
  expect(none.err).toContain('no blob reports');
});

test('shards that judged a claim by different snapshots are refused in one line, exit 2', () => {
  // The claim file edited between the shards (as on two machines): small runs, kept so with --grep.
  const file = join(dir, 'snap.yaml');
  for (const [i, snapshot] of [
    [1, 'draft@2b5da580'],
    [2, 'draft@1d98c19'],
  ] as const) {
    claim('snap', undefined, snapshot, file);
    const r = cli(['run', file, '--shard', `${i}/2`, '--reports', `snap-${i}`, '--grep', 'base.jsonrpc-utf8']);
    expect(r.code, r.err).toBe(0);
  }
  const merged = cli(['merge', 'snap-1/blob', 'snap-2/blob', '--reports', 'snap-merged']);
  expect(merged.code).toBe(2);
  expect(merged.err.trim().split('\n')).toEqual([
    'ahp-conformance: merge: the shards judged snap by different snapshots (shard 1/2 by draft@2b5da580; shard 2/2 by draft@1d98c19); merge shards of one run only',
  ]);
  expect(existsSync(join(dir, 'snap-merged', 'snap', 'results.json'))).toBe(false);
});

test('shards that ran with --grep merge into results that say so, and --certify refuses them', () => {
  for (const i of [1, 2]) {
    const r = cli(['run', claim('good'), '--shard', `${i}/2`, '--reports', `grep-${i}`, '--grep', 'base.jsonrpc-utf8']);
    expect(r.code, r.err).toBe(0);
  }
  const merged = cli(['merge', 'grep-1/blob', 'grep-2/blob', '--reports', 'grep-merged']);
  expect(merged.code, merged.err).toBe(0);
  expect(results(join(dir, 'grep-merged'), 'good').run?.selection).toEqual({ grep: 'base.jsonrpc-utf8' });
  const certify = cli(['merge', 'grep-1/blob', 'grep-2/blob', '--reports', 'grep-certified', '--certify']);
  expect(certify.code).toBe(2);
  expect(certify.err.trim().split('\n')).toEqual([
    'ahp-conformance: --certify accepts no shards that ran with --grep or --grep-invert (a certificate covers every check)',
  ]);
  expect(existsSync(join(dir, 'grep-certified', 'good', 'results.json'))).toBe(false);
});

test('run --shard refuses judging options, which belong to merge', () => {
  const r = cli(['run', claim('good'), '--shard', '1/2', '--certify']);
  expect(r.code).toBe(2);
  expect(r.err).toContain('pass --certify to `ahp-conformance merge`');
  const bad = cli(['run', claim('good'), '--shard', '0/2']);
  expect(bad.code).toBe(2);
});
