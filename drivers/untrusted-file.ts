// Reading a file that an implementation under test wrote (an adapter's report, a marker
// file): a regular file only, never through a symlink, never blocking (a FIFO is refused
// without opening it for a blocking read), and never more than a bound of bytes.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export type UntrustedFile =
  { kind: 'ok'; text: string; mtimeMs: number } | { kind: 'missing' } | { kind: 'refused'; why: string };

export function readUntrustedFile(path: string, maxBytes: number): UntrustedFile {
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink (to anywhere) is refused; O_NONBLOCK: opening a FIFO does not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP') return { kind: 'refused', why: 'it is a symbolic link' };
    return { kind: 'refused', why: `it cannot be opened (${code ?? 'error'})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'refused', why: 'it is not a regular file' };
    if (st.size > maxBytes) return { kind: 'refused', why: `it has ${st.size} bytes, over the ${maxBytes}-byte bound` };
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n >= buf.length) return { kind: 'refused', why: `it grew over the ${maxBytes}-byte bound while being read` };
    }
    return { kind: 'ok', text: buf.subarray(0, n).toString('utf8'), mtimeMs: st.mtimeMs };
  } catch (e) {
    return { kind: 'refused', why: `it cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}
