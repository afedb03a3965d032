// Honest partial runs on real runs (issue 23, item 5; hostile rows D1 and D5-D7): a
// `run --grep` of one check on the reference backend says partial with how many checks
// ran of how many the claim needs, and exits 0; a reply whose effect is valid but whose
// envelope is not (a deny with a wrong protocolVersion, a modify with jsonrpc "1.0", a
// reply to another id) fails the check that judges that effect. Both kept to a few checks.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadClaim } from '../src/claims/load.js';
import { plannedProjects } from '../src/engine/plan.js';
import type { ClaimResults } from '../src/results/model.js';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
const workspace = tempFolders('ahp-partial-run-');

function cli(args: string[], cwd = ROOT): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd,
    timeout: 240_000,
    env: { ...process.env, AHP_PROGRESS: 'line' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const resultsOf = (dir: string): ClaimResults =>
  JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ClaimResults;

test('run --grep of one check on the reference backend: partial, "ran 1 of N" (N all the claim needs), exit 0', () => {
  test.setTimeout(240_000);
  const reports = join(workspace(), 'reports');
  const claimFile = resolve(ROOT, 'claims', 'reference-backend.yaml');
  // stdio.per-event-exit applies to the per_event target only: exactly one check runs.
  const r = cli(['run', claimFile, '--grep', 'stdio\\.per-event-exit', '--reports', reports]);
  expect(r.code, r.err + r.out.slice(-2000)).toBe(0);
  const loaded = loadClaim(claimFile);
  if (loaded.kind !== 'ok') throw new Error('the reference claim did not load');
  const needed = plannedProjects({ claims: [{ claim: loaded.claim, reportDir: '' }] }).reduce(
    (n, p) => n + p.checks.length,
    0,
  );
  expect(r.out).toContain(
    `reference-backend 0.1.0: partial: ran 1 of ${needed} checks the claim needs (1 passed, 0 failed; left out by --grep 'stdio\\.per-event-exit';`,
  );
  expect(r.out).not.toMatch(/: conformant\b/);
  const dir = join(reports, 'reference-backend');
  const res = resultsOf(dir);
  expect(res.verdict).toBe('partial');
  expect(res.coverage).toEqual({ ran: 1, needed, why: ["left out by --grep 'stdio\\.per-event-exit'"] });
  expect(res.targets.map((t) => [t.transport, t.lifecycle ?? '', t.verdict, t.coverage?.ran])).toEqual([
    ['http', '', 'partial', 0],
    ['stdio', 'per_event', 'partial', 1],
    ['stdio', 'persistent', 'partial', 0],
  ]);
  const v = cli(['verify', dir]);
  expect(v.code).toBe(0);
  expect(v.out).toContain(
    `verified: reference-backend (partial, ran 1 of ${needed} checks the claim needs, not a certification)`,
  );
  expect(readFileSync(join(reports, 'index.html'), 'utf8')).toContain(
    '1 partial (not every check the claim needs ran)',
  );
});

test('a valid effect in a reply invalid as a whole fails the check of that effect, saying what is wrong', () => {
  test.setTimeout(240_000);
  const dir = workspace();
  const claim = (name: string, fault: string, content = false): string => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      [
        `implementation: { name: ${name}, version: 1.0.0 }`,
        'snapshot: draft@2b5da580',
        'role: backend',
        'transports: [stdio]',
        'profiles: [tool-interception]',
        'backend:',
        `  stdio: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MAIN)}, --transport, stdio, --fault, ${fault}], lifecycles: [persistent] }`,
        '  samples:',
        '    deny: [ { event: tool.before, tool: { name: rm_rf, input: { path: / } } } ]',
        '    modify: [ { event: tool.before, tool: { name: write_file, input: { path: a.txt } }, effects: [modify] } ]',
        ...(content ? ['    content: [ { event: user.message.inbound } ]'] : []),
        '',
      ].join('\n'),
    );
    return file;
  };
  const files = [
    claim('deny-version', 'deny-wrong-version'),
    claim('modify-jsonrpc', 'modify-bad-jsonrpc', true),
    claim('reply-id', 'wrong-id'),
  ];
  const reports = join(dir, 'reports');
  const r = cli([
    'run',
    ...files,
    '--reports',
    reports,
    '--grep',
    'ti\\.deny-samples|ti\\.modify-samples|content\\.user-inbound\\.canonical-edits',
  ]);
  expect(r.code, r.err + r.out.slice(-2000)).toBe(1);
  const statuses = (name: string): Record<string, [string, string]> =>
    Object.fromEntries(resultsOf(join(reports, name)).checks.map((c) => [c.id, [c.status, c.message]]));

  const deny = statuses('deny-version');
  expect(deny['ti.deny-samples']![0]).toBe('failed');
  expect(deny['ti.deny-samples']![1]).toContain(
    'sample rm_rf: the reply is not valid as a whole, so a harness acts on none of it: it is not a valid intercept response under draft@2b5da580: /result/protocolVersion must be "draft", got "1999-01-01"',
  );
  expect(deny['ti.modify-samples']![0]).toBe('passed');

  const modify = statuses('modify-jsonrpc');
  expect(modify['ti.modify-samples']![0]).toBe('failed');
  expect(modify['ti.modify-samples']![1]).toMatch(/sample write_file: the reply is not valid as a whole.*\/jsonrpc/);
  expect(modify['content.user-inbound.canonical-edits']![0]).toBe('failed');
  expect(modify['content.user-inbound.canonical-edits']![1]).toMatch(/the reply is not valid as a whole.*\/jsonrpc/);
  expect(modify['ti.deny-samples']![0]).toBe('passed');

  const id = statuses('reply-id');
  expect(id['ti.deny-samples']![0]).toBe('failed');
  expect(id['ti.deny-samples']![1]).toMatch(/its id "evt-[0-9a-f-]+-reply" is not the request's id "evt-/);
  for (const name of ['deny-version', 'modify-jsonrpc', 'reply-id'])
    expect(resultsOf(join(reports, name)).verdict).toBe('nonconformant');
});
