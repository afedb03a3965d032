// A bounded tail of a byte stream (stderr / stdout logs): keeps only the last `max` bytes,
// so a chatty child cannot exhaust memory while we still show its last words.
import { Buffer } from 'node:buffer';

/** Keeps only the last `max` bytes written to it. */
export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    if (this.max <= 0) return;
    if (chunk.length >= this.max) {
      this.truncated ||= chunk.length > this.max || this.size > 0;
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.max))];
      this.size = this.max;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.max) {
      this.size -= this.chunks.shift()!.length;
      this.truncated = true;
    }
    if (this.size > this.max) {
      this.truncated = true;
      const first = this.chunks[0]!;
      const cut = this.size - this.max;
      this.chunks[0] = Buffer.from(first.subarray(cut));
      this.size -= cut;
    }
  }
  text(): string {
    let buf = Buffer.concat(this.chunks, this.size);
    // drop a UTF-8 sequence cut in half by the bound
    let i = 0;
    while (this.truncated && i < buf.length && i < 3 && (buf[i]! & 0xc0) === 0x80) i++;
    if (i) buf = buf.subarray(i);
    return buf.toString('utf8');
  }
}

/** The last non-empty line of a text, trimmed (for one-line error messages). */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  return lines.length ? lines[lines.length - 1]! : '';
}
