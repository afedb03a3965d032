// The reports folder's lock (src/engine/reports-lock.ts): a live run's lock is refused, a
// stale one (its process gone, its pid reused, written before a reboot) is taken over, and
// when several runs take over one stale lock at once exactly one gets it. Whatever is at
// `.lock` that is no lock of ours (a link, a FIFO, a folder, garbage) is refused without
// being followed, opened as a pipe, or removed.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { LOCK_FILE, lockFolder, removeStaleLock } from '../../src/engine/reports-lock.js';
import { ROOT } from '../support/paths.js';
import { tempFolders } from '../support/temp.js';

const workspace = tempFolders('ahp-lock-');
const linux = process.platform === 'linux';

/** A lock as another run would have written it. */
function plant(dir: string, over: Record<string, unknown> = {}): string {
  const file = join(dir, LOCK_FILE);
  writeFileSync(
    file,
    JSON.stringify({
      tool: 'ahp-conformance',
      pid: process.pid,
      startedAt: '2025-01-01T00:00:00.000Z',
      host: hostname(),
      what: 'run of other (other.yaml)',
      nonce: '0123456789abcdef0123456789abcdef',
      ...over,
    }),
  );
  return file;
}

const lockOf = (dir: string): { pid: number; nonce: string; what: string } =>
  JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; nonce: string; what: string };

/** What the lock leaves beside itself: nothing but `.lock` while held. */
const siblings = (dir: string): string[] => readdirSync(dir).filter((f) => f !== LOCK_FILE);

/** A pid no process has now: one that ran and ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

function startField(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text
    .slice(text.lastIndexOf(')') + 1)
    .trim()
    .split(' ')[19]!;
}

test('a lock in a new folder is taken, names its run, and its release removes it', () => {
  const dir = join(workspace(), 'reports');
  const got = lockFolder(dir, 'run of acme (acme.yaml)');
  expect(got.kind).toBe('held');
  const lock = lockOf(dir);
  expect(lock).toMatchObject({ pid: process.pid, what: 'run of acme (acme.yaml)' });
  expect(lock.nonce).toMatch(/^[0-9a-f]{32}$/);
  expect(siblings(dir)).toEqual([]);
  if (got.kind === 'held') got.release();
  expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
});

test('a live lock is refused with its run named; once released it is taken', () => {
  const dir = workspace();
  const first = lockFolder(dir, 'run of first (first.yaml)');
  expect(first.kind).toBe('held');
  const second = lockFolder(dir, 'run of second (second.yaml)');
  expect(second).toMatchObject({ kind: 'busy', holder: { pid: process.pid, what: 'run of first (first.yaml)' } });
  expect(second.kind === 'busy' && second.unknown).toBeFalsy();
  // The refused run changed nothing: the first run's lock is as it wrote it.
  expect(lockOf(dir).what).toBe('run of first (first.yaml)');
  if (first.kind === 'held') first.release();
  const third = lockFolder(dir, 'run of third (third.yaml)');
  expect(third.kind).toBe('held');
  if (third.kind === 'held') third.release();
});

test("another live process's lock is refused; once that process is killed, its lock is stale and taken over", async () => {
  test.skip(!linux, 'the start time of a process is read from /proc');
  const dir = workspace();
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    plant(dir, { pid: child.pid, procStart: startField(child.pid!) });
    expect(lockFolder(dir, 'run of mine (mine.yaml)')).toMatchObject({
      kind: 'busy',
      holder: { pid: child.pid, what: 'run of other (other.yaml)' },
    });
  } finally {
    const gone = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await gone;
  }
  const got = lockFolder(dir, 'run of mine (mine.yaml)');
  expect(got.kind).toBe('held');
  expect(lockOf(dir)).toMatchObject({ pid: process.pid, what: 'run of mine (mine.yaml)' });
  expect(siblings(dir)).toEqual([]);
  if (got.kind === 'held') got.release();
});

test('stale locks are taken over: a gone pid, a reused pid, a lock from before a reboot', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['a pid no process has', { pid: deadPid() }],
    ...(linux
      ? ([
          // Our own pid, but the process that wrote the lock started at another time.
          ['a pid reused by a later process', { pid: process.pid, procStart: '1' }],
          ['a lock written before the last boot', { pid: process.pid, bootId: 'not-this-boot' }],
        ] as [string, Record<string, unknown>][])
      : []),
  ];
  for (const [what, over] of cases) {
    const dir = workspace();
    plant(dir, over);
    const got = lockFolder(dir, 'run of mine (mine.yaml)');
    expect(got.kind, what).toBe('held');
    expect(lockOf(dir).what, what).toBe('run of mine (mine.yaml)');
    expect(siblings(dir), what).toEqual([]);
    if (got.kind === 'held') got.release();
  }
});

test('a lock this machine cannot judge (another host, another pid namespace) is refused, never taken over', () => {
  const dir = workspace();
  plant(dir, { host: 'build-7', pid: deadPid() });
  expect(lockFolder(dir, 'mine')).toMatchObject({
    kind: 'busy',
    holder: { host: 'build-7' },
    unknown: 'written on host build-7',
  });
  if (linux) {
    const other = workspace();
    plant(other, { pidNs: 'pid:[1]', pid: deadPid() });
    expect(lockFolder(other, 'mine')).toMatchObject({ kind: 'busy', unknown: 'written in another pid namespace' });
  }
});

test('what is at .lock but a lock of ours is refused: not followed, not blocked on, not removed', () => {
  const outside = join(workspace(), 'precious');
  writeFileSync(outside, 'keep me');
  const cases: [string, (file: string) => void, RegExp][] = [
    ['a symlink to a file', (f) => symlinkSync(outside, f), /^is a symbolic link$/],
    ['a dangling symlink', (f) => symlinkSync(join(outside, 'nowhere'), f), /^is a symbolic link$/],
    ['a folder', (f) => mkdirSync(f), /^is a folder$/],
    ['garbage', (f) => writeFileSync(f, '\u001b[2J not json'), /^holds no lock of ahp-conformance$/],
    ['an empty file', (f) => writeFileSync(f, ''), /^holds no lock of ahp-conformance$/],
    ['a huge file', (f) => writeFileSync(f, 'x'.repeat(1 << 20)), /^is larger than a lock$/],
    ['pid -1 (every process)', (f) => plant(join(f, '..'), { pid: -1 }), /^holds no lock/],
    ['pid 0 (the process group)', (f) => plant(join(f, '..'), { pid: 0 }), /^holds no lock/],
    [
      'a nonce that is a path',
      (f) => plant(join(f, '..'), { pid: deadPid(), nonce: '../../etc/passwd' }),
      /^holds no lock/,
    ],
  ];
  if (linux) cases.push(['a FIFO', (f) => spawnSync('mkfifo', [f]), /^is a FIFO$/]);
  for (const [what, make, reason] of cases) {
    const dir = workspace();
    const file = join(dir, LOCK_FILE);
    make(file);
    const got = lockFolder(dir, 'mine');
    expect(got.kind, what).toBe('refused');
    if (got.kind === 'refused') expect(got.reason, what).toMatch(reason);
    // Left as it was for the user to look at, and nothing written through it.
    expect(readdirSync(dir), what).toEqual([LOCK_FILE]);
  }
  expect(readFileSync(outside, 'utf8')).toBe('keep me');
});

test('a release removes only its own lock, never one another run holds now', () => {
  const dir = workspace();
  const got = lockFolder(dir, 'mine');
  expect(got.kind).toBe('held');
  plant(dir, { nonce: 'ffffffffffffffffffffffffffffffff', what: 'run of later (later.yaml)' });
  if (got.kind === 'held') got.release();
  expect(lockOf(dir).what).toBe('run of later (later.yaml)');
});

/** A process that takes the lock of `dir` on "go" and holds what it got until its stdin ends. */
function taker(dir: string): {
  child: ChildProcess;
  ready: Promise<void>;
  result: Promise<{ kind: string; pid?: number }>;
} {
  const module = pathToFileURL(join(ROOT, 'dist', 'src', 'engine', 'reports-lock.js')).href;
  const script = `
    import { lockFolder } from ${JSON.stringify(module)};
    import { createInterface } from 'node:readline';
    const lines = createInterface({ input: process.stdin });
    lines.once('line', () => {
      const got = lockFolder(${JSON.stringify(dir)}, 'taker ' + process.pid);
      process.stdout.write(JSON.stringify({ kind: got.kind, pid: got.holder?.pid }) + '\\n');
    });
    lines.on('close', () => process.exit(0));
    process.stdout.write('ready\\n');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out = createInterface({ input: child.stdout! });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  out.on('line', (l) => {
    lines.push(l);
    waiters.splice(0).forEach((w) => w());
  });
  const nth = (n: number): Promise<string> =>
    new Promise((done) => {
      const check = (): void => (lines.length > n ? done(lines[n]!) : void waiters.push(check));
      check();
    });
  return {
    child,
    ready: nth(0).then(() => undefined),
    result: nth(1).then((l) => JSON.parse(l) as { kind: string; pid?: number }),
  };
}

test('several runs taking over one stale lock at once: exactly one gets it, the others name it', async () => {
  test.setTimeout(60_000);
  for (let round = 0; round < 3; round++) {
    const dir = workspace();
    plant(dir, { pid: deadPid() });
    const takers = Array.from({ length: 8 }, () => taker(dir));
    try {
      await Promise.all(takers.map((t) => t.ready));
      for (const t of takers) t.child.stdin!.write('go\n');
      const results = await Promise.all(takers.map((t) => t.result));
      const winners = results.filter((r) => r.kind === 'held');
      expect(winners, JSON.stringify(results)).toHaveLength(1);
      const winner = takers[results.indexOf(winners[0]!)]!.child.pid;
      expect(lockOf(dir).pid).toBe(winner);
      for (const r of results.filter((x) => x.kind !== 'held')) expect(r).toEqual({ kind: 'busy', pid: winner });
      // No takeover left a name behind.
      expect(siblings(dir)).toEqual([]);
    } finally {
      await Promise.all(
        takers.map((t) => {
          const gone = new Promise((done) => t.child.once('exit', done));
          t.child.stdin!.end();
          return gone;
        }),
      );
    }
    // The winner released it at its exit.
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  }
});

test('a run that judged a lock stale after another took it over removes nothing', () => {
  const dir = workspace();
  const stale = '0123456789abcdef0123456789abcdef';
  plant(dir, { pid: deadPid(), nonce: stale });
  const winner = lockFolder(dir, 'run of winner (winner.yaml)');
  expect(winner.kind).toBe('held');
  // The slow run read the stale lock before the winner took it over, and acts on it only now.
  expect(removeStaleLock(dir, stale)).toBe('again');
  expect(lockOf(dir).what).toBe('run of winner (winner.yaml)');
  expect(siblings(dir)).toEqual([]);
  if (winner.kind === 'held') winner.release();
});

test('a takeover that never finished (its run killed in the middle) is named, not waited on forever', () => {
  const dir = workspace();
  const stale = '0123456789abcdef0123456789abcdef';
  const file = plant(dir, { pid: deadPid(), nonce: stale });
  // What a run killed between its two steps leaves: the stale lock and its reaper name.
  linkSync(file, join(dir, `${LOCK_FILE}.reap-${stale}`));
  const got = lockFolder(dir, 'mine');
  expect(got.kind).toBe('refused');
  if (got.kind === 'refused')
    expect(got.reason).toMatch(
      /^is the stale lock of pid \d+; another run began taking it over and never finished \(\.lock\.reap-0123456789abcdef0123456789abcdef\)$/,
    );
  // Once the user removed both (as the line says), the next run takes the folder.
  unlinkSync(file);
  unlinkSync(join(dir, `${LOCK_FILE}.reap-${stale}`));
  const next = lockFolder(dir, 'mine');
  expect(next.kind).toBe('held');
  if (next.kind === 'held') next.release();
});
