// The command line as a user meets it: exit codes, one-line errors, no stack traces.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  HAVE_SPEC,
  HAVE_SPEC_1D98C19,
  NO_SPEC_1D98C19_REASON,
  NO_SPEC_REASON,
  ROOT,
  SPEC_DIR,
  SPEC_DIR_1D98C19,
} from './support/paths.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const made: string[] = [];
const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-cli-'));
  made.push(dir);
  return dir;
};
test.afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const noStack = (s: string): void => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);

const goodRequest = {
  jsonrpc: '2.0',
  id: 'evt-1',
  method: 'hooks/intercept',
  params: {
    protocolVersion: 'draft',
    capabilities: { effects: ['deny'] },
    event: {
      id: 'evt-1',
      source: 'ahp://harness/test',
      type: 'tool.before',
      time: '2026-11-30T12:00:00Z',
      harness: { name: 'test-harness', version: '1.0.0' },
      call: { id: 'call-1' },
      tool: { name: 'shell', input: { command: 'ls' }, origin: 'native' },
      path: 'shell',
    },
  },
};

test('--help and --version exit 0', () => {
  const help = cli('--help');
  expect(help.code).toBe(0);
  expect(help.out).toContain('ahp-conformance fixtures <specDir>');
  expect(cli('--version').out).toMatch(/^ahp-conformance \d+\.\d+\.\d+/);
});

test('unknown command and option: one line, exit 2', () => {
  for (const r of [cli('frobnicate'), cli('validate', '--nope', 'x')]) {
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    noStack(r.err);
  }
});

test('validate: a valid message exits 0, an invalid one exits 1 with JSON paths', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'ok.json'), JSON.stringify(goodRequest));
  const ok = cli('validate', join(dir, 'ok.json'));
  expect(ok.code).toBe(0);
  expect(ok.out).toContain('valid (intercept-request)');
  const bad = structuredClone(goodRequest) as typeof goodRequest;
  bad.id = 'other';
  writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
  const r = cli('validate', join(dir, 'bad.json'));
  expect(r.code).toBe(1);
  expect(r.out).toContain('INVALID');
  expect(r.out).toContain('/id: JSON-RPC id "other" must equal params.event.id "evt-1"');
});

test('validate: profile findings are warnings with their check id and do not fail', () => {
  const dir = tmp();
  const noHarness = structuredClone(goodRequest) as { params: { event: Record<string, unknown> } };
  delete noHarness.params.event.harness;
  writeFileSync(join(dir, 'm.json'), JSON.stringify(noHarness));
  // draft@2b5da580 requires harness only on session.start: base-8 is a profile warning there.
  const r = cli('validate', join(dir, 'm.json'), '--snapshot', 'draft@2b5da580');
  expect(r.code).toBe(0);
  expect(r.out).toContain('warning [base-8] /params/event/harness');
  // draft@1d98c19 (plain draft, the default) requires it on every event: one wire error, no warning on top.
  const newest = cli('validate', join(dir, 'm.json'));
  expect(newest.code).toBe(1);
  expect(newest.out).toContain('judged by draft@1d98c19');
  expect(newest.out).toContain('missing required member "harness"');
  expect(newest.out).not.toContain('base-8');
});

test('validate --snapshot: the snapshot that judged is named; an unknown one is one line, exit 2', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'r.json'), '{"jsonrpc":"2.0","id":"e1","result":{"protocolVersion":"draft"}}');
  const newest = cli('validate', join(dir, 'r.json'), '--snapshot', 'draft');
  expect(newest.out).toMatch(/^judged by draft@1d98c19 \(upstream commit 1d98c19/m);
  expect(newest.code).toBe(0); // 1d98c19: an intercept result may leave out effects
  const oldest = cli('validate', join(dir, 'r.json'), '--snapshot', 'draft@2b5da580');
  expect(oldest.out).toContain('judged by draft@2b5da580');
  expect(oldest.code).toBe(1);
  const bad = cli('validate', join(dir, 'r.json'), '--snapshot', 'draft@0000000');
  expect(bad.code).toBe(2);
  expect(bad.err.trim().split('\n')).toHaveLength(1);
  expect(bad.err).toContain('unknown snapshot "draft@0000000"');
  noStack(bad.err);
  expect(cli('--kinds', '--snapshot', 'draft@2b5da580').out).not.toContain('configuration-request');
  expect(cli('--kinds').out).toContain('configuration-request');
});

test('validate: a transcript is judged line by line', () => {
  const dir = tmp();
  const lines = [
    JSON.stringify(goodRequest),
    '{"jsonrpc":"2.0","id":"evt-1","result":{"protocolVersion":"draft","effects":[]}}',
    'not json',
  ];
  writeFileSync(join(dir, 't.jsonl'), `${lines.join('\n')}\n`);
  const r = cli('validate', join(dir, 't.jsonl'));
  expect(r.code).toBe(1);
  expect(r.out).toContain('t.jsonl:1: valid (intercept-request)');
  expect(r.out).toContain('t.jsonl:2: valid (intercept-response)');
  expect(r.out).toContain('t.jsonl:3: INVALID');
  expect(r.out).toContain('validate: 3 messages, 1 invalid');
});

test('validate: bad input gets one clear line and exit 2', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'x.json'), '{"a":');
  writeFileSync(join(dir, 'y.json'), Buffer.from([0x7b, 0xff, 0x7d]));
  writeFileSync(join(dir, 'z.json'), '{"a":1,"a":2}');
  for (const [file, text] of [
    [join(dir, 'missing.json'), 'no such file'],
    [join(dir, 'x.json'), 'not valid JSON'],
    [join(dir, 'y.json'), 'not valid UTF-8'],
    [join(dir, 'z.json'), 'duplicate object key "a"'],
  ] as const) {
    const r = cli('validate', file);
    expect(r.code, file).toBe(2);
    expect(r.err).toContain(text);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    noStack(r.err);
  }
});

test('validate --as forces a kind; an unknown kind is a usage error', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'e.json'), JSON.stringify(goodRequest.params.event));
  expect(cli('validate', join(dir, 'e.json'), '--as', 'event:tool.before').code).toBe(0);
  expect(cli('validate', join(dir, 'e.json'), '--as', 'event:session.start').code).toBe(1);
  expect(cli('validate', join(dir, 'e.json'), '--as', 'nonsense').code).toBe(2);
});

test('fixtures: an unreadable directory exits 2 with one line', () => {
  const r = cli('fixtures', join(tmp(), 'nowhere'));
  expect(r.code).toBe(2);
  expect(r.err).toContain('not an AHP snapshot directory');
  noStack(r.err);
});

test.describe('with the upstream snapshot', () => {
  test.skip(!HAVE_SPEC, NO_SPEC_REASON);
  test('fixtures --spec prints both closing lines and exits 0', () => {
    const r = cli('fixtures', SPEC_DIR, '--spec', SPEC_DIR);
    expect(r.out).toContain('fixtures: judged by draft@2b5da580');
    expect(r.out).toMatch(/^fixtures: \d+ agree, 0 disagree \(of \d+\)$/m);
    expect(r.out).toMatch(/^fixtures \(snapshot schemas\): \d+ agree, 0 disagree \(of \d+\)$/m);
    expect(r.code).toBe(0);
  });

  test('fixtures under a snapshot without fixtures of its own needs its schemas (--spec)', () => {
    const r = cli('fixtures', SPEC_DIR, '--snapshot', 'draft@1d98c19');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no expected verdicts for draft@1d98c19');
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});

test.describe('with the draft@1d98c19 material', () => {
  test.skip(!HAVE_SPEC || !HAVE_SPEC_1D98C19, !HAVE_SPEC ? NO_SPEC_REASON : NO_SPEC_1D98C19_REASON);
  test('fixtures --spec <1d98c19>: judged by 1d98c19, ours agree with its published schemas', () => {
    const r = cli('fixtures', SPEC_DIR, '--spec', SPEC_DIR_1D98C19);
    expect(r.out).toContain('fixtures: judged by draft@1d98c19');
    expect(r.out).toMatch(/ours and the published schemas agree on \d+, disagree on 0 \(of \d+\)$/m);
    expect(r.out).toMatch(/^structural acceptance: ours and the published schemas agree on 21 of 21;/m);
    expect(r.code).toBe(0);
  });
});
