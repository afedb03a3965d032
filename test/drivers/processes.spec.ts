import { test, expect, type TestInfo } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAllTracked, killTree, spawnTracked, trackedCount } from '../../drivers/processes.js';
import { childEnv, grandparentProgram, isGone, killQuietly, NODE, sleep, waitGone } from './helpers.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

let children: ChildProcess[] = [];
let strayPids: number[] = [];

test.afterEach(async () => {
  await Promise.all(children.map((c) => killTree(c, 200)));
  children = [];
  for (const pid of strayPids) killQuietly(pid);
  strayPids = [];
});

function track(js: string): ChildProcess {
  const c = spawnTracked(NODE, ['-e', js], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  return c;
}

function readPid(stream: NodeJS.ReadableStream, label: string): Promise<number> {
  return new Promise((resolvePid, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no ${label} pid`)), 10_000);
    stream.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = new RegExp(`${label} (\\d+)`).exec(buf);
      if (m) {
        clearTimeout(timer);
        resolvePid(Number(m[1]));
      }
    });
  });
}

test.describe('process registry', () => {
  test('spawnTracked puts the child in its own process group and registers it until it exits', async () => {
    const before = trackedCount();
    const c = track(`setTimeout(() => {}, 300)`);
    expect(c.pid).toBeGreaterThan(0);
    expect(trackedCount()).toBe(before + 1);
    // detached: the child leads its own process group, so kill(-pid, 0) reaches it
    expect(() => process.kill(-c.pid!, 0)).not.toThrow();
    await new Promise((r) => c.once('exit', r));
    await sleep(50);
    expect(trackedCount()).toBe(before);
  });

  test('killTree never throws: for a failed spawn or a process that already exited', async () => {
    const bad = spawnTracked('definitely-not-a-command-ahp-xyz', [], { cwd: ROOT, env: childEnv(), stdio: 'ignore' });
    bad.on('error', () => {});
    await expect(killTree(bad)).resolves.toBeUndefined();
    const c = track(`process.exit(0)`);
    await new Promise((r) => c.once('exit', r));
    await expect(killTree(c)).resolves.toBeUndefined();
  });

  test('killTree escalates to SIGKILL after the grace period', async () => {
    const c = track(grandparentProgram({ ignoreTerm: true }));
    const gpid = await readPid(c.stderr!, 'GRANDCHILD');
    strayPids.push(gpid);
    const start = Date.now();
    await killTree(c, 300);
    const took = Date.now() - start;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(5500);
    expect(c.signalCode).toBe('SIGKILL');
    expect(await waitGone(gpid, 5000)).toBe(true);
  });

  test('killTree kills grandchildren left behind by a parent that already exited', async () => {
    const c = track(`
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      process.stderr.write('GRANDCHILD ' + g.pid + '\\n');
      g.unref();
      setTimeout(() => process.exit(0), 100);`);
    const gpid = await readPid(c.stderr!, 'GRANDCHILD');
    strayPids.push(gpid);
    await new Promise((r) => c.once('exit', r));
    expect(isGone(gpid)).toBe(false); // orphaned, but still in our group
    await killTree(c, 500);
    expect(await waitGone(gpid, 5000)).toBe(true);
  });

  test('killAllTracked stops every tracked tree', async () => {
    const a = track(grandparentProgram());
    const b = track(grandparentProgram());
    const ga = await readPid(a.stderr!, 'GRANDCHILD');
    const gb = await readPid(b.stderr!, 'GRANDCHILD');
    strayPids.push(ga, gb);
    await killAllTracked(500);
    for (const pid of [a.pid!, b.pid!, ga, gb]) expect(await waitGone(pid, 5000)).toBe(true);
  });
});

/**
 * The signal / exit handlers act on the whole host process, so they are tested in a
 * separate Node host that runs the compiled driver.
 */
test.describe('exit and signal handlers (separate host process)', () => {
  let host: ChildProcess | undefined;
  let pids: number[] = [];

  test.afterEach(async () => {
    if (host && host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
    host = undefined;
    for (const pid of pids) killQuietly(pid);
    pids = [];
  });

  function compileDriver(testInfo: TestInfo): string {
    const out = testInfo.outputPath('compiled');
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'tsc'),
      [
        '--ignoreConfig',
        '--outDir',
        out,
        '--rootDir',
        'drivers',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--skipLibCheck',
        '--strict',
        'drivers/processes.ts',
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
    return out;
  }

  async function startHost(testInfo: TestInfo, tail: string): Promise<{ child: number; grandchild: number }> {
    const out = compileDriver(testInfo);
    const script = join(out, 'host.mjs');
    writeFileSync(
      script,
      `import { spawnTracked } from './processes.js';
       const c = spawnTracked(process.execPath, ['-e', ${JSON.stringify(grandparentProgram())}], { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
       c.stderr.on('data', (d) => process.stdout.write(d));
       process.stdout.write('CHILD ' + c.pid + '\\n');
       setInterval(() => {}, 1000);
       ${tail}`,
    );
    host = spawn(NODE, [script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const [child, grandchild] = await Promise.all([
      readPid(host.stdout!, 'CHILD'),
      readPid(host.stdout!, 'GRANDCHILD'),
    ]);
    pids.push(child, grandchild);
    return { child, grandchild };
  }

  function hostExit(): Promise<{ code: number | null; signal: string | null }> {
    const h = host!;
    if (h.exitCode !== null || h.signalCode !== null)
      return Promise.resolve({ code: h.exitCode, signal: h.signalCode });
    return new Promise((r) => h.once('exit', (code, signal) => r({ code, signal })));
  }

  test('Ctrl-C (SIGINT) on a host without its own handler: the tree dies and the host ends by SIGINT', async ({}, testInfo) => {
    const { child, grandchild } = await startHost(testInfo, '');
    host!.kill('SIGINT');
    const exit = await hostExit();
    expect(exit.signal === 'SIGINT' || exit.code === 130).toBe(true);
    expect(await waitGone(child, 5000)).toBe(true);
    expect(await waitGone(grandchild, 5000)).toBe(true);
  });

  test('SIGTERM on the host: the tree dies and the host ends by SIGTERM', async ({}, testInfo) => {
    const { child, grandchild } = await startHost(testInfo, '');
    host!.kill('SIGTERM');
    const exit = await hostExit();
    expect(exit.signal === 'SIGTERM' || exit.code === 143).toBe(true);
    expect(await waitGone(child, 5000)).toBe(true);
    expect(await waitGone(grandchild, 5000)).toBe(true);
  });

  test('a host with its own SIGINT handler keeps control, but the tree still dies', async ({}, testInfo) => {
    const { child, grandchild } = await startHost(
      testInfo,
      `process.on('SIGINT', () => { setTimeout(() => { process.stdout.write('HOST STILL ALIVE\\n'); process.exit(7); }, 1500); });`,
    );
    let out = '';
    host!.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    host!.kill('SIGINT');
    expect(await waitGone(child, 5000)).toBe(true);
    expect(await waitGone(grandchild, 5000)).toBe(true);
    const exit = await hostExit();
    expect(exit.code).toBe(7);
    expect(out).toContain('HOST STILL ALIVE');
  });

  test('process.exit() on the host kills the tree synchronously', async ({}, testInfo) => {
    const { child, grandchild } = await startHost(
      testInfo,
      `c.stderr.on('data', () => setTimeout(() => process.exit(0), 100));`,
    );
    const exit = await hostExit();
    expect(exit.code).toBe(0);
    expect(await waitGone(child, 5000)).toBe(true);
    expect(await waitGone(grandchild, 5000)).toBe(true);
  });
});
