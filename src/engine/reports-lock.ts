// One writer per reports folder: `run` and `merge` hold `<reports>/.lock` while they write
// there (a shard holds its own blob folder's), and a second run is refused instead of
// mixing its reports with the first's (docs/reports.md, "Two runs, one folder").
//
// The lock file appears whole or not at all: it is written under a name of its own and
// hard-linked to `.lock` (link(2) fails if the name exists, on every file system that has
// hard links; elsewhere it is created O_EXCL). It names its run: pid, the process's start
// time and the boot (so a reused pid or a reboot is told apart), host, pid namespace, when
// it started and what it writes, and a random nonce.
//
// A lock whose process is gone is stale and is taken over; two runs taking over the same
// stale lock must not both get it. The one that hard-links `.lock` to `.lock.reap-<nonce>`
// (an O_EXCL step: the name exists once) and then finds that nonce in what it linked is the
// only one allowed to remove that lock; anyone else backs off and reads `.lock` again. A
// run that links a newer lock there finds another nonce and removes only its own link.
//
// What is at `.lock` is never followed or opened as anything but a regular file: a link,
// a FIFO, a folder or text that is no lock of ours is refused, never removed (it is the
// user's to look at).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = '.lock';
/** Far above any lock this tool writes (its `what` is bounded). */
const MAX_LOCK_BYTES = 4096;
const MAX_WHAT = 300;
/** Rounds of "read the lock, take over a stale one": another run taking over the same stale lock needs a few. */
const ATTEMPTS = 50;
const PAUSE_MS = 20;

/** The run holding a lock, as it wrote itself down. */
export interface LockHolder {
  pid: number;
  /** ISO time the run took the lock. */
  startedAt: string;
  host: string;
  /** What it writes: `run of acme (acme.yaml)`, `merge of 2 blob reports`. */
  what: string;
}

interface LockRecord extends LockHolder {
  tool: 'ahp-conformance';
  nonce: string;
  /** Linux: the process's start in clock ticks after boot (/proc/<pid>/stat field 22). */
  procStart?: string;
  bootId?: string;
  /** Linux: the pid namespace the pid is a number in. */
  pidNs?: string;
}

export type LockAttempt =
  /** Ours until `release()` (also called at exit). */
  | { kind: 'held'; file: string; release: () => void }
  /**
   * Another run holds it: alive, or one this machine cannot judge (`unknown`: another host
   * or pid namespace wrote it).
   */
  | { kind: 'busy'; file: string; holder: LockHolder; unknown?: string }
  /** `.lock` is something this tool cannot take as a lock, or a takeover never finished. */
  | { kind: 'refused'; file: string; reason: string };

/** A regular file's first bytes, bounded; never through a link, never blocking on a FIFO. */
function readSmall(file: string, max: number): Buffer | string {
  let st;
  try {
    st = lstatSync(file);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable';
  }
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (!st.isFile()) return st.isFIFO() ? 'a FIFO' : st.isDirectory() ? 'a folder' : 'not a regular file';
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable';
  }
  try {
    const now = fstatSync(fd);
    // Swapped between the look and the open: judged again on the next round.
    if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) return 'gone';
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (let r = 1; r > 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, n);
    return n > max ? 'larger than a lock' : buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

type Found = { kind: 'lock'; record: LockRecord } | { kind: 'gone' } | { kind: 'other'; why: string };

function readLock(file: string): Found {
  const got = readSmall(file, MAX_LOCK_BYTES);
  if (got === 'gone') return { kind: 'gone' };
  if (typeof got === 'string') return { kind: 'other', why: `is ${got}` };
  let r: Partial<LockRecord>;
  try {
    r = JSON.parse(got.toString('utf8')) as Partial<LockRecord>;
  } catch {
    return { kind: 'other', why: 'holds no lock of ahp-conformance' };
  }
  // The nonce becomes part of a file name: exactly hex, nothing else.
  const ok =
    r !== null &&
    typeof r === 'object' &&
    r.tool === 'ahp-conformance' &&
    Number.isSafeInteger(r.pid) &&
    r.pid! >= 1 &&
    r.pid! <= 0x7fffffff &&
    typeof r.nonce === 'string' &&
    /^[0-9a-f]{32}$/.test(r.nonce) &&
    str(r.startedAt, 64) &&
    str(r.host, 255) &&
    str(r.what, MAX_WHAT + 10) &&
    (r.procStart === undefined || (typeof r.procStart === 'string' && /^\d{1,20}$/.test(r.procStart))) &&
    (r.bootId === undefined || str(r.bootId, 64)) &&
    (r.pidNs === undefined || str(r.pidNs, 64));
  return ok ? { kind: 'lock', record: r as LockRecord } : { kind: 'other', why: 'holds no lock of ahp-conformance' };
}

/** Small text of a Linux kernel interface, or undefined. */
function kernelText(file: string): string | undefined {
  const got = readSmall(file, 4096);
  return typeof got === 'string' ? undefined : got.toString('utf8').trim();
}

/** Field 3 (state) and field 22 (start time) of /proc/<pid>/stat; the command name may hold spaces and parentheses. */
function procStat(pid: number): { state: string; start: string } | undefined {
  const text = kernelText(`/proc/${pid}/stat`);
  const rest = text
    ?.slice(text.lastIndexOf(')') + 1)
    .trim()
    .split(' ');
  return rest && rest.length > 19 ? { state: rest[0]!, start: rest[19]! } : undefined;
}

function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

const bootId = (): string | undefined => kernelText('/proc/sys/kernel/random/boot_id');

/** Is the lock's run still there? `gone` only when this machine can tell for sure. */
function holderState(r: LockRecord): { state: 'alive' | 'gone' } | { state: 'unknown'; why: string } {
  if (r.host !== hostname()) return { state: 'unknown', why: `written on host ${r.host}` };
  const boot = bootId();
  if (r.bootId !== undefined && boot !== undefined && r.bootId !== boot) return { state: 'gone' };
  const ns = pidNamespace();
  if (r.pidNs !== undefined && ns !== undefined && r.pidNs !== ns)
    return { state: 'unknown', why: 'written in another pid namespace' };
  try {
    process.kill(r.pid, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return { state: 'gone' };
    // EPERM: it exists (another user's process).
    if (code !== 'EPERM') return { state: 'unknown', why: `pid ${r.pid} cannot be looked at (${code})` };
  }
  const stat = procStat(r.pid);
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return { state: 'gone' };
  // The pid lives, but a process started later than the lock's is another one.
  if (stat && r.procStart !== undefined && stat.start !== r.procStart) return { state: 'gone' };
  return { state: 'alive' };
}

const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;
/** link(2) is not there (a file system without hard links). */
const noLinks = (e: unknown): boolean => ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errno(e) ?? '');

function writeNew(file: string, text: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Put `text` at `file` whole, unless something is there: true when it is ours now. */
function create(dir: string, file: string, text: string): boolean {
  const tmp = join(dir, `${LOCK_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  writeNew(tmp, text);
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    if (!noLinks(e)) throw e;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // Gone already.
    }
  }
  // No hard links here: created O_EXCL and written at once (a run killed between the two
  // leaves an empty lock, refused as no lock of ours, with the file named).
  try {
    writeNew(file, text);
    return true;
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    throw e;
  }
}

/**
 * Remove the stale lock with `nonce` from `dir` if `.lock` still is it. `again`: look at
 * `.lock` anew; `busy`: another run is taking the same lock over; `no-links`: cannot be
 * done safely here. (Exported for the tests of its interleavings.)
 */
export function removeStaleLock(dir: string, nonce: string): 'again' | 'busy' | 'no-links' {
  const file = join(dir, LOCK_FILE);
  const reaper = join(dir, `${LOCK_FILE}.reap-${nonce}`);
  try {
    // Not followed: the link names whatever inode `.lock` is now.
    linkSync(file, reaper);
  } catch (e) {
    if (errno(e) === 'EEXIST') return 'busy';
    if (noLinks(e)) return 'no-links';
    return 'again';
  }
  try {
    const linked = readLock(reaper);
    // `.lock` changed after we judged it: the newer lock is not ours to remove.
    if (linked.kind !== 'lock' || linked.record.nonce !== nonce) return 'again';
    // `.lock` was this stale lock when we linked it, and only the holder of the reaper
    // name removes it: it is still the stale one.
    try {
      unlinkSync(file);
    } catch {
      // Removed by hand meanwhile.
    }
    return 'again';
  } finally {
    try {
      unlinkSync(reaper);
    } catch {
      // Gone already.
    }
  }
}

function selfRecord(what: string): LockRecord {
  const stat = procStat(process.pid);
  const boot = bootId();
  const ns = pidNamespace();
  return {
    tool: 'ahp-conformance',
    pid: process.pid,
    startedAt: new Date().toISOString(),
    host: hostname(),
    what: what.length > MAX_WHAT ? `${what.slice(0, MAX_WHAT - 1)}…` : what,
    nonce: randomBytes(16).toString('hex'),
    ...(stat ? { procStart: stat.start } : {}),
    ...(boot ? { bootId: boot } : {}),
    ...(ns ? { pidNs: ns } : {}),
  };
}

function holderOf(r: LockRecord): LockHolder {
  return { pid: r.pid, startedAt: r.startedAt, host: r.host, what: r.what };
}

/**
 * Take `<dir>/.lock` for a run that writes `what` into `dir` (made if missing). Held until
 * `release()`, or until the process exits.
 */
export function lockFolder(dir: string, what: string): LockAttempt {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const mine = selfRecord(what);
  const text = `${JSON.stringify(mine)}\n`;
  let stale: LockRecord | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (create(dir, file, text)) return held(file, mine.nonce);
    const found = readLock(file);
    if (found.kind === 'gone') continue;
    if (found.kind === 'other') return { kind: 'refused', file, reason: found.why };
    const state = holderState(found.record);
    if (state.state === 'alive') return { kind: 'busy', file, holder: holderOf(found.record) };
    if (state.state === 'unknown') return { kind: 'busy', file, holder: holderOf(found.record), unknown: state.why };
    stale = found.record;
    const took = removeStaleLock(dir, found.record.nonce);
    if (took === 'no-links')
      return {
        kind: 'refused',
        file,
        reason: `is the stale lock of pid ${found.record.pid}, and this file system has no hard links to take it over safely`,
      };
    if (took === 'busy') pause(PAUSE_MS);
  }
  return {
    kind: 'refused',
    file,
    reason: `is the stale lock of pid ${stale?.pid ?? '?'}; another run began taking it over and never finished (${LOCK_FILE}.reap-${stale?.nonce ?? '*'})`,
  };
}

function held(file: string, nonce: string): LockAttempt {
  let done = false;
  const release = (): void => {
    if (done) return;
    done = true;
    process.off('exit', release);
    const now = readLock(file);
    // Only our own lock: never one a later run took over.
    if (now.kind === 'lock' && now.record.nonce === nonce) {
      try {
        unlinkSync(file);
      } catch {
        // Removed by hand meanwhile.
      }
    }
  };
  process.on('exit', release);
  return { kind: 'held', file, release };
}
