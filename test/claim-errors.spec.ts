// Bad claims as a vendor writes them: `ahp-conformance run` names every problem of the file,
// one line each, on stderr, exits 2 and starts nothing (the claim's commands would leave a
// file behind if they ever ran). Placeholders are judged before any process starts.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadClaim } from '../src/claims/load.js';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const workspace = tempFolders('ahp-claim-errors-');

function run(text: string): { code: number | null; out: string; err: string; launched: boolean } {
  const dir = workspace();
  writeFileSync(join(dir, 'claim.yaml'), text);
  const r = spawnSync(process.execPath, [BIN, 'run', 'claim.yaml', '--reports', join(dir, 'reports')], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, launched: existsSync(join(dir, 'launched')) };
}

const node = JSON.stringify(process.execPath);
/** Arguments that leave `launched` behind if the process ever starts. */
const touch = `-e, "require('fs').writeFileSync('launched', '')"`;
const head = (role = 'backend', transports = '[stdio, http]'): string =>
  `implementation: { name: acme, version: "1.0.0" }\nrole: ${role}\ntransports: ${transports}\nprofiles: [tool-interception]\n`;
const stdio = (extra = ''): string => `  stdio: { command: ${node}, args: [${touch}]${extra} }\n`;
const http = (args: string, url: string): string =>
  `  http: { command: ${node}, args: [${touch}, ${args}], url: ${JSON.stringify(url)} }\n`;
const goodHttp = http('--port, "{port}"', 'http://127.0.0.1:{port}/hooks');
const backend = (s = stdio(), h = goodHttp): string => `${head()}backend:\n${s}${h}`;

test('the claims the table varies are good (each row fails for its own problem)', () => {
  for (const text of [backend(), `${head('harness')}harness: { command: ${node}, args: [${touch}, "{config}"] }\n`]) {
    const dir = workspace();
    writeFileSync(join(dir, 'claim.yaml'), text);
    expect(loadClaim(join(dir, 'claim.yaml')).kind, text).toBe('ok');
  }
});

const cases: [string, string, RegExp][] = [
  [
    'a version YAML reads as a number',
    backend().replace('version: "1.0.0"', 'version: 1.0'),
    /implementation\.version must be a string, and YAML reads 1\.0 as a number: write "1\.0" in quotes$/,
  ],
  [
    'a near-miss field name',
    backend().replace('profiles:', 'timeout_ms: 300\nprofiles:'),
    /: timeout_ms is not a claim field; did you mean timeoutMs\?$/,
  ],
  [
    'a near-miss field name in a block',
    backend(stdio(', lifecyles: [persistent]')),
    /: backend\.stdio\.lifecyles is not a claim field; did you mean lifecycles\?$/,
  ],
  [
    'a field far from any other: the fields that exist there',
    backend(stdio(', colour: blue')),
    /: backend\.stdio\.colour is not a claim field \(fields here: command, args, lifecycles, lifecycle, cwd, env, passEnv\)$/,
  ],
  [
    'a single transport not written as a list',
    backend().replace('transports: [stdio, http]', 'transports: stdio'),
    /: transports must be a list: write \[stdio\]$/,
  ],
  [
    'an empty version',
    backend().replace('version: "1.0.0"', 'version:'),
    /: implementation\.version is empty; it must be a string$/,
  ],
  ['a missing top-level field', backend().replace(/^implementation:.*\n/, ''), /: implementation is missing$/],
  [
    'a near-miss role',
    backend().replace('role: backend', 'role: backnd'),
    /: role is "backnd"; it must be one of harness, backend, both \(did you mean backend\?\)$/,
  ],
  [
    'a near-miss profile',
    backend().replace('[tool-interception]', '[tool-interceptions]'),
    /: profiles: unknown profile "tool-interceptions" \(did you mean tool-interception\? capability profiles: /,
  ],
  ['a YAML error: its position once', `${backend()}oops: [\n`, /: YAML error at line \d+, column \d+: [^:]*$/],
  [
    '$PORT in the server arguments',
    backend(stdio(), http('--port, $PORT', 'http://127.0.0.1:{port}/hooks')),
    /: backend\.http\.args\[3\]: "\$PORT" is not the port placeholder \(the server starts without a shell\); write \{port\}$/,
  ],
  [
    '${port} in the url',
    backend(stdio(), http('--port, "{port}"', 'http://127.0.0.1:${port}/hooks')),
    /: backend\.http\.url: "\$\{port\}" is not the port placeholder; write \{port\}$/,
  ],
  [
    'a url with a hard-coded port while the server gets {port}',
    backend(stdio(), http('--port, "{port}"', 'http://127.0.0.1:8080/hooks')),
    /: backend\.http\.args\[3\] holds \{port\} .* but backend\.http\.url hard-codes port 8080: .* write \{port\} in the url$/,
  ],
  [
    'a url with {port} while the server is never told it',
    backend(stdio(), http('--port, "8080"', 'http://127.0.0.1:{port}/hooks')),
    /: backend\.http\.url holds \{port\} but neither backend\.http\.args nor backend\.http\.env does: /,
  ],
  [
    '{port} for a stdio backend',
    backend(stdio(', env: { PORT: "{port}" }')),
    /: backend\.stdio\.env\.PORT: \{port\} is filled in only for backend\.http; a stdio backend gets no port$/,
  ],
  [
    '$AHP_ADAPTER_CONFIG in the adapter arguments',
    `${head('harness')}harness: { command: ${node}, args: [${touch}, --config, $AHP_ADAPTER_CONFIG] }\n`,
    /: harness\.args\[3\]: "\$AHP_ADAPTER_CONFIG" is not filled in .*; write \{config\} in harness\.args$/,
  ],
  [
    'lifecycles and its other spelling together',
    backend(stdio(', lifecycles: [persistent], lifecycle: per_event')),
    /: backend\.stdio: give lifecycles or lifecycle \(its other spelling\), not both$/,
  ],
  [
    'role harness without the harness block',
    head('harness'),
    /: harness is missing: role harness needs it \(harness\.command, the adapter to start\)$/,
  ],
  [
    'a claimed transport without its block',
    `${head()}backend:\n${stdio()}`,
    /: backend\.http: transport http is claimed but backend\.http \(url\) is missing$/,
  ],
  [
    'a snapshot with a mistyped commit',
    backend().replace('role:', 'snapshot: draft@2b5da581\nrole:'),
    /: snapshot: unknown snapshot "draft@2b5da581" \(did you mean draft@2b5da580\? this runner knows draft@2b5da580, draft@1d98c19; plain draft means the newest, draft@1d98c19\)$/,
  ],
  [
    'a snapshot of a commit this runner does not know',
    backend().replace('role:', 'snapshot: draft@deadbeef\nrole:'),
    /: snapshot: unknown snapshot "draft@deadbeef" \(this runner knows draft@2b5da580, draft@1d98c19; plain draft means the newest, draft@1d98c19\)$/,
  ],
  [
    'a snapshot name the claim format does not have',
    backend().replace('role:', 'snapshot: draft-1d98c19\nrole:'),
    /: snapshot: unknown snapshot "draft-1d98c19" \(did you mean draft@1d98c19\? this runner knows/,
  ],
];
for (const [name, claim, line] of cases) {
  test(`${name}: one line naming the field, exit 2, nothing launched`, () => {
    const r = run(claim);
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
    expect(r.err.trim()).toMatch(/^ahp-conformance: claim\.yaml: /);
    expect(r.err.trim()).toMatch(line);
    expect(r.err).not.toContain('(top level)');
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.launched).toBe(false);
  });
}

test("every problem of a file at once, in the file's order: one line each, exit 2, nothing launched", () => {
  const claim = backend(stdio(', colour: blue'), http('--port, $PORT', 'http://127.0.0.1:{port}/hooks'))
    .replace('version: "1.0.0"', 'version: 2')
    .replace('profiles:', 'timeout: 300\nprofiles:');
  const r = run(claim);
  expect(r.code).toBe(2);
  expect(r.launched).toBe(false);
  const lines = r.err.trim().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(/claim\.yaml: implementation\.version must be a string, .* write "2" in quotes$/),
    expect.stringMatching(/claim\.yaml: timeout is not a claim field; did you mean timeoutMs\?$/),
    expect.stringMatching(/claim\.yaml: backend\.stdio\.colour is not a claim field/),
  ]);
  // Once the schema's problems are fixed, the launch problems all come at once too.
  const fixed = backend(stdio(), http('--port, $PORT', 'http://127.0.0.1:8080/hooks')).replace(
    `command: ${node}, args: [${touch}] }`,
    `command: no-such-backend-binary-xyz, cwd: nowhere }`,
  );
  const again = run(fixed);
  expect(again.code).toBe(2);
  expect(again.err.trim().split('\n')).toEqual([
    expect.stringMatching(/backend\.stdio\.command: "no-such-backend-binary-xyz" is not found on PATH$/),
    expect.stringMatching(/backend\.stdio\.cwd: .*nowhere is not a directory$/),
    expect.stringMatching(/backend\.http\.args\[3\]: "\$PORT" is not the port placeholder/),
  ]);
  expect(again.launched).toBe(false);
});

test('an incomplete claim names only what is missing', () => {
  const noTransport = run(backend().replace('transports: [stdio, http]\n', ''));
  expect(noTransport.code).toBe(2);
  expect(noTransport.out).toContain(
    'the claim names no transport binding (stdio, http); a Base Protocol claim is incomplete without one (AHP-CORE-001)',
  );
  const noProfile = run(backend().replace('profiles: [tool-interception]\n', ''));
  expect(noProfile.out).toContain(
    'the claim names no capability profile (tool-interception, lifecycle-observation); a Base Protocol claim is incomplete without one (AHP-CORE-001, AHP-CORE-002)',
  );
  const neither = run(backend().replace('transports: [stdio, http]\nprofiles: [tool-interception]\n', ''));
  expect(neither.out).toContain(
    'names no capability profile (tool-interception, lifecycle-observation) and no transport binding',
  );
  for (const r of [noTransport, noProfile, neither]) {
    expect(r.out).not.toMatch(/no a |without both/);
    expect(r.launched).toBe(false);
  }
});

test("an incomplete claim's results name the snapshot it asked for", () => {
  for (const [line, id, requested] of [
    ['snapshot: draft@2b5da580\n', 'draft@2b5da580', 'draft@2b5da580'],
    ['', 'draft@1d98c19', 'draft'],
  ] as const) {
    const dir = workspace();
    writeFileSync(join(dir, 'claim.yaml'), line + backend().replace('profiles: [tool-interception]\n', ''));
    const r = spawnSync(process.execPath, [BIN, 'run', 'claim.yaml', '--reports', join(dir, 'reports')], {
      encoding: 'utf8',
      cwd: dir,
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toContain(`judged by ${id}${requested === id ? '' : ` (the claim said ${requested})`}`);
    const results = JSON.parse(readFileSync(join(dir, 'reports', 'acme', 'results.json'), 'utf8')) as {
      claim: { snapshot: { id: string; requested: string; commit?: string } };
    };
    expect(results.claim.snapshot).toMatchObject({ id, requested });
    expect(results.claim.snapshot.commit).toMatch(/^[0-9a-f]{40}$/);
  }
});

test('a claim that quotes a huge value or field name is still one short line', () => {
  for (const claim of [
    backend().replace('role: backend', `role: ${'x'.repeat(5000)}`),
    backend().replace('profiles:', `${'k'.repeat(5000)}: 1\nprofiles:`),
    backend().replace('[tool-interception]', `[tool-interception, ${'p'.repeat(5000)}]`),
  ]) {
    const r = run(claim);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err.length).toBeLessThan(400);
  }
});

test('an empty claim file or a claim that is not a block of fields: one line, exit 2', () => {
  for (const [text, line] of [
    ['', /claim\.yaml: the claim is empty; it must be a block of fields$/],
    ['just text\n', /claim\.yaml: the claim must be a block of fields$/],
  ] as const) {
    const r = run(text);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toMatch(line);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  }
});
