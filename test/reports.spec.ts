// What `run` leaves in the reports folder, run for real against the reference backend
// (issue 12): a --grep rerun (the report's own rerun command, pasted) or a --grep that
// matches nothing never replaces a full report; a one-claim run after a two-claim run
// shows its own matrix and leaves no stale Playwright report; --certify, the duration, the
// environment and the claim digest are recorded; and expected failures are applied before
// a baseline, visibly.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ClaimResults } from '../src/results/model.js';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
const workspace = tempFolders('ahp-reports-');
test.setTimeout(180_000);

/** A folder with claims for the reference backend over stdio, named `demo` and `other`. */
function folder(fault = ''): string {
  const dir = workspace();
  for (const name of ['demo', 'other'])
    writeFileSync(
      join(dir, `${name}.yaml`),
      `implementation: { name: ${name}, version: 1.0.0 }\nrole: backend\ntransports: [stdio]\nprofiles: [tool-interception]\n` +
        `backend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MAIN)}, --transport, stdio${fault}], lifecycle: persistent }\n`,
    );
  return dir;
}

function run(dir: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, 'run', ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 150_000,
    env: { ...process.env, AHP_PROGRESS: 'line' },
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

const validate = new Ajv2020({ strict: false, logger: false }).compile(
  JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object,
);

/** A results.json, checked against schemas/results.schema.json. */
function results(file: string): ClaimResults {
  const r = JSON.parse(readFileSync(file, 'utf8')) as ClaimResults;
  expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
  return r;
}

test('a --grep rerun, pasted from the report, and a --grep matching nothing leave the full report as it was', () => {
  const dir = folder();
  expect(run(dir, ['demo.yaml', '--reports', 'out']).code).toBe(0);
  const full = readFileSync(join(dir, 'out', 'demo', 'results.json'), 'utf8');
  const page = readFileSync(join(dir, 'out', 'demo', 'index.html'), 'utf8');
  // The report's own rerun command, as a user pastes it (with an installed `ahp-conformance`).
  const command = /<pre>(ahp-conformance run [^<]*ti\\\.state-independent[^<]*)<\/pre>/
    .exec(page)![1]!
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  expect(command).toContain("--reports 'out'");
  expect(command).not.toContain(dir);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'ahp-conformance'));
  const rerun = spawnSync('sh', ['-c', command], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 150_000,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, AHP_PROGRESS: 'line' },
  });
  expect(rerun.status, rerun.stdout + rerun.stderr).toBe(0);
  expect(rerun.stdout).toContain("a partial run (--grep): the full report stays; this run's reports -> out/partial");
  const partial = results(join(dir, 'out', 'partial', 'demo', 'results.json'));
  expect(partial.counts.passed).toBe(1);
  expect(partial.run?.selection?.grep).toContain('ti\\.state-independent');
  expect(readFileSync(join(dir, 'out', 'partial', 'demo', 'index.html'), 'utf8')).toContain(
    'href="../../demo/index.html"',
  );
  // A --grep that matches no check: incomplete, and still beside the full report.
  expect(run(dir, ['demo.yaml', '--reports', 'out', '--grep', 'no-such-check']).code).toBe(2);
  expect(results(join(dir, 'out', 'partial', 'demo', 'results.json')).verdict).toBe('incomplete');
  expect(readFileSync(join(dir, 'out', 'demo', 'results.json'), 'utf8')).toBe(full);
  // The next full run replaces the full report and supersedes the partial ones.
  expect(run(dir, ['demo.yaml', '--reports', 'out']).code).toBe(0);
  expect(existsSync(join(dir, 'out', 'partial'))).toBe(false);
});

test('a one-claim run after a two-claim run shows its own matrix and no stale Playwright report', () => {
  const dir = folder();
  const both = run(dir, ['demo.yaml', 'other.yaml']);
  expect(both.code, both.out).toBe(0);
  expect(existsSync(join(dir, 'reports', 'playwright', 'index.html'))).toBe(true);
  expect(readFileSync(join(dir, 'reports', 'index.html'), 'utf8')).toContain('2 implementations');
  expect(run(dir, ['other.yaml']).code).toBe(0);
  expect(existsSync(join(dir, 'reports', 'playwright'))).toBe(false);
  expect(existsSync(join(dir, 'reports', 'other', 'playwright', 'index.html'))).toBe(true);
  const matrix = readFileSync(join(dir, 'reports', 'index.html'), 'utf8');
  expect(matrix).toContain('AHP conformance: 1 implementation<');
  expect(matrix).toContain('<a href="other/index.html">other 1.0.0</a>');
  // The other claim's report is still there, listed as an earlier run's.
  const earlier = matrix.slice(matrix.indexOf('id="earlier"'));
  expect(earlier).toContain('<a href="demo/index.html">demo 1.0.0</a>');
  expect(readFileSync(join(dir, 'reports', 'other', 'index.html'), 'utf8')).toContain(
    'id="link-playwright" href="playwright/index.html"',
  );
});

test('--certify is recorded with the duration, the environment and the claim digest; --sign-key signs it', () => {
  const dir = folder();
  const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: dir });
  expect(cli(['keygen', 'vendor']).status).toBe(0);
  const r = run(dir, ['demo.yaml', '--certify', '--sign-key', 'vendor.key']);
  expect(r.code, r.out).toBe(0);
  // The attestation verifies with the public key, and names the bytes that were tested.
  const signed = cli(['verify', 'reports/demo', '--key', 'vendor.pub', '--implementation', MAIN]);
  expect(signed.status, signed.stdout + signed.stderr).toBe(0);
  expect(signed.stdout).toMatch(/verified: demo \(conformant, certification\).*; signed by key [0-9a-f]{64} at /);
  expect(signed.stdout).toContain(`the bytes the run tested (implementation:${MAIN})`);
  // The same program with one byte changed is not what was certified.
  const copy = join(dir, 'main-copy.js');
  writeFileSync(copy, Buffer.concat([readFileSync(MAIN), Buffer.from(' ')]));
  const other = cli(['verify', 'reports/demo', '--key', 'vendor.pub', '--implementation', copy]);
  expect(other.status).toBe(1);
  expect(other.stdout).toMatch(
    /NOT VERIFIED: .*main-copy\.js \(sha256 [0-9a-f]{64}\) is none of the files the run tested/,
  );
  const res = results(join(dir, 'reports', 'demo', 'results.json'));
  expect(res.run?.certification).toBe(true);
  expect(res.run?.durationMs).toBeGreaterThan(0);
  expect(res.run?.environment?.node).toBe(process.versions.node);
  expect(res.claim.file).toBe('demo.yaml');
  expect(res.claim.digest).toBe(
    createHash('sha256')
      .update(readFileSync(join(dir, 'demo.yaml')))
      .digest('hex'),
  );
  expect(JSON.stringify(res)).not.toContain(dir);
  expect(readFileSync(join(dir, 'reports', 'demo', 'index.html'), 'utf8')).toContain('<b>Certification run</b>');
  const verify = (): string =>
    spawnSync(process.execPath, [BIN, 'verify', 'reports'], { encoding: 'utf8', cwd: dir }).stdout;
  expect(verify()).toContain('reports/demo: verified: demo (conformant, certification)');
  expect(run(dir, ['demo.yaml']).code).toBe(0);
  expect(results(join(dir, 'reports', 'demo', 'results.json')).run?.certification).toBe(false);
  expect(verify()).toContain('reports/demo: verified: demo (conformant, not a certification)');
});

test('expected failures come before a baseline: a listed new failure is excused, said so and recorded', () => {
  const good = folder();
  const grep = ['--grep', 'base\\.protocol-version|base\\.unknown-method'];
  expect(run(good, ['demo.yaml', ...grep]).code).toBe(0);
  const bad = folder(', --fault, no-result-version');
  const list = join(bad, 'expected.yaml');
  writeFileSync(list, 'expected:\n  - { check: base.protocol-version, reason: "known, fixed next release" }\n');
  const baseline = join(good, 'reports');
  const unlisted = run(bad, ['demo.yaml', ...grep, '--baseline', baseline]);
  expect(unlisted.code, unlisted.out).toBe(1);
  const excused = run(bad, ['demo.yaml', ...grep, '--baseline', baseline, '--expected-failures', list]);
  expect(excused.code, excused.out).toBe(0);
  expect(excused.out).toContain(
    'vs baseline: 1 new failure (base.protocol-version backend stdio persistent; it is on the expected-failures list, so not counted)',
  );
  const res = results(join(bad, 'reports', 'demo', 'results.json'));
  expect(res.verdict).toBe('nonconformant');
  expect(res.judgement).toMatchObject({
    accepted: true,
    expectedFailures: {
      matched: [{ check: 'base.protocol-version', failed: 'base.protocol-version backend/stdio/persistent' }],
      unexpected: [],
    },
    baseline: {
      newFailures: ['base.protocol-version backend stdio persistent'],
      excused: ['base.protocol-version backend stdio persistent'],
    },
  });
  expect(res.run?.certification).toBe(false);
  // Paths the user passed are recorded relative to where the run started, as the claim is.
  expect(res.judgement?.expectedFailures?.file).toBe('expected.yaml');
  expect(JSON.stringify(res)).not.toContain(good);
  expect(readFileSync(join(bad, 'reports', 'demo', 'index.html'), 'utf8')).toContain(
    'on the expected-failures list: not counted',
  );
});
