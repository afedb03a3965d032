// The claim schema as an editor uses it (descriptions, defaults, the blocks a role needs) and
// as the loader uses it: the defaults it states are the loader's, the docs' examples are
// valid claims, `lifecycle` is accepted as the other spelling of `lifecycles`, and near-miss
// names find the name meant.
import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { loadClaim, type ResolvedClaim } from '../../src/claims/load.js';
import { didYouMean } from '../../src/claims/near-miss.js';
import { ROOT } from '../support/paths.js';
import { NEWEST_SNAPSHOT } from '../../src/protocol/snapshots.js';
import { tempFolders } from '../support/temp.js';

type Schema = { [k: string]: unknown; properties?: Record<string, Schema>; $ref?: string; description?: string };
const schema = JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'claim.schema.json'), 'utf8')) as Schema & {
  $defs: Record<string, Schema>;
};
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
const deref = (s: Schema): Schema => (s.$ref ? { ...schema.$defs[s.$ref.replace('#/$defs/', '')]!, ...s } : s);

const folder = tempFolders('ahp-claim-schema-');
function load(text: string): ResolvedClaim {
  const dir = folder();
  writeFileSync(join(dir, 'claim.yaml'), text);
  const o = loadClaim(join(dir, 'claim.yaml'));
  if (o.kind !== 'ok') throw new Error(`expected a resolved claim, got ${JSON.stringify(o)}`);
  return o.claim;
}
const node = JSON.stringify(process.execPath);
const head = (role: string): string =>
  `implementation: { name: acme, version: "1.0.0" }\nrole: ${role}\ntransports: [stdio, http]\nprofiles: [tool-interception]\n`;

test('every property of the claim schema has a description', () => {
  const missing: string[] = [];
  const walk = (s: Schema, at: string): void => {
    for (const [name, p] of Object.entries(s.properties ?? {})) {
      const full = deref(p);
      if (!full.description) missing.push(`${at}${name}`);
      walk(full, `${at}${name}.`);
      const items = full.items as Schema | undefined;
      if (items) walk(deref(items), `${at}${name}[].`);
    }
  };
  walk(schema, '');
  expect(missing).toEqual([]);
});

test('an editor flags the block a role and its transports need', () => {
  const base = {
    implementation: { name: 'acme', version: '1' },
    transports: ['stdio', 'http'],
    profiles: ['tool-interception'],
  };
  const stdio = { command: 'node' };
  const http = { url: 'http://127.0.0.1:{port}/hooks' };
  const cases: [object, boolean][] = [
    [{ ...base, role: 'backend' }, false],
    [{ ...base, role: 'backend', backend: { stdio } }, false],
    [{ ...base, role: 'backend', backend: { stdio, http } }, true],
    [{ ...base, role: 'backend', transports: ['stdio'], backend: { stdio } }, true],
    [{ ...base, role: 'harness' }, false],
    [{ ...base, role: 'harness', harness: { command: 'node' } }, true],
    [{ ...base, role: 'both', harness: { command: 'node' } }, false],
    [{ ...base, role: 'both', harness: { command: 'node' }, backend: { stdio, http } }, true],
  ];
  for (const [claim, valid] of cases) expect(validate(claim), JSON.stringify(claim)).toBe(valid);
});

test("the defaults the schema states are the loader's", () => {
  const c = load(
    `${head('both')}backend:\n  stdio: { command: ${node} }\n  http: { command: ${node}, args: ["{port}"], url: "http://127.0.0.1:{port}/h" }\n` +
      `harness: { command: ${node} }\n`,
  );
  const d = schema.$defs;
  expect(c.timeoutMs).toBe(schema.properties!.timeoutMs!.default);
  expect(c.snapshotRequested).toBe(schema.properties!.snapshot!.default);
  expect(c.snapshot).toBe(NEWEST_SNAPSHOT);
  expect(c.backend!.stdio!.lifecycles).toEqual([d.stdioLaunch!.properties!.lifecycles!.default]);
  expect(c.harness!.lifecycles).toEqual(schema.properties!.harness!.properties!.lifecycles!.default);
  expect(c.backend!.http!.readyTimeoutMs).toBe(d.httpLaunch!.properties!.readyTimeoutMs!.default);
  expect(c.backend!.stdio!.args).toEqual(d.stdioLaunch!.properties!.args!.default);
  expect(c.harness!.env).toEqual(d.env!.default);
  expect(c.harness!.passEnv).toEqual(d.passEnv!.default);
  expect(c.backend!.configuration).toBe(schema.properties!.backend!.properties!.configuration!.default);
});

test('backend.configuration: claimed for a snapshot with hooks/configuration, refused for one without', () => {
  const claim = (snapshot: string): string =>
    `${head('backend')}snapshot: ${snapshot}
backend:
  stdio: { command: ${node} }
  http: { url: "http://127.0.0.1:1/h" }
  configuration: true
`;
  expect(load(claim('draft@1d98c19')).backend!.configuration).toBe(true);
  const dir = folder();
  writeFileSync(join(dir, 'claim.yaml'), claim('draft@2b5da580'));
  const o = loadClaim(join(dir, 'claim.yaml'));
  expect(o.kind).toBe('error');
  if (o.kind === 'error')
    expect(o.messages.join('\n')).toContain('backend.configuration: hooks/configuration is not part of draft@2b5da580');
});

test('snapshot: the schema takes a draft commit or a release date; the loader names only the ones this runner knows', () => {
  const base = {
    implementation: { name: 'acme', version: '1' },
    role: 'harness',
    transports: ['stdio'],
    profiles: ['tool-interception'],
    harness: { command: 'node' },
  };
  for (const [snapshot, valid] of [
    ['draft', true],
    ['draft@2b5da580', true],
    ['2027-01-15', true],
    ['2027-1-15', false],
    ['draft@2027-01-15', false],
    ['2027-01-15@2b5da580', false],
  ] as const)
    expect(validate({ ...base, snapshot }), snapshot).toBe(valid);
  // The real table holds no released snapshot yet: a date is one line naming the known ones.
  const dir = folder();
  writeFileSync(join(dir, 'claim.yaml'), `${head('harness')}snapshot: 2027-01-15\nharness: { command: ${node} }\n`);
  const o = loadClaim(join(dir, 'claim.yaml'));
  expect(o.kind).toBe('error');
  if (o.kind === 'error') expect(o.messages.join('\n')).toContain('snapshot: unknown snapshot "2027-01-15"');
});

test('lifecycles, one value or a list, and lifecycle as its other spelling', () => {
  const backend = (field: string, value: string): ResolvedClaim =>
    load(
      `${head('backend').replace('[stdio, http]', '[stdio]')}backend:\n  stdio: { command: ${node}, ${field}: ${value} }\n`,
    );
  expect(backend('lifecycles', '[persistent, per_event]').backend!.stdio!.lifecycles).toEqual([
    'persistent',
    'per_event',
  ]);
  expect(backend('lifecycle', '[persistent, per_event]').backend!.stdio!.lifecycles).toEqual([
    'persistent',
    'per_event',
  ]);
  expect(backend('lifecycles', 'per_event').backend!.stdio!.lifecycles).toEqual(['per_event']);
  const harness = (field: string, value: string): ResolvedClaim =>
    load(`${head('harness')}harness: { command: ${node}, ${field}: ${value} }\n`);
  expect(harness('lifecycles', 'per_event').harness!.lifecycles).toEqual(['per_event']);
  expect(harness('lifecycle', '[persistent]').harness!.lifecycles).toEqual(['persistent']);
});

test('the claims in docs/claims.md and claims/ are valid', () => {
  const docs = readFileSync(resolve(ROOT, 'docs', 'claims.md'), 'utf8');
  const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((b) => b.includes('implementation:'));
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  const bundled = [
    ...readdirSync(resolve(ROOT, 'claims'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => resolve(ROOT, 'claims', f)),
    ...readdirSync(resolve(ROOT, 'claims', 'examples')).map((f) => resolve(ROOT, 'claims', 'examples', f)),
  ].map((f) => readFileSync(f, 'utf8'));
  for (const text of [...blocks, ...bundled]) {
    const ok = validate(parse(text));
    expect(ok, `${text}\n${JSON.stringify(validate.errors)}`).toBe(true);
  }
});

test('did you mean: the known name a near miss was meant to be', () => {
  const fields = ['implementation', 'snapshot', 'role', 'transports', 'profiles', 'timeoutMs', 'backend', 'harness'];
  const cases: [string, readonly string[], string | undefined][] = [
    ['timeout_ms', fields, 'timeoutMs'],
    ['timeout', fields, 'timeoutMs'],
    ['TimeoutMS', fields, 'timeoutMs'],
    ['transport', fields, 'transports'],
    ['profile', fields, 'profiles'],
    ['implementaton', fields, 'implementation'],
    ['harnes', fields, 'harness'],
    ['colour', fields, undefined],
    ['x', fields, undefined],
    ['lifecyles', ['command', 'args', 'lifecycles', 'lifecycle'], 'lifecycles'],
    ['tool-interceptions', ['tool-interception', 'lifecycle-observation'], 'tool-interception'],
    ['backnd', ['harness', 'backend', 'both'], 'backend'],
    ['rol', ['harness', 'backend', 'both'], undefined],
  ];
  for (const [word, candidates, meant] of cases) expect(didYouMean(word, candidates), word).toBe(meant);
});
