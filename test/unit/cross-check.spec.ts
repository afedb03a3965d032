// The fixture cross-check on small snapshots of our own: framing per binding, path
// confinement, each expectation kind, and how disagreements are reported. Runs without
// the upstream snapshot.
import { test, expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { confinedPath, crossCheck, SnapshotError } from '../../src/fixtures/cross-check.js';
import { frameFixture } from '../../src/fixtures/framing.js';
import { schemaDigestOfSpecDir, snapshotOfSpecDir } from '../../src/protocol/snapshot-dir.js';
import { snapshotOf } from '../../src/protocol/snapshots.js';

const made: string[] = [];
test.afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const noEffect = { jsonrpc: '2.0', id: 'e1', result: { protocolVersion: 'draft', effects: [] } };
const badVersion = { jsonrpc: '2.0', id: 'e1', result: { protocolVersion: '0.1', effects: [] } };

interface Case {
  id: string;
  file: string;
  body: string | Buffer;
  binding?: string;
  schema?: string;
  expectedValid: boolean;
  aggregateExpectedValid?: boolean;
  sha256?: string;
  extra?: Record<string, unknown>;
}

/** A snapshot directory with our own fixture files and a manifest listing them. */
function snapshot(cases: Case[], manifestCases?: unknown[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-snap-'));
  made.push(dir);
  const entries = cases.map((c) => {
    const path = `fixtures/draft/${c.file}`;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), c.body);
    return {
      id: c.id,
      path,
      binding: c.binding ?? 'http-json',
      schema: c.schema ?? 'schema/draft/intercept-response.schema.json',
      expectedValid: c.expectedValid,
      ...(c.aggregateExpectedValid === undefined ? {} : { aggregateExpectedValid: c.aggregateExpectedValid }),
      sha256: c.sha256 ?? createHash('sha256').update(c.body).digest('hex'),
      requirements: [],
      ...(c.extra ?? {}),
    };
  });
  mkdirSync(join(dir, 'fixtures/draft'), { recursive: true });
  writeFileSync(join(dir, 'fixtures/draft/manifest.json'), JSON.stringify({ cases: manifestCases ?? entries }));
  return dir;
}

test('agreeing cases are counted and nothing is reported', () => {
  const dir = snapshot([
    {
      id: 'ok',
      file: 'http/ok.json',
      body: JSON.stringify(noEffect),
      expectedValid: true,
      aggregateExpectedValid: true,
    },
    {
      id: 'bad',
      file: 'http/bad.json',
      body: JSON.stringify(badVersion),
      expectedValid: false,
      aggregateExpectedValid: false,
    },
  ]);
  const r = crossCheck(dir);
  expect(r).toMatchObject({ total: 2, agree: 2, disagree: 0, disagreements: [] });
});

test('a wrong expectation is one disagreement naming the case, the expectation and our findings', () => {
  const dir = snapshot([
    {
      id: 'claims-valid',
      file: 'http/v.json',
      body: JSON.stringify(badVersion),
      expectedValid: true,
      aggregateExpectedValid: false,
    },
  ]);
  const r = crossCheck(dir);
  expect(r.disagree).toBe(1);
  expect(r.disagreements).toHaveLength(1);
  expect(r.disagreements[0]).toMatchObject({
    caseId: 'claims-valid',
    expectation: 'expectedValid',
    expected: true,
    got: false,
  });
  expect(r.disagreements[0]?.detail).toContain('/result/protocolVersion');
});

test('stdio framing: exactly one LF-terminated physical line, no CR', () => {
  const line = JSON.stringify(noEffect);
  expect(frameFixture(Buffer.from(`${line}\n`), 'stdio-jsonl').problems).toEqual([]);
  for (const [name, text] of [
    ['no final LF', line],
    ['CRLF', `${line}\r\n`],
    ['two LFs', `${line}\n\n`],
    ['pretty-printed', `${JSON.stringify(noEffect, null, 2)}\n`],
    ['U+2028 inside the line', `${line.slice(0, 10)}\u2028${line.slice(10)}\n`],
    ['two objects on two lines', `${line}\n${line}\n`],
  ]) {
    expect(frameFixture(Buffer.from(text as string), 'stdio-jsonl').problems.length, name as string).toBeGreaterThan(0);
  }
  expect(frameFixture(Buffer.from(`${JSON.stringify(noEffect, null, 2)}`), 'http-json').problems).toEqual([]);
  expect(frameFixture(Buffer.from('[1]'), 'http-json').problems).toEqual(['fixture must contain one JSON object']);
  expect(frameFixture(Buffer.from('{}'), 'carrier-pigeon').problems[0]).toContain('unknown fixture binding');
  expect(frameFixture(Buffer.from([0xff]), 'http-json').problems[0]).toContain('cannot read UTF-8');
  expect(frameFixture(Buffer.from('{"a":1,"a":1}'), 'http-json').problems[0]).toContain('duplicate');
});

test('a badly framed stdio case is invalid for the declared and the aggregate schema', () => {
  const dir = snapshot([
    {
      id: 'multi',
      file: 'stdio/m.jsonl',
      binding: 'stdio-jsonl',
      body: `${JSON.stringify(noEffect, null, 2)}\n`,
      expectedValid: false,
      aggregateExpectedValid: false,
    },
  ]);
  expect(crossCheck(dir).disagreements).toEqual([]);
});

test('manifest paths must stay inside the snapshot and its fixture or schema root', () => {
  const base = '/snap';
  expect(confinedPath(base, 'fixtures/draft/http/a.json', 'fixtures/draft')).toEqual({
    ok: true,
    abs: '/snap/fixtures/draft/http/a.json',
  });
  for (const bad of [
    '',
    '/etc/passwd',
    '../x',
    'fixtures/draft/../../x',
    'fixtures/draft//a.json',
    'fixtures\\draft\\a.json',
    'https://example.com/a.json',
    'file:///etc/passwd',
    'schema/draft/a.json',
    'fixtures/draft/./a.json',
    42,
  ]) {
    expect(confinedPath(base, bad, 'fixtures/draft').ok, String(bad)).toBe(false);
  }
  const dir = snapshot(
    [],
    [
      {
        id: 'escape',
        path: 'fixtures/draft/../../../etc/passwd',
        binding: 'http-json',
        schema: 'schema/draft/schema.json',
        expectedValid: false,
        aggregateExpectedValid: false,
      },
    ],
  );
  const r = crossCheck(dir);
  expect(r.disagreements[0]).toMatchObject({ caseId: 'escape', expectation: 'case' });
  expect(r.disagreements[0]?.detail).toContain('non-canonical');
});

test('hash drift, a missing aggregate expectation and an unknown schema are each reported', () => {
  const body = JSON.stringify(noEffect);
  const dir = snapshot([
    {
      id: 'drift',
      file: 'http/d.json',
      body,
      expectedValid: true,
      aggregateExpectedValid: true,
      sha256: '0'.repeat(64),
    },
    { id: 'no-aggregate', file: 'http/n.json', body, expectedValid: true },
    {
      id: 'unknown-schema',
      file: 'http/u.json',
      body,
      expectedValid: true,
      aggregateExpectedValid: true,
      schema: 'schema/draft/nonexistent.schema.json',
    },
  ]);
  const r = crossCheck(dir);
  const by = Object.fromEntries(r.disagreements.map((d) => [d.caseId, d]));
  expect(by.drift).toMatchObject({ expectation: 'sha256' });
  expect(by['no-aggregate']).toMatchObject({ expectation: 'aggregateExpectedValid', got: 'missing' });
  expect(by['unknown-schema']?.detail).toContain('no counterpart');
  expect(r.agree).toBe(0);
});

test('event expectations and contextual edit expectations are judged', () => {
  const request = {
    jsonrpc: '2.0',
    id: 'e1',
    method: 'hooks/intercept',
    params: {
      protocolVersion: 'draft',
      capabilities: { effects: ['deny'] },
      event: {
        id: 'e1',
        source: 'urn:x',
        type: 'tool.before',
        time: '2026-11-30T00:00:00Z',
        call: { id: 'c' },
        tool: { name: 't', input: {}, origin: 'native' },
      },
    },
  };
  const edit = {
    jsonrpc: '2.0',
    id: 'e1',
    result: {
      protocolVersion: 'draft',
      effects: [{ type: 'modify', target: 'input', operation: 'merge', value: { a: null } }],
    },
  };
  const dir = snapshot([
    // The event lacks `path`: invalid against the tool.before event schema, as expected.
    {
      id: 'ev',
      file: 'http/ev.json',
      body: JSON.stringify(request),
      schema: 'schema/draft/intercept-request.schema.json',
      expectedValid: false,
      aggregateExpectedValid: false,
      extra: { eventSchema: 'schema/draft/tool-before.schema.json', eventExpectedValid: false },
    },
    {
      id: 'ctx-ok',
      file: 'http/c1.json',
      body: JSON.stringify(edit),
      expectedValid: true,
      aggregateExpectedValid: true,
      extra: { editContext: { event: 'tool.before', current: { input: { a: 1 } } }, contextualExpectedValid: true },
    },
    {
      id: 'ctx-wrong',
      file: 'http/c2.json',
      body: JSON.stringify(edit),
      expectedValid: true,
      aggregateExpectedValid: true,
      extra: { editContext: { event: 'tool.after', current: { input: { a: 1 } } }, contextualExpectedValid: true },
    },
  ]);
  const r = crossCheck(dir);
  expect(r.disagreements.map((d) => [d.caseId, d.expectation])).toEqual([['ctx-wrong', 'contextualExpectedValid']]);
  expect(r.disagreements[0]?.detail).toContain('R11');
});

test('an unreadable or empty snapshot directory is a SnapshotError', () => {
  expect(() => crossCheck(join(tmpdir(), 'no-such-ahp-snapshot'))).toThrow(SnapshotError);
  const dir = mkdtempSync(join(tmpdir(), 'ahp-snap-'));
  made.push(dir);
  mkdirSync(join(dir, 'fixtures/draft'), { recursive: true });
  writeFileSync(join(dir, 'fixtures/draft/manifest.json'), '{"cases": 3}');
  expect(() => crossCheck(dir)).toThrow(/no "cases" array/);
  // --spec pointing at a folder without schema/draft/ is refused the same way.
  writeFileSync(join(dir, 'fixtures/draft/manifest.json'), '{"cases": []}');
  expect(crossCheck(dir).total).toBe(0);
  expect(() => crossCheck(dir, { snapshotSchemas: true })).toThrow(/no schema folder/);
});

test('a spec folder is recognised by its schema digest, never by its name', () => {
  const lock = mkdtempSync(join(tmpdir(), 'ahp-snap-'));
  made.push(lock);
  writeFileSync(
    join(lock, 'ahp-codegen.lock.json'),
    JSON.stringify({ schemaManifestSha256: snapshotOf('draft@1d98c19').schemaDigest }),
  );
  expect(snapshotOfSpecDir(lock)).toBe('draft@1d98c19');
  // A manifest takes precedence and is hashed as bytes: this one is no snapshot we know.
  const other = mkdtempSync(join(tmpdir(), 'ahp-spec-1d98c19-'));
  made.push(other);
  mkdirSync(join(other, 'schema', 'draft'), { recursive: true });
  writeFileSync(join(other, 'schema', 'draft', 'manifest.json'), '{"documents":[]}');
  expect(snapshotOfSpecDir(other)).toBeUndefined();
  expect(schemaDigestOfSpecDir(other)).toBe(createHash('sha256').update('{"documents":[]}').digest('hex'));
});
