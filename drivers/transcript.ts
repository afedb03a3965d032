// Bounded, redacted record of everything that crossed a transport: the evidence attached
// to a conformance finding. Bytes are kept exactly (base64) when they are not valid UTF-8,
// secrets are removed at record time, and the entry count, the entry size and the bytes
// kept in all are capped so a misbehaving implementation cannot exhaust memory (or fill
// results.json: a stderr flood once made one check's transcript 127 MB).
import { Buffer, isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';

export type Direction = 'send' | 'recv' | 'stderr' | 'exit' | 'note';

export interface TranscriptEntry {
  /** ms since the transcript started (performance.now based, 0.1 ms precision) */
  t: number;
  /** ISO wall-clock time */
  at: string;
  dir: Direction;
  channel: 'stdio' | 'http';
  /** the bytes as UTF-8 text; if not valid UTF-8, a lossy decode and `base64` holds the exact bytes */
  text: string;
  base64?: string;
  http?: { method?: string; url?: string; status?: number; headers?: Record<string, string> };
  note?: string;
}

export type RecordInput = Omit<TranscriptEntry, 't' | 'at' | 'text' | 'base64'> & { bytes?: Uint8Array; text?: string };

const REDACTED = '[redacted]';
const REDACTED_BYTES = Buffer.from(REDACTED, 'utf8');
const AUTH_HEADERS = new Set(['authorization', 'proxy-authorization']);

function replaceAllText(s: string, secrets: readonly string[]): string {
  let out = s;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

function replaceAllBytes(buf: Buffer, secrets: readonly Buffer[]): Buffer {
  let out = buf;
  for (const secret of secrets) {
    let i = out.indexOf(secret);
    if (i < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    while (i >= 0) {
      parts.push(out.subarray(from, i), REDACTED_BYTES);
      from = i + secret.length;
      i = out.indexOf(secret, from);
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

/** Cut to at most `max` bytes without splitting a UTF-8 sequence (when the bytes are UTF-8). */
function cutUtf8(buf: Buffer, max: number): Buffer {
  let end = max;
  // step back over continuation bytes so the kept part stays valid UTF-8
  while (end > 0 && end > max - 4 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

function redactAuthValue(v: string): string {
  // Several header lines arrive joined with ", " (no credential syntax uses a comma): each
  // stays visible as one redacted credential, so a duplicated header shows in the transcript.
  return v
    .split(',')
    .map((one) => (/^\s*bearer(\s|$)/i.test(one) ? `Bearer ${REDACTED}` : REDACTED))
    .join(', ');
}

function joinNotes(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b;
}

export class Transcript {
  private readonly startPerf = performance.now();
  private readonly maxEntries: number;
  private readonly maxBytesPerEntry: number;
  private readonly maxBytes: number;
  private secrets: string[] = []; // longest first, so a secret containing another is removed whole
  private secretBytes: Buffer[] = [];
  // Over the entry cap we keep the first half and a ring of the most recent half: the
  // start (handshake) and the end (where it failed) are what a reader needs.
  // Each half is also bounded in bytes (half of maxBytes each).
  private readonly head: TranscriptEntry[] = [];
  private headBytes = 0;
  /** The tail's entries from `tailStart` on (a queue: old entries leave at the front). */
  private tail: (TranscriptEntry | undefined)[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private dropped = 0;

  constructor(opts?: { maxEntries?: number; maxBytesPerEntry?: number; maxBytes?: number; secrets?: string[] }) {
    this.maxEntries = Math.max(2, Math.floor(opts?.maxEntries ?? 2000));
    this.maxBytesPerEntry = Math.max(16, Math.floor(opts?.maxBytesPerEntry ?? 256 * 1024));
    this.maxBytes = Math.max(2 * this.maxBytesPerEntry, Math.floor(opts?.maxBytes ?? 1024 * 1024));
    for (const s of opts?.secrets ?? []) this.addSecret(s);
  }

  /** Register a secret; it is replaced by '[redacted]' in this and every already recorded entry. */
  addSecret(secret: string): void {
    if (!secret || this.secrets.includes(secret)) return;
    this.secrets.push(secret);
    this.secrets.sort((a, b) => b.length - a.length);
    this.secretBytes = this.secrets.map((s) => Buffer.from(s, 'utf8'));
    for (const e of this.entries()) this.redactEntry(e);
  }

  /** Any text with this transcript's secrets replaced, for evidence kept beside the transcript. */
  redactText(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return out;
  }

  record(e: RecordInput): void {
    const t = Math.round((performance.now() - this.startPerf) * 10) / 10;
    let note = e.note;
    let buf =
      e.bytes !== undefined
        ? Buffer.from(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength)
        : Buffer.from(e.text ?? '', 'utf8');
    buf = replaceAllBytes(buf, this.secretBytes);
    let utf8 = isUtf8(buf);
    if (buf.length > this.maxBytesPerEntry) {
      const total = buf.length;
      buf = utf8 ? cutUtf8(buf, this.maxBytesPerEntry) : buf.subarray(0, this.maxBytesPerEntry);
      note = joinNotes(note, `truncated: kept ${buf.length} of ${total} bytes`);
      utf8 = isUtf8(buf);
    }
    const entry: TranscriptEntry = {
      t,
      at: new Date().toISOString(),
      dir: e.dir,
      channel: e.channel,
      text: buf.toString('utf8'),
    };
    if (!utf8) entry.base64 = buf.toString('base64');
    if (e.http) {
      const http: NonNullable<TranscriptEntry['http']> = {};
      if (e.http.method !== undefined) http.method = e.http.method;
      if (e.http.url !== undefined) http.url = e.http.url;
      if (e.http.status !== undefined) http.status = e.http.status;
      if (e.http.headers) http.headers = { ...e.http.headers };
      entry.http = http;
    }
    if (note !== undefined) entry.note = note;
    this.redactEntry(entry);
    this.push(entry);
  }

  entries(): readonly TranscriptEntry[] {
    const ordered = this.tail.slice(this.tailStart) as TranscriptEntry[];
    if (this.dropped === 0) return [...this.head, ...ordered];
    const first = ordered[0];
    const gap: TranscriptEntry = {
      t: first ? first.t : 0,
      at: first ? first.at : new Date().toISOString(),
      dir: 'note',
      channel: first ? first.channel : 'stdio',
      text: '',
      note: `transcript limit of ${this.maxEntries} entries or ${this.maxBytes} bytes reached: ${this.dropped} entries dropped here`,
    };
    return [...this.head, gap, ...ordered];
  }

  toJsonl(): string {
    const all = this.entries();
    return all.length ? all.map((e) => JSON.stringify(e)).join('\n') + '\n' : '';
  }

  toText(): string {
    return this.entries()
      .map((e) => formatEntry(e))
      .join('\n');
  }

  private push(entry: TranscriptEntry): void {
    const headCap = Math.ceil(this.maxEntries / 2);
    const tailCap = this.maxEntries - headCap - 1; // one slot for the gap note
    const size = entryBytes(entry);
    if (this.tail.length === 0 && this.head.length < headCap && this.headBytes + size <= this.maxBytes / 2) {
      this.head.push(entry);
      this.headBytes += size;
      return;
    }
    if (tailCap <= 0) {
      this.dropped++;
      return;
    }
    this.tail.push(entry);
    this.tailBytes += size;
    // Drop the oldest of the tail while it is over its count or its bytes (the latest entry always stays).
    while (
      this.tail.length - this.tailStart > tailCap ||
      (this.tailBytes > this.maxBytes / 2 && this.tail.length - this.tailStart > 1)
    ) {
      this.tailBytes -= entryBytes(this.tail[this.tailStart]!);
      this.tail[this.tailStart++] = undefined; // let it go now, not at the next compaction
      this.dropped++;
    }
    if (this.tailStart > 64 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  private redactEntry(e: TranscriptEntry): void {
    const secrets = this.secrets;
    if (secrets.length) {
      e.text = replaceAllText(e.text, secrets);
      if (e.note !== undefined) e.note = replaceAllText(e.note, secrets);
      if (e.base64 !== undefined) {
        const raw = Buffer.from(e.base64, 'base64');
        const red = replaceAllBytes(raw, this.secretBytes);
        if (red !== raw) e.base64 = red.toString('base64');
      }
      if (e.http?.url !== undefined) e.http.url = replaceAllText(e.http.url, secrets);
    }
    const headers = e.http?.headers;
    if (headers) {
      for (const k of Object.keys(headers)) {
        const v = headers[k]!;
        headers[k] = AUTH_HEADERS.has(k.toLowerCase())
          ? redactAuthValue(v)
          : secrets.length
            ? replaceAllText(v, secrets)
            : v;
      }
    }
  }
}

/** What an entry costs, roughly, in bytes kept. */
function entryBytes(e: TranscriptEntry): number {
  return e.text.length + (e.base64?.length ?? 0) + (e.note?.length ?? 0) + 64;
}

const ARROWS: Record<Direction, string> = { send: '>>', recv: '<<', stderr: '!!', exit: '--', note: '--' };

/** Make control characters visible (a '\r' in a line matters) and indent continuation lines. */
function showText(s: string): string {
  return s.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, (c) => {
    if (c === '\r') return '\\r';
    if (c === '\t') return '\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function formatEntry(e: TranscriptEntry): string {
  const time = `+${e.t.toFixed(1)}ms`.padEnd(10);
  const parts: string[] = [];
  if (e.http) {
    const h = e.http;
    const head: string[] = [];
    if (h.method !== undefined) head.push(h.method);
    if (h.url !== undefined) head.push(h.url);
    if (h.status !== undefined) head.push(String(h.status));
    if (head.length) parts.push(head.join(' '));
    if (h.headers && Object.keys(h.headers).length) {
      parts.push(
        `{${Object.entries(h.headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')}}`,
      );
    }
  }
  // The framing newline of a message or log chunk is implied; its absence is worth saying.
  let text = e.text;
  let missingNewline = false;
  if ((e.dir === 'stderr' || e.dir === 'send') && text.endsWith('\n')) text = text.slice(0, -1);
  else if (e.dir === 'send' && e.channel === 'stdio' && text !== '') missingNewline = true;
  if (text !== '') parts.push(showText(text));
  if (e.base64 !== undefined) parts.push(`(not valid UTF-8; exact bytes base64: ${e.base64})`);
  if (missingNewline) parts.push('(no trailing newline)');
  if (e.note !== undefined) parts.push(e.text === '' && !e.http ? e.note : `(${e.note})`);
  const line = `${time}  ${ARROWS[e.dir]} ${e.channel.padEnd(5)}  ${parts.join('  ')}`;
  return line.replace(/\n/g, '\n' + ' '.repeat(time.length + 2 + 3 + 5 + 2));
}
