// A broken runner is never a verdict. While dist/ was being rebuilt, runs crashed with
// "Cannot find module" and exited 1 or 2, which a CI script reading exit codes takes for a
// nonconformant vendor or a bad claim. Whatever stage breaks (the CLI's own modules, a
// suite, a reporter, a module a worker loads in the middle of a run), the run is the
// runner's error: exit 3, one line on stderr, and nothing written that reads as a verdict
// (docs/cli.md, exit codes). Each test breaks a copy of the install (bin/, dist/, schemas/,
// claims/, package.json; node_modules linked), never this checkout.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const temp = tempFolders('ahp-broken-install-');

/** A copy of the runner's install (what `npm pack` ships, without source maps) in `dir`; its root. */
function copyInstall(dir: string): string {
  const root = join(dir, 'install');
  for (const part of ['bin', 'dist', 'schemas', 'claims', 'package.json'])
    cpSync(join(ROOT, part), join(root, part), {
      recursive: true,
      filter: (src) => !src.endsWith('.map') && !src.startsWith(join(ROOT, 'dist', 'scripts')),
    });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(root, 'node_modules'));
  return root;
}

/** A backend claim of the reference backend of `install`, launched through `launcher` args when given. */
function claimFile(dir: string, install: string, launcher: string[] = []): string {
  const main = join(install, 'dist', 'reference', 'backend', 'main.js');
  const file = join(dir, 'claim.yaml');
  writeFileSync(
    file,
    [
      'implementation: { name: broken-install, version: 0.1.0 }',
      'snapshot: draft@2b5da580',
      'role: backend',
      'transports: [stdio]',
      'profiles: [tool-interception]',
      'timeoutMs: 2000',
      'backend:',
      '  stdio:',
      '    command: node',
      `    args: [${[...launcher, main, '--transport', 'stdio'].map((a) => JSON.stringify(a)).join(', ')}]`,
      '    lifecycle: [persistent]',
      '',
    ].join('\n'),
  );
  return file;
}

/** Every file under `dir` that reads as a verdict or a report of one. */
function verdictFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
    /(^|\/)(results\.json|junit\.xml|index\.html)$/.test(f),
  );
}

/** Two checks of two suite files, one worker: the second file is loaded by the worker only after the first check ran. */
const TWO_CHECKS = ['--grep', '^(base\\.unknown-method|ti\\.response-id):', '--workers', '1'];

test('a module a worker loads later, removed under a running run: exit 3, one line, no verdict', async () => {
  test.setTimeout(120_000);
  const dir = temp();
  const install = copyInstall(dir);
  // Each check launches the backend through this launcher, which tells the test it started
  // and waits for its answer: the test breaks the install while the first check runs, and
  // the worker has not yet loaded the other check's suite file.
  const launcher = join(dir, 'launcher.mjs');
  writeFileSync(
    launcher,
    [
      'const [url, main] = process.argv.slice(2);',
      'await fetch(url);',
      'process.argv.splice(2, 1);',
      'await import(main);',
      '',
    ].join('\n'),
  );
  const suites = ['base.spec.js', 'tool-interception.spec.js'].map((f) =>
    join(install, 'dist', 'suites', 'backend', f),
  );
  let broken = 0;
  const server = createServer((_req, res) => {
    // A dist/ half rebuilt: the suite files gone, whichever check runs first.
    if (broken++ === 0) for (const f of suites) rmSync(f);
    res.end('ok');
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/started`;
    const claim = claimFile(dir, install, [launcher, url]);
    const reports = join(dir, 'reports');
    const r = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
      const child = spawn(
        process.execPath,
        [join(install, 'bin', 'ahp-conformance.js'), 'run', claim, '--reports', reports, ...TWO_CHECKS],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('close', (code) => done({ code, out, err }));
    });
    expect(broken, 'the backend was launched').toBeGreaterThan(0);
    expect(r.code, r.out + r.err).toBe(3);
    const lines = r.err.split('\n').filter(Boolean);
    expect(lines, r.err).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ahp-conformance: internal error: (base\.unknown-method|ti\.response-id) did not run in its worker: .*Cannot find module .*\.spec\.js.*\(no verdict written\)$/,
    );
    expect(r.out).not.toMatch(/conformant|partial|incomplete/);
    expect(verdictFiles(reports)).toEqual([]);
  } finally {
    await new Promise<void>((done) => server.close(() => done()));
  }
});

test('an install broken before the start: exit 3, one line, no verdict, whichever part is missing', async () => {
  test.setTimeout(120_000);
  const dir = temp();
  const install = copyInstall(dir);
  const claim = claimFile(dir, install);
  const bin = join(install, 'bin', 'ahp-conformance.js');
  const reports = join(dir, 'reports');
  const run = ['run', claim, '--reports', reports, ...TWO_CHECKS];
  const cases: { missing: string; args: string[]; says: RegExp }[] = [
    // The CLI's own modules (every command imports them): no Node stack, no exit 1.
    {
      missing: 'dist/src/cli/run-command.js',
      args: run,
      says: /Cannot find module .*run-command\.js/,
    },
    {
      missing: 'dist/src/results/verify.js',
      args: ['verify', reports],
      says: /Cannot find module .*verify\.js/,
    },
    // A suite file Playwright would not miss: its checks would just not run (a partial run).
    {
      missing: 'dist/suites/backend/tool-interception.spec.js',
      args: run,
      says: /1 check of broken-install:backend:stdio:persistent never loaded \(ti\.response-id\)/,
    },
    // A reporter: Playwright stops before any check, with a stack on its stderr.
    {
      missing: 'dist/src/results/progress.js',
      args: run,
      says: /Playwright exited with 1: Error: Cannot find module '\.\/src\/results\/progress\.js'/,
    },
  ];
  for (const c of cases) {
    const moved = join(dir, 'moved.js');
    cpSync(join(install, c.missing), moved);
    rmSync(join(install, c.missing));
    const r = spawnSync(process.execPath, [bin, ...c.args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, `${c.missing}: ${r.stdout}${r.stderr}`).toBe(3);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines, `${c.missing}: ${r.stderr}`).toHaveLength(1);
    expect(lines[0]).toMatch(/^ahp-conformance: internal error: /);
    expect(lines[0]).toMatch(c.says);
    expect(verdictFiles(reports), c.missing).toEqual([]);
    cpSync(moved, join(install, c.missing));
  }
});
