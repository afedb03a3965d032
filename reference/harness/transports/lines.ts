// stdout framing shared by both stdio lifecycles: split on LF only, each line must be one
// strict JSON object by itself (AHP-STDIO-001). A CR before the LF is left to the JSON
// parser, which treats it as whitespace. Buffers are bounded.
import { isObject, parseJsonBytes, type JsonValue } from '../../../src/protocol/json.js';

export const MAX_LINE_BYTES = 4 * 1024 * 1024;
const LF = 0x0a;

export type LineParse = { ok: true; value: JsonValue } | { ok: false; failure: string };

/** One stdout line as a reply: strict UTF-8 JSON, and an object. */
export function parseReplyLine(line: Uint8Array): LineParse {
  const parsed = parseJsonBytes(line);
  if (!parsed.ok)
    return {
      ok: false,
      failure: `reply line is not one JSON object: ${parsed.findings[0]?.message ?? 'invalid JSON'}`,
    };
  if (!isObject(parsed.value)) return { ok: false, failure: 'reply line is JSON but not an object' };
  return { ok: true, value: parsed.value };
}

/** Incremental LF splitter; an over-long line is reported once and skipped to its LF. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversize: () => void,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = this.size === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.size = 0;
      if (line.length > this.maxBytes) this.onOversize();
      else this.onLine(line);
    }
    if (start < chunk.length && !this.discarding) {
      this.parts.push(chunk.subarray(start));
      this.size += chunk.length - start;
      if (this.size > this.maxBytes) {
        this.parts = [];
        this.size = 0;
        this.discarding = true;
        this.onOversize();
      }
    }
  }

  /** The unterminated last line at end of stream, if any. */
  tail(): Buffer | undefined {
    if (this.discarding || this.size === 0) return undefined;
    return Buffer.concat(this.parts);
  }
}

/**
 * The lenient-framing fault only: skip lines that are not JSON and reassemble replies
 * spread over several lines, by trying every suffix of the lines seen so far. Only a
 * JSON-RPC-looking object counts, so an inner object of a pretty-printed reply (which
 * parses on its own) does not end the reassembly early.
 */
export class LenientReassembler {
  private lines: Buffer[] = [];

  push(line: Buffer): JsonValue | undefined {
    this.lines.push(line);
    if (this.lines.length > 1000) this.lines.shift();
    for (let s = this.lines.length - 1; s >= 0; s--) {
      const joined = Buffer.concat(this.lines.slice(s).flatMap((l, i) => (i === 0 ? [l] : [Buffer.from('\n'), l])));
      const parsed = parseJsonBytes(joined);
      if (parsed.ok && isObject(parsed.value) && ('jsonrpc' in parsed.value || 'id' in parsed.value)) {
        this.lines = [];
        return parsed.value;
      }
    }
    return undefined;
  }
}
