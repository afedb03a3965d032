// Kernel containment (drivers/containment.ts): whatever a contained process does, one
// teardown leaves nothing; it cannot write outside its writable folders, sees nothing of
// hidden ones, and cannot undo its mounts. Skipped (with the reason) where the runner
// falls back to process groups.
import { test, expect } from '@playwright/test';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containment } from '../../drivers/containment.js';
import { killTree, spawnTracked } from '../../drivers/processes.js';

const state = containment();
test.skip(state.kind !== 'sandbox', `the sandbox is unavailable here: ${state.reason ?? ''}`);

let base: string;
test.beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'ahp-contain-'));
});
test.afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Live (not zombie) processes whose command line holds `marker`. */
function survivors(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      if (!/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const collect = (s: NodeJS.ReadableStream | null | undefined): Promise<string> =>
  new Promise((done) => {
    let text = '';
    s?.on('data', (c: Buffer) => {
      text += c.toString();
    });
    s?.on('end', () => done(text));
    s?.on('close', () => done(text));
  });

test('a double-forked, setsid, SIGTERM-ignoring daemon holding a port is gone after one teardown', async () => {
  const marker = `ahp-daemon-${process.pid}-${Date.now()}`;
  // The grandchild detaches (setsid via a new session), ignores SIGTERM and listens on a port.
  const daemon = `process.on('SIGTERM', () => {}); require('net').createServer().listen(0, '127.0.0.1'); setInterval(() => {}, 1000);`;
  const parent = `const { spawn } = require('child_process');
    const c = spawn(process.execPath, ['-e', ${JSON.stringify(daemon)}, '${marker}'], { detached: true, stdio: 'ignore' }); c.unref();
    process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);`;
  const work = join(base, 'daemon');
  mkdirSync(work);
  const child = spawnTracked(process.execPath, ['-e', parent, marker], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    confine: { writable: [work], hidden: [] },
  });
  await new Promise<void>((ready) => child.stdout!.once('data', () => ready()));
  await expect.poll(() => survivors(marker).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await killTree(child);
  await new Promise((r) => setTimeout(r, 1000));
  expect(survivors(marker)).toEqual([]);
});

test('only the writable folders take writes; hidden folders are empty; mounts cannot be undone; no process of the host is visible', async () => {
  const work = join(base, 'work');
  const secret = join(base, 'hidden');
  mkdirSync(work);
  mkdirSync(secret);
  writeFileSync(join(secret, 'results.json'), '{"verdict":"nonconformant"}');
  const script = `const fs = require('fs'); const out = {};
    const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); return 'wrote'; } catch (e) { return e.code; } };
    out.work = tryWrite(${JSON.stringify(join(work, 'ok'))});
    out.hidden = tryWrite(${JSON.stringify(join(secret, 'results.json'))});
    out.tmp = tryWrite('/tmp/ahp-contain-escape-' + process.pid);
    out.listHidden = fs.readdirSync(${JSON.stringify(secret)});
    out.pid = process.pid;
    out.procs = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).length;
    out.remount = require('child_process').spawnSync('mount', ['-o', 'remount,rw', '/']).status;
    console.log(JSON.stringify(out));`;
  const child = spawnTracked(process.execPath, ['-e', script], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    confine: { writable: [work], hidden: [secret] },
  });
  const out = JSON.parse(await collect(child.stdout)) as Record<string, unknown>;
  await killTree(child);
  expect(out.work).toBe('wrote');
  expect(out.hidden).toBe('EROFS');
  expect(out.tmp).toBe('EROFS');
  expect(out.listHidden).toEqual([]);
  // bubblewrap's init is PID 1, the command the first process it starts
  expect(out.pid).toBeLessThanOrEqual(2);
  expect(out.procs).toBeLessThanOrEqual(3);
  expect(out.remount).not.toBe(0);
  expect(readFileSync(join(secret, 'results.json'), 'utf8')).toBe('{"verdict":"nonconformant"}');
  expect(existsSync(join(work, 'ok'))).toBe(true);
});

test('a command that cannot be started is a one-line launch error, not a started container', () => {
  expect(() =>
    spawnTracked('no-such-command-ahp-xyz', [], {
      cwd: base,
      env: { PATH: '/usr/bin' },
      stdio: 'ignore',
      confine: { writable: [], hidden: [] },
    }),
  ).toThrow(/command not found on PATH/);
});
