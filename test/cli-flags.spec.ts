// The command line's options as a user meets them: every bad input is one line on stderr
// and exit 2 before anything is read or started, the help a Playwright user types, the
// catalogue filters, and no crash when the reader of stdout stops early.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import getPort from 'get-port';
import { writeClaimResults } from '../src/results/write.js';
import { ROOT } from './support/paths.js';
import { resultsWith } from './support/results-fixture.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const CLAIM = resolve(ROOT, 'claims', 'reference-backend.yaml');
function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
let dir = '';
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ahp-cli-flags-'));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

// [arguments, what the one line must say]. A run's options are checked before its claims
// are read, so a missing claim file never hides them.
const BAD: [string[], RegExp][] = [
  [['run', CLAIM, '--workers', '0'], /--workers takes a number of at least 1/],
  [['run', CLAIM, '--workers', '150%'], /--workers .*1% to 100%/],
  [['run', CLAIM, '--workers', 'many'], /--workers/],
  [['run', CLAIM, '--grep', '('], /--grep "\(" is not a regular expression/],
  [['run', CLAIM, '--grep-invert', '['], /--grep-invert "\[" is not a regular expression/],
  [['run', CLAIM, '--shard', '3/2'], /--shard 3\/2: the shard must be between 1 and 2/],
  [['run', CLAIM, '--shard', '1/0'], /--shard 1\/0: the number of shards must be at least 1/],
  [['run', CLAIM, '--shard', 'half'], /--shard takes <shard>\/<shards>, for example 1\/3/],
  [['run', CLAIM, '--retries', '-1'], /--retries takes a number from 0 to 99/],
  [['run', CLAIM, '--max-failures', '0'], /--max-failures takes a number of at least 1/],
  [['run', CLAIM, '-x', '--max-failures', '2'], /-x is --max-failures 1/],
  [['run', CLAIM, '--reporter', 'html'], /--reporter takes list, line, dot, json/],
  [['run', CLAIM, '--reporter', 'dot', '--quiet'], /--quiet prints no progress/],
  [['run', CLAIM, '--timeout-ms', '10'], /--timeout-ms takes milliseconds from 50 to 60000/],
  [['run', CLAIM, '--timeout-ms', '2s'], /--timeout-ms takes milliseconds/],
  [['run', CLAIM, '--timeout-ms', '500', '--certify'], /--certify accepts no --timeout-ms/],
  [['run', CLAIM, '--repeat', '0'], /--repeat takes a number from 1 to 100 \(got "0"\)/],
  [['run', CLAIM, '--repeat', '101'], /--repeat takes a number from 1 to 100/],
  [['run', CLAIM, '--repeat', 'twice'], /--repeat takes a number from 1 to 100/],
  [
    ['run', CLAIM, '--repeat', '3', '--certify'],
    /--certify accepts no --repeat \(a certificate is of one run of each check/,
  ],
  [['run', CLAIM, '--list', '--shard', '1/2'], /--list lists every check/],
  [['run', CLAIM, '--timeout'], /unknown option --timeout/],
  [['run', CLAIM, '-z'], /unknown option -z/],
  [['--json'], /no command given: run, merge/],
  [['validate', 'x.json', '--retries', '1'], /--retries: only `run` takes this/],
  [['merge', 'blobs', '-x'], /-x: only `run` takes this/],
  [['merge', 'blobs', '--full-transcripts'], /--full-transcripts: only `run` takes this/],
  [['merge', 'blobs', '--repeat', '2'], /--repeat: only `run` takes this/],
  [['--checks', '--role', 'editor'], /--role takes backend or harness/],
  [['--checks', '--profile', 'nope'], /--profile takes one of base, /],
  [['run', CLAIM, '--role', 'backend'], /--role filters --checks/],
  [['--checks', '--snapshot', 'draft@zzz'], /--snapshot takes one of draft@2b5da580, draft@1d98c19 or draft/],
  [['run', CLAIM, '--snapshot', 'draft'], /--snapshot filters --checks/],
  [['show-report', join('no', 'such', 'folder')], /show-report: .* does not exist/],
  [['show-report', CLAIM], /show-report: .* is not a folder/],
  [['show-report', '.', '--port', 'http'], /--port takes a port number/],
];

test('bad options: one line on stderr, exit 2, no stack trace, nothing run', () => {
  for (const [args, says] of BAD) {
    const r = cli(...args);
    const what = `ahp-conformance ${args.join(' ')}\n${r.err}${r.out}`;
    expect(r.code, what).toBe(2);
    expect(r.err.trim().split('\n'), what).toHaveLength(1);
    expect(r.err, what).toMatch(says);
    expect(r.err, what).not.toMatch(/\n\s+at .+:\d+:\d+|SyntaxError|internal error/);
    expect(r.out, what).not.toContain('certifying');
  }
});

test('-h and -v are --help and --version; the run usage shows --shard and the new options', () => {
  const h = cli('-h');
  expect(h.code).toBe(0);
  expect(h.out).toBe(cli('--help').out);
  for (const o of [
    '--shard <i>/<n>',
    '--list',
    '--reporter list|line|dot|json',
    '--retries',
    '--repeat <n>',
    '--max-failures',
    '-x',
    '--timeout-ms',
    '--full-transcripts',
    '--quiet',
    '--no-color',
    'show-report',
  ])
    expect(h.out).toContain(o);
  expect(cli('-v').out).toMatch(/^ahp-conformance \d+\.\d+\.\d+/);
});

test('--no-color and NO_COLOR are accepted, and no output is coloured', () => {
  const r = spawnSync(process.execPath, [BIN, '--checks', '--no-color'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '1' },
  });
  expect(r.status).toBe(0);
  expect(r.stdout).not.toContain('\u001b[');
});

test('--checks filters by role and profile, and --json gives the same rows as data', () => {
  const all = JSON.parse(cli('--checks', '--json').out) as { id: string; roles: string[]; profile: string }[];
  const harness = JSON.parse(cli('--checks', '--role', 'harness', '--json').out) as typeof all;
  expect(harness.length).toBeGreaterThan(0);
  expect(harness.length).toBeLessThan(all.length);
  expect(harness.every((c) => c.roles.includes('harness'))).toBe(true);
  const ti = JSON.parse(
    cli('--checks', '--role', 'backend', '--profile', 'tool-interception', '--json').out,
  ) as typeof all;
  expect(ti.length).toBeGreaterThan(0);
  expect(ti.every((c) => c.profile === 'tool-interception' && c.roles.includes('backend'))).toBe(true);
  const lines = cli('--checks', '--role', 'harness').out.trim().split('\n');
  expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(harness.map((c) => c.id));
});

test('--checks --snapshot lists every check, those judging a rule the snapshot lacks as n/a; the help names the snapshots', () => {
  type Row = { id: string; snapshots?: string[]; applicable?: boolean };
  const all = JSON.parse(cli('--checks', '--json').out) as Row[];
  for (const id of ['draft@2b5da580', 'draft@1d98c19']) {
    const rows = JSON.parse(cli('--checks', '--snapshot', id, '--json').out) as Row[];
    expect(rows.map((r) => r.id)).toEqual(all.map((r) => r.id));
    for (const r of rows) expect(r.applicable, r.id).toBe(r.snapshots === undefined || r.snapshots.includes(id));
    const lines = cli('--checks', '--snapshot', id).out.trim().split('\n');
    for (const [i, r] of rows.entries()) expect(lines[i]!.split(/\s+/)[1] === 'n/a', r.id).toBe(!r.applicable);
  }
  // Plain draft is the newest.
  expect(cli('--checks', '--snapshot', 'draft', '--json').out).toBe(
    cli('--checks', '--snapshot', 'draft@1d98c19', '--json').out,
  );
  const help = cli('--help').out;
  expect(help).toContain('Snapshots this runner judges by: draft@2b5da580 (upstream commit 2b5da5809b9b)');
  expect(help).toContain('draft@1d98c19 (upstream commit 1d98c19bf455)');
  expect(help).toContain('plain draft means the newest, draft@1d98c19');
  expect(help).not.toContain('snapshot "draft"');
});

test('a reader that stops early (--checks | head) ends the command quietly, not with EPIPE', async () => {
  const child = spawn(process.execPath, [BIN, '--checks'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  // Close our end at once, as `head -1` does after its line.
  child.stdout.destroy();
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  expect(err).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
  expect(code).toBe(0);
});

test('validate: a success response with a null id is invalid (only an error may have one), under any kind', () => {
  const file = join(dir, 'null-id.json');
  writeFileSync(file, JSON.stringify({ jsonrpc: '2.0', id: null, result: { protocolVersion: 'draft', effects: [] } }));
  const r = cli('validate', file, '--as', 'intercept-response');
  expect(r.code).toBe(1);
  expect(r.out).toContain('error /id: a result must carry the id of the request it answers');
  expect(r.out).toContain('[jsonrpc.result-null-id, AHP-RPC-001]');
  writeFileSync(
    file,
    JSON.stringify({ jsonrpc: '2.0', id: 'evt-1', result: { protocolVersion: 'draft', effects: [] } }),
  );
  expect(cli('validate', file, '--as', 'intercept-response').code).toBe(0);
  writeFileSync(file, JSON.stringify({ jsonrpc: '2.0', id: null, result: { protocolVersion: 'draft', effects: [] } }));
  expect(cli('validate', file).out).toContain('jsonrpc.result-null-id');
  const error = join(dir, 'null-id-error.json');
  writeFileSync(error, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
  expect(cli('validate', error, '--as', 'error-response').code).toBe(0);
});

test('show-report serves the one claim report of a reports folder on loopback', async () => {
  const reports = join(dir, 'reports');
  writeClaimResults(join(reports, 'acme'), resultsWith({ 'base.jsonrpc-utf8': 'passed' }));
  const port = await getPort({ host: '127.0.0.1' });
  const child = spawn(process.execPath, [BIN, 'show-report', reports, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // No browser to open here: Playwright skips opening one for a coding agent.
    env: { ...process.env, CLAUDECODE: '1', BROWSER: 'none' },
  });
  try {
    let out = '';
    await new Promise<void>((ready, fail) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Serving HTML report at')) ready();
      });
      child.on('close', () => fail(new Error(`show-report ended: ${out}`)));
    });
    expect(out).toContain(`serving ${join(reports, 'acme')}`);
    const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(page).toContain('acme 1: conformant');
  } finally {
    // As Ctrl+C would: show-report ends its server and exits 0.
    const closed = new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    child.kill('SIGINT');
    expect(await closed).toBe(0);
  }
});
