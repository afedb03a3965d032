// The package a user installs: `npm pack` gives a tarball that holds everything a run needs
// (compiled CLI, suites, config, schemas, precompiled validators, reference implementations)
// and nothing of the checkout, and that, installed with `npm install --global` into a fresh
// prefix, certifies a claim from a vendor's own folder with no checkout in sight.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClaimResults } from '../../src/results/model.js';
import {
  installEnv,
  installGlobally,
  loopbackRegistry,
  packThisPackage,
  type LoopbackRegistry,
} from '../support/package.js';
import { ROOT } from '../support/paths.js';
import { tempFolders } from '../support/temp.js';

test.describe.configure({ mode: 'serial' });
test.setTimeout(5 * 60_000);

const temp = tempFolders('ahp-install-');
let dir: string;
let tarball: string;
let registry: LoopbackRegistry;

test.beforeAll(async () => {
  dir = temp();
  tarball = packThisPackage(dir);
  mkdirSync(join(dir, 'registry'));
  registry = await loopbackRegistry(join(dir, 'registry'));
});
test.afterAll(async () => {
  await registry?.close();
});

test('the tarball holds what a run needs and nothing of the checkout', () => {
  const r = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  const files = r.stdout.split('\n').filter(Boolean);
  for (const needed of [
    'package/bin/ahp-conformance.js',
    'package/dist/src/cli/main.js',
    'package/dist/playwright.config.js',
    'package/dist/suites/backend/tool-interception.spec.js',
    'package/dist/suites/harness/typical-session.spec.js',
    'package/dist/drivers/scripted-backend/stdio-main.js',
    'package/dist/src/protocol/fast-validators.draft-2b5da580.registration.cjs',
    'package/dist/src/protocol/fast-validators.draft-2b5da580.ahp-message.cjs',
    'package/dist/src/protocol/fast-validators.draft-1d98c19.registration.cjs',
    'package/dist/src/protocol/fast-validators.draft-1d98c19.ahp-message.cjs',
    'package/dist/reference/backend/main.js',
    'package/dist/reference/harness/main.js',
    'package/schemas/claim.schema.json',
    'package/claims/reference-backend.yaml',
    'package/README.md',
    'package/docs/claims.md',
  ])
    expect(files, needed).toContain(needed);
  const foreign = files.filter(
    (f) =>
      /\.ts$|\.map$/.test(f) ||
      /^package\/(src|test|suites|drivers|reference|scripts|reports|node_modules)\//.test(f) ||
      f.startsWith('package/dist/scripts/'),
  );
  expect(foreign).toEqual([]);
});

test('installed globally, it certifies a claim from a vendor folder outside any checkout', async () => {
  const prefix = join(dir, 'prefix');
  const env = installEnv(prefix, registry, join(dir, 'npm-cache'));
  await installGlobally(tarball, dir, env);
  const installed = join(prefix, 'lib', 'node_modules', 'ahp-conformance');
  // A real copy, not a link back into this checkout.
  expect(realpathSync(installed).startsWith(realpathSync(ROOT))).toBe(false);

  const vendor = join(dir, 'acme');
  mkdirSync(vendor);
  const main = join(installed, 'dist', 'reference', 'backend', 'main.js');
  writeFileSync(
    join(vendor, 'my-claim.yaml'),
    [
      'implementation: { name: acme-policy, version: 2.0.0 }',
      'snapshot: draft@2b5da580',
      'role: backend',
      'transports: [stdio]',
      'profiles: [tool-interception, lifecycle-observation]',
      'backend:',
      '  stdio:',
      '    command: node',
      `    args: [${JSON.stringify(main)}, --transport, stdio]`,
      '    lifecycle: [persistent]',
      '',
    ].join('\n'),
  );
  // The command as the README gives it, found on PATH, run in the vendor's folder.
  const r = spawnSync('ahp-conformance', ['run', 'my-claim.yaml', '--certify'], {
    cwd: vendor,
    env: { ...env, AHP_PROGRESS: 'line' },
    encoding: 'utf8',
    timeout: 4 * 60_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status, r.stdout).toBe(0);
  expect(r.stdout).toMatch(/^acme-policy 2\.0\.0: conformant \(/m);
  const results = JSON.parse(
    readFileSync(join(vendor, 'reports', 'acme-policy', 'results.json'), 'utf8'),
  ) as ClaimResults;
  expect(results.verdict).toBe('conformant');
  // Nothing of this checkout took part.
  expect(r.stdout).not.toContain(ROOT);

  // The README's first look: a bundled claim, run where it is installed (its paths are relative to it).
  const bundled = spawnSync(
    'bash',
    [
      '-c',
      'ahp-conformance run "$(npm root --global)/ahp-conformance/claims/reference-backend.yaml" --grep ti.response-id',
    ],
    { cwd: vendor, env: { ...env, AHP_PROGRESS: 'line' }, encoding: 'utf8', timeout: 4 * 60_000 },
  );
  expect(bundled.status, bundled.stdout + bundled.stderr).toBe(0);
  // One check of three targets ran (--grep): partial, saying so, exit 0.
  expect(bundled.stdout).toMatch(
    /^reference-backend 0\.1\.0: partial: ran 3 of \d+ checks the claim needs \(3 passed, 0 failed/m,
  );
});
