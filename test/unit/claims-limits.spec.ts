// Claims that cannot hurt: a claim file is bounded in size and in what its YAML expands to,
// and its implementation name (the report folder) and version (shown everywhere) are safe.
// Each refusal is one claim error line (exit 2), never an exception.
import { test, expect } from '@playwright/test';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { loadClaim, type ClaimOutcome } from '../../src/claims/load.js';
import { MAX_CLAIM_BYTES, nameProblem, RESERVED_NAMES, versionProblem } from '../../src/claims/limits.js';
import { ROOT } from '../support/paths.js';

const made: string[] = [];
test.afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function claimFile(text: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-limits-'));
  made.push(dir);
  const file = join(dir, 'claim.yaml');
  writeFileSync(file, text);
  return file;
}

/** A complete backend claim whose command is this Node binary. */
const claim = (name: string, version = '1.0.0'): string =>
  `implementation: { name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)} }\nrole: backend\ntransports: [stdio]\n` +
  `profiles: [tool-interception]\nbackend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [b.js] }\n`;

function errorLine(o: ClaimOutcome): string {
  if (o.kind !== 'error') throw new Error(`expected a claim error, got ${JSON.stringify(o)}`);
  expect(o.messages, 'one problem, one line').toHaveLength(1);
  expect(o.messages[0]!.split('\n')).toHaveLength(1);
  return o.messages[0]!;
}

const schema = JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'claim.schema.json'), 'utf8')) as {
  properties: { implementation: object };
};
const validateImplementation = new Ajv2020({ strict: false }).compile(schema.properties.implementation);
const schemaAccepts = (name: string, version = '1.0.0'): boolean => validateImplementation({ name, version });

test.describe('implementation names', () => {
  const allowed = [
    'acme',
    'acme-policy',
    'Acme_Policy.2',
    'reference-backend',
    'acme+beta',
    'team@acme',
    'a',
    '7z',
    'x'.repeat(100),
    'blob2',
    'index',
    'con-tool',
  ];
  const refused: [string, RegExp][] = [
    ['index.html', /is reserved: reports\/index\.html/],
    ['INDEX.HTML', /is reserved/],
    ['playwright', /is reserved: reports\/playwright\//],
    ['Playwright', /is reserved/],
    ['blob', /is reserved: reports\/blob\//],
    ['BLOB', /is reserved/],
    ['README.md', /is reserved/],
    ['.run', /starts with "\."/],
    ['.hidden', /starts with "\."/],
    ['..', /starts with "\."/],
    ['a..b', /contains "\.\."/],
    ['a/b', /contains "\/"/],
    ['../escape', /starts with "\."/],
    ['a\\b', /contains "\\"/],
    ['a\u0000b', /contains U\+0000/],
    ['con', /device name on Windows/],
    ['NUL.txt', /device name on Windows/],
    ['lpt1', /device name on Windows/],
    ['acme.', /must start with a letter or digit and not end with "\."/],
    ['-acme', /must start with a letter or digit/],
    ['ac me', /contains U\+0020/],
    ['acme\n', /contains U\+000A/],
    ['acme\x1b[2J', /contains U\+001B/],
    ['ac\u202eme', /contains U\+202E/],
    ['acmé', /contains U\+00E9/],
    ['a'.repeat(101), /is longer than 100 characters/],
  ];

  test('allowed names pass both the loader and the schema', () => {
    for (const name of allowed) {
      expect(nameProblem(name), name).toBeUndefined();
      expect(schemaAccepts(name), name).toBe(true);
      expect(loadClaim(claimFile(claim(name))).kind, name).toBe('ok');
    }
  });

  for (const [name, why] of refused) {
    test(`${JSON.stringify(name)} is refused with one line naming implementation.name; the schema refuses it too`, () => {
      expect(nameProblem(name)).toMatch(why);
      const line = errorLine(loadClaim(claimFile(claim(name))));
      expect(line).toMatch(/claim\.yaml: implementation\.name: /);
      expect(line).toMatch(why);
      expect(schemaAccepts(name), name).toBe(false);
    });
  }

  test('every reserved name is refused, in any case', () => {
    for (const name of RESERVED_NAMES.keys()) {
      for (const n of [name, name.toUpperCase()]) {
        expect(nameProblem(n), n).toMatch(/is reserved/);
        expect(schemaAccepts(n), n).toBe(false);
      }
    }
  });

  test('the claims shipped in claims/ keep valid names and versions', () => {
    const files = [
      ...readdirSync(resolve(ROOT, 'claims')).map((f) => resolve(ROOT, 'claims', f)),
      ...readdirSync(resolve(ROOT, 'claims', 'examples')).map((f) => resolve(ROOT, 'claims', 'examples', f)),
    ].filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const impl = (parse(readFileSync(f, 'utf8')) as { implementation: { name: string; version: string } })
        .implementation;
      expect(nameProblem(impl.name), f).toBeUndefined();
      expect(versionProblem(impl.version), f).toBeUndefined();
      expect(schemaAccepts(impl.name, impl.version), f).toBe(true);
    }
  });
});

test.describe('implementation versions', () => {
  test('printable versions pass', () => {
    for (const v of ['1.0.0', '4.2.0-beta.1+build.7', 'v2 (nightly 2026-01-01)', 'ünïcödé 1', 'x'.repeat(100)]) {
      expect(versionProblem(v), v).toBeUndefined();
      expect(schemaAccepts('acme', v), v).toBe(true);
    }
  });

  const refused: [string, RegExp][] = [
    ['1.0\x1b[2J', /control character U\+001B/],
    ['1.0\nFAKE: conformant (99 passed, 0 failed)', /control character U\+000A/],
    ['1.0\r', /control character U\+000D/],
    ['1.0\t', /control character U\+0009/],
    ['1.0\u0000', /control character U\+0000/],
    ['1.0\u009b2J', /control character U\+009B/],
    ['1.0\u2028', /control character U\+2028/],
    ['1.0\u202e', /control character U\+202E/],
    ['1.0\u2066', /control character U\+2066/],
    ['1'.repeat(101), /is longer than 100 characters/],
  ];
  for (const [version, why] of refused) {
    test(`${JSON.stringify(version.slice(0, 20))} is refused with one line naming implementation.version; the schema refuses it too`, () => {
      const line = errorLine(loadClaim(claimFile(claim('acme', version))));
      expect(line).toMatch(/implementation\.version: /);
      expect(line).toMatch(why);
      // The line itself shows the version escaped: no raw control character.
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(schemaAccepts('acme', version)).toBe(false);
    });
  }
});

test.describe('claim files that cannot hurt the loader', () => {
  test('a claim file over 1 MiB is refused before it is parsed', () => {
    // Valid YAML (a claim and a long comment), so only the size can refuse it.
    const file = claimFile(`${claim('acme')}#${'x'.repeat(2 * 1024 * 1024)}\n`);
    expect(errorLine(loadClaim(file))).toBe(`${file}: the claim file is larger than 1 MiB`);
    // Just under the limit is fine.
    const ok = claim('acme');
    expect(loadClaim(claimFile(`${ok}#${'x'.repeat(MAX_CLAIM_BYTES - ok.length - 2)}\n`)).kind).toBe('ok');
  });

  test('a YAML alias bomb (billion laughs) is one claim error line', () => {
    const levels = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let i = 1; i < 9; i++) {
      const [p, n] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
      levels.push(`${n}: &${n} [${Array(9).fill(`*${p}`).join(', ')}]`);
    }
    const file = claimFile(`${levels.join('\n')}\n${claim('acme')}`);
    const started = Date.now();
    const line = errorLine(loadClaim(file));
    expect(line).toMatch(/claim\.yaml: the YAML's aliases expand too far/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('deep nesting and other parser failures are one claim error line', () => {
    for (const text of [
      '['.repeat(100_000) + ']'.repeat(100_000),
      `a: ${'{'.repeat(50_000)}`,
      'a: *undefined_anchor\n',
      '\uFEFF\u0000\u0001',
    ]) {
      const o = loadClaim(claimFile(text));
      expect(errorLine(o)).toMatch(/claim\.yaml: /);
    }
  });

  test('a folder or a missing file is one claim error line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ahp-limits-'));
    made.push(dir);
    mkdirSync(join(dir, 'claim.yaml'));
    expect(errorLine(loadClaim(join(dir, 'claim.yaml')))).toMatch(/claim\.yaml: the claim is not a regular file/);
    expect(errorLine(loadClaim(join(dir, 'missing.yaml')))).toMatch(/missing\.yaml: cannot read the claim file/);
  });

  test('a named pipe is refused without blocking on it', () => {
    test.skip(process.platform === 'win32', 'no mkfifo');
    const dir = mkdtempSync(join(tmpdir(), 'ahp-limits-'));
    made.push(dir);
    const fifo = join(dir, 'claim.yaml');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO for reading blocks until a writer comes: open it non-blocking is the loader's job.
    expect(errorLine(loadClaim(fifo))).toMatch(/not a regular file|cannot read/);
  });
});
