// A bounded tail of a byte stream (stderr / stdout logs): keeps only the last `max` bytes,
// so a chatty child cannot exhaust memory while we still show its last words.
import { Buffer } from 'node:buffer';

/**
 * Keeps only the last `max` bytes written to it: a ring buffer that grows (by doubling) up
 * to `max`, so each byte is copied a bounded number of times however small the chunks are.
 */
export class ByteTail {
  private buf: Buffer = Buffer.alloc(0);
  /** index of the oldest kept byte (non-zero only once the ring is full) */
  private start = 0;
  private size = 0;
  private cut = false;
  private readonly max: number;
  constructor(max: number) {
    this.max = Math.max(0, Math.floor(max));
  }

  /** Bytes dropped from the front so far? */
  get truncated(): boolean {
    return this.cut;
  }

  push(chunk: Uint8Array): void {
    const max = this.max;
    const n = chunk.length;
    if (max === 0 || n === 0) return;
    if (n >= max) {
      this.cut ||= n > max || this.size > 0;
      if (this.buf.length < max) this.buf = Buffer.alloc(max);
      this.buf.set(chunk.subarray(n - max));
      this.start = 0;
      this.size = max;
      return;
    }
    if (this.size + n > this.buf.length && this.buf.length < max) {
      // Still growing: the content is linear (start = 0) until the ring reaches `max`.
      const grown = Buffer.alloc(Math.min(max, Math.max(this.size + n, this.buf.length * 2, 256)));
      this.buf.copy(grown, 0, 0, this.size);
      this.buf = grown;
    }
    const cap = this.buf.length;
    const over = this.size + n - cap;
    if (over > 0) {
      // Full ring (cap === max): drop the oldest bytes.
      this.start = (this.start + over) % cap;
      this.size -= over;
      this.cut = true;
    }
    const at = (this.start + this.size) % cap;
    const first = Math.min(n, cap - at);
    this.buf.set(chunk.subarray(0, first), at);
    if (first < n) this.buf.set(chunk.subarray(first), 0);
    this.size += n;
  }

  /** The kept bytes, oldest first (a copy). */
  bytes(): Buffer {
    const cap = this.buf.length;
    if (this.start + this.size <= cap) return Buffer.from(this.buf.subarray(this.start, this.start + this.size));
    return Buffer.concat(
      [this.buf.subarray(this.start), this.buf.subarray(0, this.start + this.size - cap)],
      this.size,
    );
  }

  text(): string {
    let buf = this.bytes();
    // drop a UTF-8 sequence cut in half by the bound
    let i = 0;
    while (this.cut && i < buf.length && i < 3 && (buf[i]! & 0xc0) === 0x80) i++;
    if (i) buf = buf.subarray(i);
    return buf.toString('utf8');
  }
}

/** The last non-empty line of a text, trimmed (for one-line error messages). */
export function lastLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.length ? lines[lines.length - 1]! : '';
}
