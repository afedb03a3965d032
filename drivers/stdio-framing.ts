// Reading replies from a stdio process's stdout: the lenient search for the next JSON object
// (ObjectFinder), and the two reads built on it, one per lifecycle (readReply for a
// persistent process, readPerEvent for a process per message). Bounded in lines, bytes and
// time, whatever the process writes.
import {
  noReplyWithin,
  parseBody,
  type Framing,
  type Json,
  type ParseJson,
  type PerEventReply,
  type PersistentReply,
  type StdioNoReply,
} from './channel.js';
import { scanLine, onlyWhitespaceAfter } from './json-scan.js';
import type { LineResult, StdioProcess } from './stdio.js';
import type { Transcript } from './transcript.js';

export type Line = { text: string; utf8: boolean; oversize?: true };

/** A JSON object found in stdout lines, and how many lines it took to get there. */
export type Found = {
  reply: { kind: 'reply'; raw: string; utf8: boolean; value: Json; framing: Framing };
  used: number;
};

function objectOf(parse: ParseJson, text: string): Json | undefined {
  const p = parse(text);
  return p.ok && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) ? p.value : undefined;
}

/** Does the text start (after JSON whitespace) with '{'? Only such a line can be an object. */
function opensObject(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return c === 0x7b;
  }
  return false;
}

/**
 * Finds the first JSON object in stdout lines fed one at a time: a line of its own, or an
 * object spread over consecutive lines from a line starting with '{' (a pretty-printed
 * message starts at column 0; indented braces open nested objects). Lines before it are
 * kept as `skipped`. Every reply is read this leniently, so that a framing fault can be
 * judged on its own rather than as a missing reply.
 *
 * Linear in the input: each line is scanned once for brackets (json-scan.ts) and parsed at
 * most once as a line of its own; a multi-line candidate is parsed only when its opening
 * brace closes at the end of a line, and a failed parse also rules out every candidate
 * around it (which holds it as a nested value), so no line is joined twice. The caller
 * bounds how many lines it feeds.
 */
export class ObjectFinder {
  private readonly lines: Line[] = [];
  /** open brackets, shared by all candidates */
  private stack: number[] = [];
  /** open multi-line candidates, oldest first: their first line and the stack height before their '{' */
  private candidates: Array<{ start: number; base: number }> = [];

  constructor(private readonly parse: ParseJson) {}

  /** The lines fed so far. */
  get seen(): readonly Line[] {
    return this.lines;
  }

  push(line: Line): Found | undefined {
    const end = this.lines.length;
    this.lines.push(line);
    const text = line.text;
    if (opensObject(text)) {
      const single = objectOf(this.parse, text);
      if (single !== undefined) return this.found(end, end, text, line.utf8, single);
    }
    if (text.charCodeAt(0) === 0x7b) this.candidates.push({ start: end, base: this.stack.length });
    if (this.candidates.length === 0) return undefined;
    let result: Found | undefined;
    const how = scanLine(text, this.stack, (height, at) => {
      const top = this.candidates[this.candidates.length - 1];
      if (top === undefined || top.base !== height) return false;
      this.candidates.pop();
      // More on its last line after the closing brace: not an object of its own lines.
      if (!onlyWhitespaceAfter(text, at + 1)) return false;
      if (top.start < end) {
        const part = this.lines.slice(top.start, end + 1);
        const joined = part.map((l) => l.text).join('\n');
        const value = objectOf(this.parse, joined);
        if (value !== undefined) {
          result = this.found(
            top.start,
            end,
            joined,
            part.every((l) => l.utf8),
            value,
          );
          return true;
        }
      } // else: the line alone, which did not parse above
      return true; // not JSON, and neither is any candidate around it
    });
    if (result) return result;
    if (how !== 'ok') this.candidates = [];
    if (this.candidates.length === 0) this.stack = [];
    return undefined;
  }

  private found(start: number, end: number, raw: string, utf8: boolean, value: Json): Found {
    const before = this.lines.slice(0, start);
    return {
      reply: {
        kind: 'reply',
        raw,
        utf8,
        value,
        framing: {
          skipped: before.map((l) => l.text),
          multiLine: end > start,
          oversize: before.filter((l) => l.oversize).length,
        },
      },
      used: end + 1,
    };
  }
}

/** The first JSON object in these stdout lines (see ObjectFinder). */
export function findObject(lines: readonly Line[], parse: ParseJson): Found | undefined {
  const finder = new ObjectFinder(parse);
  for (const line of lines) {
    const found = finder.push(line);
    if (found) return found;
  }
  return undefined;
}

/**
 * How much stdout one reply search reads at most: past this much output without a reply
 * the answer is `none` (the output kept as a bounded sample), not more waiting.
 */
export const MAX_SEARCH_LINES = 1000;
export const MAX_SEARCH_BYTES = 8 * 1024 * 1024;

function toLine(r: Extract<LineResult, { kind: 'line' | 'oversize' }>): Line {
  return r.kind === 'line'
    ? { text: r.text, utf8: r.utf8 }
    : { text: `(a ${r.bytes}-byte line over the line size bound)`, utf8: true, oversize: true };
}

/** Why a search that has read `lines` lines and `bytes` bytes stops, if it must. */
function overBound(lines: number, bytes: number): string | undefined {
  if (lines > MAX_SEARCH_LINES) return `more than ${MAX_SEARCH_LINES} stdout lines`;
  if (bytes > MAX_SEARCH_BYTES) return `more than ${MAX_SEARCH_BYTES} bytes of stdout`;
  return undefined;
}

/** '; N stdout line(s) that are not a JSON object: a | b | …' (at most 300 characters of them). */
function notObjects(lines: readonly Line[]): string {
  if (!lines.length) return '';
  let sample = '';
  for (const l of lines) {
    sample += (sample ? ' | ' : '') + l.text.slice(0, 300);
    if (sample.length >= 300) break;
  }
  return `; ${lines.length} stdout line(s) that are not a JSON object: ${sample.slice(0, 300)}`;
}

function skippedOf(lines: readonly Line[]): { skipped: string[]; oversize: number } {
  return { skipped: lines.map((l) => l.text), oversize: lines.filter((l) => l.oversize).length };
}

/**
 * Read the next reply of a persistent process (leniently framed; see ObjectFinder). Ends
 * by the deadline however fast lines come (checked on every line), and after at most
 * MAX_SEARCH_LINES lines / MAX_SEARCH_BYTES bytes without a reply.
 */
export async function readReply(
  p: StdioProcess,
  timeoutMs: number,
  transcript: Transcript,
  parse: ParseJson,
  patience = timeoutMs,
  /** How long this read waits, when it is the rest of a longer wait (a fence's): the message still names `patience`. */
  waitMs = patience,
): Promise<PersistentReply | StdioNoReply> {
  const start = Date.now();
  const deadline = start + waitMs;
  const noReply = (): string => noReplyWithin(timeoutMs, patience);
  const none = (why: string, lines: readonly Line[], exit?: StdioNoReply['exit']): StdioNoReply => ({
    kind: 'none',
    transport: 'stdio',
    lifecycle: 'persistent',
    why,
    ...skippedOf(lines),
    ...(exit ? { exit } : {}),
  });
  const finder = new ObjectFinder(parse);
  let bytes = 0;
  for (;;) {
    const line = await p.nextLine(Math.max(1, deadline - Date.now()));
    const lines = finder.seen;
    if (line.kind === 'line' || line.kind === 'oversize') {
      if (line.kind === 'line') bytes += line.bytes.byteLength;
      const found = finder.push(toLine(line));
      if (found) return { ...found.reply, transport: 'stdio', lifecycle: 'persistent', latencyMs: Date.now() - start };
      const over = overBound(lines.length, bytes);
      if (over) {
        transcript.record({ dir: 'note', channel: 'stdio', note: `stopped reading: ${over} without a reply` });
        return none(`${over} without a reply${notObjects(lines)}`, lines);
      }
      if (Date.now() < deadline) continue;
      return { ...none(`${noReply()}${notObjects(lines)}`, lines), timedOut: true };
    }
    if (line.kind === 'eof') {
      const exit = p.exited() ?? (await p.waitExit(500));
      return none(
        `stdout closed${exit && exit !== 'timeout' ? ` (exit code ${exit.code ?? exit.signal})` : ''}${notObjects(lines)}`,
        lines,
        exit,
      );
    }
    return { ...none(`${noReply()}${notObjects(lines)}`, lines), timedOut: true };
  }
}

/**
 * per_event, after the message and end of input: read stdout to its end (or the deadline,
 * or the bounds), then the exit status.
 */
export async function readPerEvent(
  p: StdioProcess,
  timeoutMs: number,
  transcript: Transcript,
  parse: ParseJson,
  patience = timeoutMs,
): Promise<PerEventReply | StdioNoReply> {
  const start = Date.now();
  let latencyMs: number | undefined;
  const finder = new ObjectFinder(parse);
  let found: Found | undefined;
  const extra: string[] = [];
  let count = 0;
  let bytes = 0;
  let over: string | undefined;
  const deadline = start + patience;
  for (;;) {
    const line = await p.nextLine(Math.max(1, deadline - Date.now()));
    if (line.kind !== 'line' && line.kind !== 'oversize') break;
    count++;
    if (line.kind === 'line') bytes += line.bytes.byteLength;
    const l = toLine(line);
    latencyMs ??= Date.now() - start;
    if (found) extra.push(l.text);
    else found = finder.push(l);
    over = overBound(count, bytes);
    if (over) {
      transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: `stopped reading: ${over}${found ? '' : ' without a reply'}`,
      });
      break;
    }
    if (Date.now() >= deadline) break;
  }
  const exit = await p.waitExit(Math.max(200, deadline - Date.now()));
  const stdio = { transport: 'stdio', lifecycle: 'per_event' } as const;
  if (!found) {
    const lines = finder.seen;
    if (over)
      return { kind: 'none', ...stdio, why: `${over} without a reply${notObjects(lines)}`, exit, ...skippedOf(lines) };
    const partial = p.pendingBytes();
    if (lines.length) {
      // No line held an object: the first line is the reply, judged as it is.
      const first = lines[0]!;
      return {
        kind: 'reply',
        ...stdio,
        raw: first.text,
        utf8: first.utf8,
        ...parseBody(parse, first.text, first.utf8),
        extraLines: lines.slice(1).map((l) => l.text),
        exit,
        latencyMs: latencyMs!,
      };
    }
    const silent =
      exit === 'timeout'
        ? `no output, and the process did not exit (${noReplyWithin(timeoutMs, patience)})`
        : 'no output';
    return {
      kind: 'none',
      ...stdio,
      why: partial ? `${partial} bytes without a final newline` : silent,
      exit,
      skipped: [],
      oversize: 0,
    };
  }
  return { ...found.reply, ...stdio, extraLines: extra, exit, latencyMs: latencyMs! };
}
