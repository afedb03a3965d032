// The run options a Playwright user expects, on a real run of the deliberately faulty
// example claim (the reference backend whose deny effects carry an empty reason, so
// ti.deny-samples fails): --list, the progress reporters and their failure blocks,
// --quiet, --retries, --repeat, --max-failures/-x, --timeout-ms and --full-transcripts.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClaimResults } from '../src/results/model.js';
import { PASS_TRANSCRIPT_ENTRIES } from '../src/results/reporter.js';
import { checkGrep } from '../src/results/check-title.js';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const CLAIM = resolve(ROOT, 'claims', 'examples', 'faulty-backend.yaml');
const workspace = tempFolders('ahp-run-flags-');

function run(...args: string[]): { code: number | null; out: string; err: string; reports: string } {
  const reports = join(workspace(), 'reports');
  const r = spawnSync(process.execPath, [BIN, 'run', CLAIM, '--reports', reports, '--workers', '2', ...args], {
    encoding: 'utf8',
    timeout: 240_000,
    // The default progress, whatever the caller's environment says.
    env: { ...process.env, AHP_PROGRESS: '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr, reports };
}
const results = (reports: string): ClaimResults =>
  JSON.parse(readFileSync(join(reports, 'faulty-backend', 'results.json'), 'utf8')) as ClaimResults;

test('--list lists the checks the run would run and runs nothing', () => {
  const r = run('--list', '--grep', 'ti.deny-samples|base.jsonrpc');
  expect(r.code, r.err).toBe(0);
  expect(r.out).toContain('ti.deny-samples');
  expect(r.out).toContain('base.jsonrpc-utf8');
  expect(r.out).not.toContain('stdio.framing');
  expect(r.out).toMatch(/Total: 4 tests/);
  expect(existsSync(join(r.reports, 'faulty-backend'))).toBe(false);
});

test('--grep matches the check title, the check id first (docs/cli.md): ^ anchors at the id; a target-named grep still works', () => {
  // Playwright's own --grep matched the title path (project, file, title), where ^ti\. matched nothing.
  const r = run('--list', '--grep', '^ti\\.', '--grep-invert', 'DENY|modify');
  expect(r.code, r.err).toBe(0);
  const listed = [...r.out.matchAll(/› (\S+): /g)].map((m) => m[1]!);
  expect(listed.length).toBeGreaterThan(0);
  for (const id of listed) expect(id).toMatch(/^ti\./);
  // Case-insensitive, as Playwright's: DENY left out ti.deny-samples.
  expect(listed).not.toContain('ti.deny-samples');
  expect(listed).not.toContain('ti.modify-samples');
  expect(listed).toContain('ti.response-id');
  // The report's rerun command names one check of one target.
  const one = run('--list', '--grep', checkGrep(['ti.response-id'], 'faulty-backend:backend:http'));
  expect(one.code, one.err).toBe(0);
  expect(one.out).toMatch(/\[faulty-backend:backend:http\] › \S+ › ti\.response-id: /);
  expect(one.out).toMatch(/Total: 1 test in 1 file/);
  // A grep that selects nothing lists nothing: no error of the runner.
  const none = run('--list', '--grep', '^no-such-check');
  expect(none.code, none.err).toBe(0);
  expect(none.out).toMatch(/Total: 0 tests/);
});

test('a failure block: the message and the replies of the transcript, no runner code, no error-context', () => {
  const r = run('--grep', 'ti.deny-samples');
  expect(r.code, r.err).toBe(1);
  expect(r.out).toContain('sample rm_rf: the deny is not valid: /reason');
  // The request and the reply (the evidence) are both there.
  expect(r.out).toMatch(/>> stdio {2}\{"jsonrpc":"2\.0"/);
  expect(r.out).toMatch(/<< stdio {2}\{"jsonrpc":"2\.0".*"reason":""/);
  expect(r.out).toMatch(/<< http {3}http:\/\/127\.0\.0\.1:\d+\/hooks 200/);
  for (const absent of ['judge.fail', 'error-context', 'CheckFailure', '.spec.ts', ' |    '])
    expect(r.out, absent).not.toContain(absent);
  expect(r.out).toMatch(/0 passed, 2 failed \(\d+\.\ds\)/);
});

test('--reporter dot prints a character per check, and --quiet no progress at all', () => {
  const dot = run('--grep', 'ti.deny-samples|base.jsonrpc', '--reporter', 'dot');
  expect(dot.code, dot.err).toBe(1);
  expect(dot.out).toMatch(/^[·F]{4}$/m);
  const quiet = run('--grep', 'base.jsonrpc', '--quiet');
  expect(quiet.code, quiet.err).toBe(0);
  expect(quiet.out.trim().split('\n')).toHaveLength(2);
  expect(quiet.out).toContain('certifying faulty-backend');
  // Only some checks ran, all passing: partial, never a bare conformant (the exit stays 0).
  expect(quiet.out).toMatch(
    /faulty-backend 0\.1\.0: partial: ran 2 of \d+ checks the claim needs \(2 passed, 0 failed;/,
  );
});

test('--reporter json: Playwright JSON alone on stdout, our lines on stderr; --timeout-ms and --retries recorded', () => {
  const r = run('--grep', 'ti.deny-samples', '--reporter', 'json', '--timeout-ms', '3000', '--retries', '1');
  expect(r.code, r.err).toBe(1);
  const report = JSON.parse(r.out) as { stats: { unexpected: number } };
  expect(report.stats.unexpected).toBe(2);
  expect(r.err).toContain('--timeout-ms 3000: replaces timeoutMs 2000 of faulty-backend');
  expect(r.err).toContain('faulty-backend 0.1.0: nonconformant');
  const res = results(r.reports);
  expect(res.claim.timeoutMsOverride).toEqual({ claim: 2000, run: 3000 });
  expect(res.checks.filter((c) => c.id === 'ti.deny-samples')).toHaveLength(2);
  for (const c of res.checks) expect(c).toMatchObject({ status: 'failed', attempts: 2 });
  expect(readFileSync(join(r.reports, 'faulty-backend', 'index.html'), 'utf8')).toContain(
    '3000 (run --timeout-ms; the claim says 2000)',
  );
});

test('--repeat runs every check n times and records each repetition; --list lists each check once', () => {
  const r = run('--grep', 'base.jsonrpc', '--repeat', '2', '--reporter', 'line');
  expect(r.code, r.err).toBe(0);
  expect(r.out).toMatch(/Running 2 checks, 2 times each using \d workers?/);
  expect(r.out).toContain('(repetition 2/2)');
  expect(r.out).toMatch(
    /partial: ran 2 of \d+ checks the claim needs \(2 passed, 0 failed, 0 flaky across 2 repetitions;/,
  );
  const res = results(r.reports);
  expect(res.run?.repeat).toBe(2);
  expect(res.checks).toHaveLength(2);
  for (const c of res.checks) {
    expect(c.repetitions!.map((x) => x.status)).toEqual(['passed', 'passed']);
    expect(c.flaky).toBeUndefined();
  }
  expect(run('--list', '--grep', 'base.jsonrpc', '--repeat', '3').out).toMatch(/Total: 2 tests/);
});

test('--full-transcripts keeps every entry of a passing check, and says so; without it a pass keeps a bounded transcript', () => {
  // stdio.persistent-exchanges passes here with about a hundred entries in one fast check.
  const exchanges = (r: { code: number | null; err: string; reports: string }) => {
    expect(r.code, r.err).toBe(0);
    const res = results(r.reports);
    const c = res.checks.find((x) => x.id === 'stdio.persistent-exchanges')!;
    expect(c.status).toBe('passed');
    return { run: res.run, transcript: c.transcript! };
  };
  const whole = exchanges(run('--grep', 'stdio.persistent-exchanges', '--quiet', '--full-transcripts'));
  expect(whole.run?.fullTranscripts).toBe(true);
  expect(whole.transcript.length).toBeGreaterThan(PASS_TRANSCRIPT_ENTRIES);
  expect(whole.transcript.filter((l) => l.note?.includes('left out'))).toEqual([]);
  const bounded = exchanges(run('--grep', 'stdio.persistent-exchanges', '--quiet'));
  expect(bounded.run?.fullTranscripts).toBeUndefined();
  expect(bounded.transcript).toHaveLength(PASS_TRANSCRIPT_ENTRIES);
  expect(bounded.transcript.at(-1)!.note).toMatch(/\d+ entries left out here/);
});

test('-x stops at the first failure: nonconformant for that failure, saying how many checks ran; none failed for being cut short', () => {
  const r = run('-x', '--workers', '1', '--grep', 'ti.deny-samples|base.jsonrpc', '--reporter', 'line');
  expect(r.code, r.err).toBe(1);
  expect(r.out).toMatch(/1 failed, \d+ not run/);
  const res = results(r.reports);
  expect(res.verdict).toBe('nonconformant');
  expect(res.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['ti.deny-samples']);
  // The checks the stop left behind are recorded as not run, never as failures.
  const notRun = res.checks.filter((c) => c.status === 'not-run');
  expect(notRun.length).toBeGreaterThan(0);
  for (const c of notRun) expect(c.message).toMatch(/^the run stopped before this check (started|finished)/);
  expect(res.coverage!.ran).toBeLessThan(4);
  expect(res.coverage!.why).toContain('the run stopped early at --max-failures 1');
  expect(r.out).toMatch(
    new RegExp(
      `faulty-backend 0\\.1\\.0: nonconformant \\([^)]*; ran ${res.coverage!.ran} of ${res.coverage!.needed} checks the claim needs: left out by --grep`,
    ),
  );
});

test('--certify without the sandbox is refused with one line unless --allow-weak-containment is given', () => {
  const weak = (...args: string[]) => {
    const reports = join(workspace(), 'reports');
    const r = spawnSync(process.execPath, [BIN, 'run', CLAIM, '--reports', reports, ...args], {
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, AHP_CONTAINMENT: 'process-group' },
    });
    return { code: r.status, out: r.stdout, err: r.stderr, reports };
  };
  const refused = weak('--certify');
  expect(refused.code).toBe(2);
  expect(refused.err.trim().split('\n')).toHaveLength(1);
  expect(refused.err).toMatch(/--certify needs the sandbox.*--allow-weak-containment/);
  expect(refused.out).toBe('');
  expect(existsSync(refused.reports)).toBe(false);
  const alone = weak('--allow-weak-containment', '--list');
  expect(alone.code).toBe(2);
  expect(alone.err).toMatch(/--allow-weak-containment relaxes --certify only/);
});
