// File-system primitives that cannot be redirected. The runner writes reports and work
// files in folders an implementation under test may have reached (its TMPDIR, its run
// folders, a reports folder it could plant a link in), and reads files users and
// implementations hand it. So, here and only here:
// - a folder the runner writes in is opened once, never through a symlink, and everything
//   in it is reached through that open folder (`/proc/self/fd/<fd>/<name>` on Linux), so
//   renaming it or planting a link in its place later redirects nothing;
// - a file is written into a new temporary file (O_CREAT | O_EXCL | O_NOFOLLOW) that is
//   renamed over the name: a symlink or hard link planted at the name is replaced, never
//   written through;
// - a tree is removed iteratively, never following a link and never leaving its device,
//   at any depth, and a removal that fails is a warning line, never an exception;
// - a file is read only when it is a regular file (a symlink, FIFO, device, socket or
//   folder is refused before it is opened), in bounded bytes; optionally with one link
//   only and on a given device (a hard link to a file elsewhere is refused, not read).
//   Time is bounded by the same rules: nothing that can block (a FIFO, a device) is opened,
//   and a regular file is read in one bounded pass.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** One line that names the path and what is wrong with it. */
export class SafeFsError extends Error {}

const code = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? 'error';

/** Whether a folder's open descriptor can be used as a path (Linux's /proc/self/fd). */
const FD_PATHS = ((): boolean => {
  try {
    return statSync('/proc/self/fd').isDirectory();
  } catch {
    return false;
  }
})();

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What a non-regular file is, in a few words. */
function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0'))
    throw new SafeFsError(`${JSON.stringify(name)} is not a file name`);
}

/**
 * A folder opened once (never through a symlink). `at(name)` reaches an entry of this very
 * folder, whatever its path names by then; `show(name)` is the path to print.
 */
export class Folder {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /** Open `path` as a folder; its last component must be a real folder, not a symlink. */
  static open(path: string): Folder {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      let c = code(e);
      // With O_DIRECTORY a symlink is ENOTDIR on Linux: say which it is.
      if (c === 'ENOTDIR') {
        try {
          if (lstatSync(path).isSymbolicLink()) c = 'ELOOP';
        } catch {
          // gone meanwhile: ENOTDIR says enough
        }
      }
      throw new SafeFsError(
        c === 'ELOOP'
          ? `${path} is a symbolic link, not a folder the runner made`
          : c === 'ENOTDIR'
            ? `${path} is not a folder`
            : c === 'ENOENT'
              ? `${path} does not exist`
              : `${path} cannot be opened (${c})`,
      );
    }
    try {
      if (!fstatSync(fd).isDirectory()) throw new SafeFsError(`${path} is not a folder`);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new Folder(path, fd);
  }

  /** Create `path` (and missing parents, followed as the user named them) and open it. */
  static create(path: string): Folder {
    try {
      mkdirSync(path, { recursive: true });
    } catch (e) {
      throw new SafeFsError(`${path} cannot be created (${code(e)})`);
    }
    return Folder.open(path);
  }

  /** This folder itself, as a path that reaches it while it is open. */
  here(): string {
    if (this.fd === undefined) throw new SafeFsError(`${this.path}: used after it was closed`);
    return FD_PATHS ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /** An entry of this folder as a path that reaches it in this very folder. */
  at(name: string): string {
    checkName(name);
    return `${this.here()}/${name}`;
  }

  show(name: string): string {
    return join(this.path, name);
  }

  /** The device this folder is on (a file written in it by anyone is on the same one). */
  get device(): number {
    return fstatSync(this.fd!).dev;
  }

  /**
   * The entry `name` as a real folder, opened: a symlink, file or anything else there is
   * removed (never followed) and a folder made; `fresh` removes an existing folder too.
   */
  folder(name: string, opts: { fresh?: boolean } = {}): Folder {
    const p = this.at(name);
    for (let attempt = 0; attempt < 4; attempt++) {
      let st: Stats | undefined;
      try {
        st = lstatSync(p);
      } catch (e) {
        if (code(e) !== 'ENOENT') throw new SafeFsError(`${this.show(name)} cannot be examined (${code(e)})`);
      }
      if (st && (opts.fresh || !st.isDirectory())) {
        const left = removeEntry(this, name, st);
        if (left.length) throw new SafeFsError(`${this.show(name)} cannot be replaced: ${left[0]}`);
        st = undefined;
      }
      if (!st) {
        try {
          mkdirSync(p, { mode: 0o755 });
        } catch (e) {
          if (code(e) === 'EEXIST') continue; // made by someone else meanwhile: look again
          throw new SafeFsError(`${this.show(name)} cannot be created (${code(e)})`);
        }
      }
      try {
        const f = Folder.open(p);
        return new Folder(this.show(name), f.release());
      } catch (e) {
        if (!(e instanceof SafeFsError)) throw e;
        // Replaced between the look and the open: look again.
      }
      opts = { ...opts, fresh: false };
    }
    throw new SafeFsError(`${this.show(name)} keeps changing while the runner makes it; not used`);
  }

  /**
   * Write `data` as `name`: into a new temporary file, renamed over the name. Whatever was
   * at the name (a symlink, a hard link, a folder) is replaced, never written through.
   */
  write(name: string, data: string | Uint8Array, mode = 0o644): void {
    const tmp = `.${name.slice(0, 64)}.${randomBytes(6).toString('hex')}.tmp`;
    let fd: number;
    try {
      fd = openSync(this.at(tmp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, mode);
    } catch (e) {
      throw new SafeFsError(`${this.show(name)} cannot be written (${code(e)})`);
    }
    try {
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      closeSync(fd);
      tryUnlink(this.at(tmp));
      throw new SafeFsError(`${this.show(name)} cannot be written (${code(e)})`);
    }
    closeSync(fd);
    try {
      renameSync(this.at(tmp), this.at(name));
    } catch (e) {
      let err = e;
      // A folder in the way (EISDIR, ENOTEMPTY): removed without following anything, then once more.
      if (['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(code(e)) && this.remove(name).length === 0) {
        try {
          renameSync(this.at(tmp), this.at(name));
          return;
        } catch (again) {
          err = again;
        }
      }
      tryUnlink(this.at(tmp));
      throw new SafeFsError(`${this.show(name)} cannot be written (${code(err)})`);
    }
  }

  /** Read `name` bounded (see {@link readRegularFile}); a hard link may be refused with `singleLink`. */
  read(name: string, limits: ReadLimits): FileRead {
    return readRegularFile(this.at(name), limits);
  }

  /** Remove `name` (a file, a link, or a whole tree, iteratively); what could not be removed, one line each. */
  remove(name: string): string[] {
    let st: Stats;
    try {
      st = lstatSync(this.at(name));
    } catch (e) {
      return code(e) === 'ENOENT' ? [] : [`${this.show(name)}: ${code(e)}`];
    }
    return removeEntry(this, name, st);
  }

  /** Hand the descriptor over (this object is closed). */
  private release(): number {
    const fd = this.fd!;
    this.fd = undefined;
    return fd;
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed: nothing to do
    }
    this.fd = undefined;
  }
}

function tryUnlink(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // gone already, or not ours to remove: the caller reports what matters
  }
}

/** Remove one entry of `parent`: unlink what is not a folder, remove a folder's tree. */
function removeEntry(parent: Folder, name: string, st: Stats): string[] {
  if (!st.isDirectory()) {
    try {
      unlinkSync(parent.at(name));
      return [];
    } catch (e) {
      return code(e) === 'ENOENT' ? [] : [`${parent.show(name)}: ${code(e)}`];
    }
  }
  return removeTree(parent.show(name), parent.at(name));
}

let moved = 0;
/** Passes over a tree before giving up on it: only a tree something keeps writing into needs more than a few. */
const MAX_PASSES = 16;

/**
 * Remove the folder at `path` and everything in it, iteratively: files and symlinks are
 * unlinked (a link's target is never touched); a folder that is not empty has its files
 * unlinked and its folders moved up into the top folder under new names, then is removed.
 * So every folder is moved at most once, no path grows deeper than two levels, and no
 * recursion depth limits the tree (3000 levels are as easy as one). A mount point (another
 * device) is not entered. Returns what could not be removed, one line each; never throws.
 * `reach` is the path to operate on (an entry of an open folder), `path` the one to show.
 */
export function removeTree(path: string, reach = path): string[] {
  let top: Folder;
  try {
    const st = lstatSync(reach);
    if (!st.isDirectory()) {
      unlinkSync(reach);
      return [];
    }
    top = Folder.open(reach);
  } catch (e) {
    if (code(e) === 'ENOENT') return [];
    return [`${path}: ${e instanceof SafeFsError ? e.message : code(e)}`];
  }
  const problems = new Map<string, string>();
  try {
    const dev = top.device;
    /** Empty the folder `name` of the top folder, then remove it; whether anything changed. */
    const take = (name: string): boolean => {
      const p = top.at(name);
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch {
        return false; // gone
      }
      if (!st.isDirectory()) {
        try {
          unlinkSync(p);
          problems.delete(name);
          return true;
        } catch (err) {
          problems.set(name, `${name} (${code(err)})`);
          return false;
        }
      }
      if (st.dev !== dev) {
        problems.set(name, `${name} (another file system is mounted there; not entered)`);
        return false;
      }
      let changed = false;
      let sub: Folder;
      try {
        sub = Folder.open(p);
      } catch {
        return true; // replaced meanwhile: looked at again on the next pass
      }
      try {
        for (const c of readdirSync(sub.here(), { withFileTypes: true })) {
          const q = sub.at(c.name);
          try {
            if (c.isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
            unlinkSync(q);
            changed = true;
          } catch (err) {
            if (code(err) !== 'EISDIR') {
              problems.set(name, `${c.name} (${code(err)})`);
              continue;
            }
            // A folder: up into the top folder, to be emptied in its turn.
            const up = `.ahp-rm-${process.pid}-${++moved}`;
            try {
              renameSync(q, top.at(up));
              queue.push(up);
              changed = true;
            } catch (again) {
              problems.set(name, `${c.name} (${code(again)})`);
            }
          }
        }
      } catch (err) {
        problems.set(name, `${name} (cannot be listed: ${code(err)})`);
      } finally {
        sub.close();
      }
      try {
        rmdirSync(p);
        problems.delete(name);
        return true;
      } catch (err) {
        if (!problems.has(name)) problems.set(name, `${name} (${code(err)})`);
        return changed;
      }
    };
    let queue: string[] = [];
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      try {
        queue = readdirSync(top.here());
      } catch (e) {
        problems.set('.', `${path} cannot be listed (${code(e)})`);
        break;
      }
      if (queue.length === 0) break;
      let changed = false;
      for (let i = 0; i < queue.length; i++) changed = take(queue[i]!) || changed;
      if (!changed) break;
    }
  } finally {
    top.close();
  }
  if (problems.size) return [...problems.values()];
  try {
    rmdirSync(reach);
  } catch (e) {
    if (code(e) === 'ENOTDIR') tryUnlink(reach);
    else if (code(e) !== 'ENOENT') return [`${path} (${code(e)})`];
  }
  return [];
}

/**
 * Remove `path` entirely; never throws. What is left becomes one warning line for the
 * caller to report (a file made immutable, a mount point), or undefined when all is gone.
 */
export function cleanUp(path: string, what: string): string | undefined {
  let left: string[];
  try {
    left = removeTree(path);
  } catch (e) {
    left = [`${path}: ${(e as Error).message}`];
  }
  if (left.length === 0) return undefined;
  return `clean-up: ${what} ${path} was not removed entirely (${left.length} entr${left.length === 1 ? 'y' : 'ies'} left; ${left[0]})`;
}

// ------------------------------------------------------------------------ reading

export interface ReadLimits {
  maxBytes: number;
  /** Refuse a file with more than one link: a hard link to a file elsewhere is not what the writer made. */
  singleLink?: boolean;
  /** Refuse a file on another device (the folder's): it cannot be one the writer made there. */
  device?: number;
}

export type FileRead =
  | { kind: 'ok'; bytes: Buffer; mtimeMs: number }
  | { kind: 'missing' }
  /** `over`: refused for its size alone. */
  | { kind: 'refused'; why: string; over?: true };

/**
 * Read a regular file, bounded: a symlink, FIFO, device, socket or folder is refused
 * before it is opened (and the file opened is checked to be the one examined), a file
 * over `maxBytes` is refused without being read, and one that grows while it is read is
 * refused at `maxBytes + 1`.
 */
export function readRegularFile(path: string, limits: ReadLimits): FileRead {
  let seen: Stats;
  try {
    seen = lstatSync(path);
  } catch (e) {
    return code(e) === 'ENOENT' ? { kind: 'missing' } : { kind: 'refused', why: `it cannot be examined (${code(e)})` };
  }
  if (!seen.isFile()) return { kind: 'refused', why: `it is ${kindOf(seen)}` };
  let fd: number;
  try {
    // O_NOFOLLOW: not through a link planted since; O_NONBLOCK: a FIFO put there since does not block the open.
    fd = openSync(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const c = code(e);
    if (c === 'ENOENT') return { kind: 'missing' };
    return { kind: 'refused', why: c === 'ELOOP' ? 'it is a symbolic link' : `it cannot be opened (${c})` };
  }
  try {
    const st = fstatSync(fd);
    if (st.ino !== seen.ino || st.dev !== seen.dev || !st.isFile())
      return { kind: 'refused', why: 'it was replaced while it was opened' };
    if (limits.singleLink && st.nlink > 1)
      return { kind: 'refused', why: `it has ${st.nlink} links (a hard link to a file elsewhere is not read)` };
    if (limits.device !== undefined && st.dev !== limits.device)
      return { kind: 'refused', why: 'it is on another device than the folder it was written in' };
    if (st.size > limits.maxBytes)
      return { kind: 'refused', why: `it has ${st.size} bytes, over the ${limits.maxBytes}-byte bound`, over: true };
    const buf = Buffer.alloc(Math.min(st.size, limits.maxBytes) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n >= buf.length)
        return { kind: 'refused', why: `it grew over the ${limits.maxBytes}-byte bound while it was read`, over: true };
    }
    return { kind: 'ok', bytes: buf.subarray(0, n), mtimeMs: st.mtimeMs };
  } catch (e) {
    return { kind: 'refused', why: `it cannot be read (${code(e)})` };
  } finally {
    closeSync(fd);
  }
}

/**
 * A file a user handed the runner (a claim, a baseline, an expected-failures list, a file
 * to verify): its bytes, or a SafeFsError whose message is one line naming the file.
 */
export function readInputFile(path: string, maxBytes: number): Buffer {
  const r = readRegularFile(path, { maxBytes });
  if (r.kind === 'ok') return r.bytes;
  throw new SafeFsError(`${path}: ${r.kind === 'missing' ? 'no such file' : r.why}`);
}

/**
 * A file an implementation under test wrote (an adapter's report, a marker): a regular
 * file with one link, bounded; `device`, when given, is the device of the folder it was
 * written in.
 */
export function readUntrustedFile(
  path: string,
  maxBytes: number,
  device?: number,
): { kind: 'ok'; text: string; mtimeMs: number } | { kind: 'missing' } | { kind: 'refused'; why: string } {
  const r = readRegularFile(path, { maxBytes, singleLink: true, ...(device !== undefined ? { device } : {}) });
  return r.kind === 'ok' ? { kind: 'ok', text: r.bytes.toString('utf8'), mtimeMs: r.mtimeMs } : r;
}

/**
 * Write one file, never through a symlink: its folder is opened without following its
 * last component (a folder the caller made), and the file replaced whole.
 */
export function writeFileSafely(path: string, data: string | Uint8Array, mode = 0o644): void {
  const folder = Folder.open(dirname(path));
  try {
    folder.write(basename(path), data, mode);
  } finally {
    folder.close();
  }
}

// ------------------------------------------------------------------------ paths

/**
 * `path` with every symlink among its existing folders resolved: the folder a user named,
 * pinned once, so that later opens refuse a link planted in it rather than follow one.
 */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  const rest: string[] = [];
  let head = abs;
  for (;;) {
    try {
      return join(realpathSync(head), ...rest.reverse());
    } catch {
      const up = dirname(head);
      if (up === head) return abs;
      rest.push(basename(head));
      head = up;
    }
  }
}

/** Whether `inner` is `outer` or inside it (both as canonical paths). */
export function isWithin(inner: string, outer: string): boolean {
  const a = canonicalPath(inner);
  const b = canonicalPath(outer);
  return a === b || a.startsWith(b.endsWith('/') ? b : `${b}/`);
}

// ------------------------------------------------------------------------ digests

/** The most bytes of one file the runner hashes (an implementation's executable or artefact). */
export const MAX_HASHED_BYTES = 1024 * 1024 * 1024;

/**
 * The sha256 (hex) of a regular file's bytes, read in bounded chunks; links are followed
 * (a command on PATH is often one), and what they lead to must be a regular file: a FIFO,
 * device, socket or folder is refused without blocking, as is a file over `maxBytes`.
 */
export function sha256OfFile(
  path: string,
  maxBytes = MAX_HASHED_BYTES,
): { kind: 'ok'; sha256: string; bytes: number } | { kind: 'missing' } | { kind: 'refused'; why: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | O_NONBLOCK);
  } catch (e) {
    return code(e) === 'ENOENT' ? { kind: 'missing' } : { kind: 'refused', why: `it cannot be opened (${code(e)})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'refused', why: `it is ${kindOf(st)}` };
    if (st.size > maxBytes) return { kind: 'refused', why: `it has ${st.size} bytes, over the ${maxBytes}-byte bound` };
    const hash = createHash('sha256');
    const buf = Buffer.alloc(1024 * 1024);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, 0, buf.length, null);
      if (got === 0) break;
      n += got;
      if (n > maxBytes) return { kind: 'refused', why: `it grew over the ${maxBytes}-byte bound while it was read` };
      hash.update(buf.subarray(0, got));
    }
    return { kind: 'ok', sha256: hash.digest('hex'), bytes: n };
  } catch (e) {
    return { kind: 'refused', why: `it cannot be read (${code(e)})` };
  } finally {
    closeSync(fd);
  }
}
