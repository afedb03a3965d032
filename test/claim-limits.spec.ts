// `ahp-conformance run` refuses claims that could hurt it (an alias bomb, a huge file, a
// report folder name that collides with another) with one line and exit 2, before it
// launches anything; and implementation-controlled text never reaches the terminal raw.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const workspace = tempFolders('ahp-claim-limits-');

/** `run` on the given claim files (name -> text), in a fresh workspace. */
function run(claims: Record<string, string>): { code: number | null; out: string; err: string; dir: string } {
  const dir = workspace();
  const files = Object.entries(claims).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return name;
  });
  const r = spawnSync(process.execPath, [BIN, 'run', ...files, '--reports', join(dir, 'reports')], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
    env: { ...process.env, AHP_PROGRESS: 'line' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr, dir };
}

/** A complete backend claim; its command would start a backend that does not exist (nothing may launch). */
const claim = (name: string, version = '1.0.0'): string =>
  `implementation: { name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)} }\nrole: backend\ntransports: [stdio]\n` +
  `profiles: [tool-interception]\nbackend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [no-such-backend.js] }\n`;

/** A C0/C1 control, DEL, line separator or bidi control: nothing a terminal may get raw. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function refused(r: ReturnType<typeof run>, line: RegExp): void {
  expect(r.code, r.out + r.err).toBe(2);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).toMatch(line);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(r.out).toBe('');
  expect(r.err).not.toMatch(RAW);
  // Refused before anything ran: no report folder.
  expect(existsSync(join(r.dir, 'reports'))).toBe(false);
}

test('a YAML alias bomb: one line, exit 2 (not an internal error)', () => {
  const bomb = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i < 9; i++)
    bomb.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(', ')}]`,
    );
  refused(
    run({ 'claim.yaml': `${bomb.join('\n')}\n${claim('acme')}` }),
    /^ahp-conformance: claim\.yaml: the YAML's aliases expand too far/,
  );
});

test('a 2 MiB claim file: one line, exit 2', () => {
  refused(
    run({ 'claim.yaml': `${claim('acme')}#${'x'.repeat(2 * 1024 * 1024)}\n` }),
    /^ahp-conformance: claim\.yaml: the claim file is larger than 1 MiB$/m,
  );
});

for (const name of [
  'index.html',
  'playwright',
  'blob',
  'partial',
  'Partial',
  '.run',
  '.acme',
  'a/b',
  'a\\b',
  'a..b',
  'a\u0000b',
  'Blob',
  'README.md',
]) {
  test(`implementation name ${JSON.stringify(name)}: one line, exit 2`, () => {
    refused(run({ 'claim.yaml': claim(name) }), /^ahp-conformance: claim\.yaml: implementation\.name: /);
  });
}

test('two claims named Acme and acme in one run: one line, exit 2, nothing launched', () => {
  const r = run({ 'a.yaml': claim('Acme'), 'b.yaml': claim('acme') });
  refused(
    r,
    /^ahp-conformance: b\.yaml: implementation\.name "acme" is the name in a\.yaml \("Acme"\) ignoring case; each claim of a run needs a name of its own/,
  );
});

test('two claims with the same name, one of them incomplete: one line, exit 2, nothing written', () => {
  const incomplete = 'implementation: { name: acme, version: 1.0.0 }\nrole: backend\n';
  refused(
    run({ 'a.yaml': incomplete, 'b.yaml': claim('ACME') }),
    /b\.yaml: implementation\.name "ACME" is the name in a\.yaml \("acme"\) ignoring case/,
  );
});

test('a version with an escape sequence and a forged verdict line is refused, shown escaped', () => {
  const r = run({ 'claim.yaml': claim('acme', '1.0\x1b[2J\nFAKE: conformant (99 passed, 0 failed)') });
  refused(
    r,
    /implementation\.version: "1\.0\\u001b\[2J\\nFAKE: conformant \(99 passed, 0 failed\)" contains the control character U\+001B/,
  );
  expect(r.err).not.toMatch(/^FAKE/m);
});

test('claim errors that quote the claim never pass its escape sequences or line breaks through', () => {
  const head = 'implementation: { name: acme, version: 1.0.0 }\nrole: backend\ntransports: [stdio]\n';
  const cases: [string, RegExp][] = [
    [
      `${head}profiles: [tool-interception, "x\\e[2J\\nFAKE: conformant\\u202e"]\nbackend:\n  stdio: { command: sh }\n`,
      /unknown profile "x\\u001b\[2J\\nFAKE: conformant\\u202e"/,
    ],
    [
      `${head}profiles: [tool-interception]\nbackend:\n  stdio: { command: "no-such\\e]0;title\\a\\r\\nFAKE" }\n`,
      /"no-such\\x1b]0;title\\x07\\r\\nFAKE" is not found on PATH/,
    ],
  ];
  for (const [text, line] of cases) {
    const r = run({ 'claim.yaml': text });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(line);
    expect(r.err).not.toMatch(RAW);
  }
});
