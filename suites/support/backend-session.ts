// One check's conversation with a backend under test, over the project's transport and
// lifecycle. The runner plays the harness: it sends requests and notifications through a
// driver, waits at most one deadline per exchange, and hands back what came back — raw
// bytes, parsed value and transport details — for the check to judge.
import getPort from 'get-port';
import { HttpServerProcess, postJson } from '../../drivers/http.js';
import { scanLine, onlyWhitespaceAfter } from '../../drivers/json-scan.js';
import { StdioProcess, type LineResult } from '../../drivers/stdio.js';
import { Transcript } from '../../drivers/transcript.js';
import type { Lifecycle, Transport } from '../../src/checks/catalogue.js';
import { HARMLESS_TOOL, interceptRequest, newId, toolBeforeEvent, type DeliberateProbe } from '../../src/checks/probes.js';
import type { ResolvedClaim } from '../../src/claims/load.js';
import { implementationEnv, type DeclaredEnv } from '../../src/claims/environment.js';
import type { CheckWorkspace } from '../../src/engine/workspace.js';
import { patienceMs } from '../../src/timing.js';
import { parseJsonStrict, type JsonValue } from '../../src/protocol/json.js';

export interface HttpDetails {
  status: number;
  headers: Record<string, string>;
  contentType: string;
}

/** What came back for one message. */
export type Reply =
  | {
      kind: 'reply';
      raw: string;
      utf8: boolean;
      /** Parsed when the raw text is one strict JSON value. */
      value?: JsonValue;
      parseError?: string;
      http?: HttpDetails;
      /** stdio: how the reply was framed (judged by the stdio checks only; the others read leniently). */
      framing?: Framing;
      /** stdio per_event: further stdout lines after the reply, and the exit status. */
      extraLines?: string[];
      exit?: { code: number | null; signal: string | null } | 'timeout';
      /** ms from sending to the reply (per_event: including the process start). */
      latencyMs?: number;
    }
  | {
      kind: 'none';
      why: string;
      http?: HttpDetails;
      exit?: { code: number | null; signal: string | null } | 'timeout';
      /** stdio: lines that came but held no JSON object, and how many were over the size bound. */
      skipped?: string[];
      oversize?: number;
    };

export interface Framing {
  /** Lines before the reply that were not JSON objects (banners, logs). */
  skipped: string[];
  /** The reply object spanned several lines (pretty-printed). */
  multiLine: boolean;
  /** Lines over the line size bound seen before the reply. */
  oversize: number;
}

export type Outgoing = Record<string, unknown> | DeliberateProbe;

type Line = { text: string; utf8: boolean; oversize?: true };

function objectOf(text: string): JsonValue | undefined {
  const p = parseJsonStrict(text);
  return p.ok && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) ? p.value : undefined;
}

type Found = { reply: Extract<Reply, { kind: 'reply' }>; used: number };

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
 * kept as `skipped`. Every check reads replies this leniently, so that a framing fault
 * fails the framing checks and not every other check.
 *
 * Linear in the input: each line is scanned once for brackets (drivers/json-scan.ts) and
 * parsed at most once as a line of its own; a multi-line candidate is parsed only when its
 * opening brace closes at the end of a line, and a failed parse also rules out every
 * candidate around it (which holds it as a nested value), so no line is joined twice.
 * The caller bounds how many lines it feeds.
 */
export class ObjectFinder {
  private readonly lines: Line[] = [];
  /** open brackets, shared by all candidates */
  private stack: number[] = [];
  /** open multi-line candidates, oldest first: their first line and the stack height before their '{' */
  private candidates: Array<{ start: number; base: number }> = [];

  /** The lines fed so far. */
  get seen(): readonly Line[] {
    return this.lines;
  }

  push(line: Line): Found | undefined {
    const end = this.lines.length;
    this.lines.push(line);
    const text = line.text;
    if (opensObject(text)) {
      const single = objectOf(text);
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
        const value = objectOf(joined);
        if (value !== undefined) {
          result = this.found(top.start, end, joined, part.every((l) => l.utf8), value);
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

  private found(start: number, end: number, raw: string, utf8: boolean, value: JsonValue): Found {
    const before = this.lines.slice(0, start);
    return {
      reply: {
        kind: 'reply', raw, utf8, value,
        framing: { skipped: before.map((l) => l.text), multiLine: end > start, oversize: before.filter((l) => l.oversize).length },
      },
      used: end + 1,
    };
  }
}

/** The first JSON object in these stdout lines (see ObjectFinder). */
export function findObject(lines: readonly Line[]): Found | undefined {
  const finder = new ObjectFinder();
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
  return r.kind === 'line' ? { text: r.text, utf8: r.utf8 } : { text: `(a ${r.bytes}-byte line over the line size bound)`, utf8: true, oversize: true };
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

function skippedOf(lines: readonly Line[]): { skipped?: string[]; oversize?: number } {
  return lines.length ? { skipped: lines.map((l) => l.text), oversize: lines.filter((l) => l.oversize).length } : {};
}

/**
 * Read the next reply of a persistent process (leniently framed; see ObjectFinder). Ends
 * by the deadline however fast lines come (checked on every line), and after at most
 * MAX_SEARCH_LINES lines / MAX_SEARCH_BYTES bytes without a reply.
 */
export async function readReply(p: StdioProcess, timeoutMs: number, transcript: Transcript, patience = timeoutMs): Promise<Reply> {
  const start = Date.now();
  const deadline = start + patience;
  const noReply = (): string => noReplyWithin(timeoutMs, patience);
  const finder = new ObjectFinder();
  let bytes = 0;
  for (;;) {
    const line = await p.nextLine(Math.max(1, deadline - Date.now()));
    const lines = finder.seen;
    if (line.kind === 'line' || line.kind === 'oversize') {
      if (line.kind === 'line') bytes += line.bytes.byteLength;
      const found = finder.push(toLine(line));
      if (found) return { ...found.reply, latencyMs: Date.now() - start };
      const over = overBound(lines.length, bytes);
      if (over) {
        transcript.record({ dir: 'note', channel: 'stdio', note: `stopped reading: ${over} without a reply` });
        return { kind: 'none', why: `${over} without a reply${notObjects(lines)}`, ...skippedOf(lines) };
      }
      if (Date.now() < deadline) continue;
      return { kind: 'none', why: `${noReply()}${notObjects(lines)}`, ...skippedOf(lines) };
    }
    if (line.kind === 'eof') {
      const exit = p.exited() ?? (await p.waitExit(500));
      return { kind: 'none', why: `stdout closed${exit && exit !== 'timeout' ? ` (exit code ${exit.code ?? exit.signal})` : ''}${notObjects(lines)}`, ...(exit ? { exit } : {}), ...skippedOf(lines) };
    }
    return { kind: 'none', why: `${noReply()}${notObjects(lines)}`, ...skippedOf(lines) };
  }
}

/** "no reply within 2000 ms (timeoutMs); waited 10000 ms in all" */
export function noReplyWithin(timeoutMs: number, patience: number): string {
  return patience > timeoutMs ? `no reply within ${timeoutMs} ms (timeoutMs); waited ${patience} ms in all` : `no reply within ${timeoutMs} ms`;
}

/**
 * per_event, after the message and end of input: read stdout to its end (or the deadline,
 * or the bounds), then the exit status.
 */
export async function readPerEvent(p: StdioProcess, timeoutMs: number, transcript: Transcript, patience = timeoutMs): Promise<Reply> {
  const start = Date.now();
  let latencyMs: number | undefined;
  const finder = new ObjectFinder();
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
      transcript.record({ dir: 'note', channel: 'stdio', note: `stopped reading: ${over}${found ? '' : ' without a reply'}` });
      break;
    }
    if (Date.now() >= deadline) break;
  }
  const exit = await p.waitExit(Math.max(200, deadline - Date.now()));
  if (!found) {
    const lines = finder.seen;
    if (over) return { kind: 'none', why: `${over} without a reply${notObjects(lines)}`, exit, ...skippedOf(lines) };
    const partial = p.pendingBytes();
    if (lines.length) {
      const first = lines[0]!;
      return { kind: 'reply', raw: first.text, utf8: first.utf8, ...parsed(first.text, first.utf8), extraLines: lines.slice(1).map((l) => l.text), exit, ...(latencyMs !== undefined ? { latencyMs } : {}) };
    }
    const silent = exit === 'timeout' ? `no output, and the process did not exit (${noReplyWithin(timeoutMs, patience)})` : 'no output';
    return { kind: 'none', why: partial ? `${partial} bytes without a final newline` : silent, exit };
  }
  return { ...found.reply, extraLines: extra, exit, ...(latencyMs !== undefined ? { latencyMs } : {}) };
}

const isDeliberate = (m: Outgoing): m is DeliberateProbe => typeof (m as DeliberateProbe).deliberate === 'string' && 'message' in m;

function frame(m: Outgoing): { text: string; note?: string } {
  if (isDeliberate(m)) return { text: typeof m.message === 'string' ? m.message : JSON.stringify(m.message), note: `probe is wrong on purpose: ${m.deliberate}` };
  return { text: JSON.stringify(m) };
}

function parsed(raw: string, utf8: boolean): { value?: JsonValue; parseError?: string } {
  if (!utf8) return { parseError: 'the reply is not valid UTF-8' };
  const p = parseJsonStrict(raw);
  return p.ok ? { value: p.value } : { parseError: p.findings.map((f) => f.message).join('; ') };
}

export class BackendSession {
  readonly transcript: Transcript;
  private stdio?: StdioProcess;
  private server?: HttpServerProcess;
  private url?: string;
  /** The bearer token sent over HTTP: the claim's, else a canary so leaks can be seen. */
  readonly token?: string;

  constructor(
    readonly claim: ResolvedClaim,
    readonly transport: Transport,
    readonly lifecycle: Lifecycle | undefined,
    readonly timeoutMs: number,
    transcript: Transcript,
    /** The check's folder and the confinement of every process this session starts. */
    private readonly workspace: CheckWorkspace,
  ) {
    this.transcript = transcript;
    if (transport === 'http') {
      const tokenEnv = claim.backend?.http?.tokenEnv;
      this.token = tokenEnv ? process.env[tokenEnv] : undefined;
      if (this.token) this.transcript.addSecret(this.token);
    }
  }

  /** The implementation's environment (src/claims/environment.ts); the HTTP token only to the HTTP server. */
  private env(declared: DeclaredEnv, fill: (s: string) => string = (s) => s): Record<string, string> {
    const tokenEnv = this.transport === 'http' ? this.claim.backend?.http?.tokenEnv : undefined;
    const filled = { env: Object.fromEntries(Object.entries(declared.env).map(([k, v]) => [k, fill(v)])), passEnv: declared.passEnv };
    return implementationEnv(filled, { TMPDIR: this.workspace.dir, ...(tokenEnv && this.token ? { [tokenEnv]: this.token } : {}) });
  }

  private startStdio(): StdioProcess {
    const s = this.claim.backend!.stdio!;
    return StdioProcess.start({ command: s.command, args: s.args, cwd: s.cwd, env: this.env(s), confine: this.workspace.confine([s.cwd]), transcript: this.transcript });
  }

  /** How often the persistent process had ended and was started again (judged by stdio.persistent-exchanges). */
  restarts = 0;

  /**
   * stdio persistent: the process of this check, started on first use. If it has ended, a
   * new one is started (and counted) so that one lifecycle fault does not fail every check.
   */
  async process(): Promise<StdioProcess> {
    if (this.stdio?.exited()) {
      await this.stdio.stop();
      this.stdio = undefined;
      this.restarts++;
      this.transcript.record({ dir: 'note', channel: 'stdio', note: 'the persistent process had exited; a new one is started for the next exchange' });
    }
    if (!this.stdio) {
      this.stdio = this.startStdio();
      this.fresh = true;
    }
    return this.stdio;
  }

  private async httpUrl(): Promise<string> {
    if (this.url) return this.url;
    const h = this.claim.backend!.http!;
    const port = String(await getPort({ host: '127.0.0.1' }));
    const fill = (s: string): string => s.replaceAll('{port}', port);
    const url = fill(h.url);
    // Without a command the server must already run: waiting for its port (bounded) turns an
    // unreachable implementation into a launch failure rather than a string of failed checks.
    this.server = await HttpServerProcess.start({
      ...(h.command ? { command: h.command } : {}), args: h.args.map(fill), cwd: h.cwd,
      env: this.env(h, fill), confine: this.workspace.confine([h.cwd]),
      url, readyTimeoutMs: h.readyTimeoutMs, transcript: this.transcript,
    });
    this.url = url;
    return url;
  }

  /** Send one message that expects a reply; wait at most one deadline. */
  async request(m: Outgoing, opts: { token?: string } = {}): Promise<Reply> {
    const { text, note } = frame(m);
    if (this.transport === 'http') return this.post(text, note, opts.token ?? this.token);
    if (this.lifecycle === 'per_event') return this.perEvent(text, note);
    return this.persistentExchange(async (p) => {
      if (note) this.transcript.record({ dir: 'note', channel: 'stdio', note });
      p.send(`${text}\n`);
      return this.readLine(p);
    });
  }

  /**
   * Run one exchange on the persistent process. If the process ended instead of answering,
   * the exchange is repeated once on a new process (counted in `restarts`): only
   * stdio.persistent-exchanges judges the lifecycle, the other checks judge the answer.
   */
  private async persistentExchange(run: (p: StdioProcess) => Promise<Reply>): Promise<Reply> {
    const p = await this.process();
    const first = await run(p);
    if (first.kind === 'reply' || !(p.exited() || (await p.waitExit(100)) !== 'timeout')) return first;
    this.transcript.record({ dir: 'note', channel: 'stdio', note: 'the process ended without answering; the exchange is repeated once on a new process' });
    return run(await this.process());
  }

  /** Read the next reply of the persistent process (see readReply), with patience. */
  async readLine(p: StdioProcess): Promise<Reply> {
    const includesStart = this.fresh;
    this.fresh = false;
    return this.timed(await readReply(p, this.timeoutMs, this.transcript, this.patience), includesStart);
  }

  /** How long the session waits for a reply before it fails: patience (src/timing.ts), not timeoutMs. */
  get patience(): number {
    return patienceMs(this.timeoutMs);
  }

  /** Replies that came after timeoutMs (each one's latency): a warning on the check. */
  readonly late: { ms: number; includesStart: boolean }[] = [];
  /** The persistent process has not answered yet: its first reply's latency includes its start-up. */
  private fresh = false;

  /**
   * Note a reply after timeoutMs. `includesStart`: the exchange also started the process
   * (per_event, always; persistent, its first exchange), so start-up is part of the latency.
   */
  private timed(reply: Reply, includesStart: boolean): Reply {
    if (reply.kind === 'reply' && reply.latencyMs !== undefined && reply.latencyMs > this.timeoutMs) {
      this.late.push({ ms: reply.latencyMs, includesStart });
      this.transcript.record({
        dir: 'note', channel: this.transport,
        note: `the reply came after ${reply.latencyMs} ms${includesStart ? ' (including the process start-up)' : ''}, over timeoutMs (${this.timeoutMs} ms); judged on its content`,
      });
    }
    return reply;
  }

  /**
   * Send a notification and judge silence positively. persistent stdio: follow it with a
   * valid intercept and require that the next line is that intercept's reply. per_event:
   * no output and an exit. HTTP: whatever came back is returned for the check to judge.
   */
  async notify(m: Outgoing): Promise<{ silent: boolean; undetermined?: true; got?: string; reply?: Reply; detail: string }> {
    const { text, note } = frame(m);
    if (this.transport === 'http') {
      const reply = await this.post(text, note, this.token);
      const body = reply.kind === 'reply' ? reply.raw : '';
      // Silence is judged on the JSON-RPC layer; status and empty body are http.observe-empty's.
      const v = reply.kind === 'reply' ? reply.value : undefined;
      const isResponse = v !== undefined && typeof v === 'object' && v !== null && !Array.isArray(v) && ('result' in v || 'error' in v);
      return isResponse
        ? { silent: false, got: body, reply, detail: `HTTP ${reply.http?.status ?? '?'} with a JSON-RPC response` }
        : { silent: true, reply, detail: `HTTP ${reply.http?.status ?? '?'} with ${body.trim() ? 'a body that is not a JSON-RPC response' : 'an empty body'}` };
    }
    if (this.lifecycle === 'per_event') {
      const reply = await this.perEvent(text, note);
      if (reply.kind === 'reply') return { silent: false, got: reply.raw, reply, detail: 'the process wrote to stdout after a notification' };
      return { silent: true, reply, detail: reply.why };
    }
    const follow = interceptRequest(toolBeforeEvent(HARMLESS_TOOL, newId('follow-up')));
    let used: StdioProcess | undefined;
    const next = await this.persistentExchange(async (p) => {
      used = p;
      if (note) this.transcript.record({ dir: 'note', channel: 'stdio', note });
      p.send(`${text}\n`);
      this.transcript.record({ dir: 'note', channel: 'stdio', note: 'follow-up request: its reply must be the next reply' });
      p.send(`${JSON.stringify(follow)}\n`);
      return this.readLine(p);
    });
    const p = used!;
    if (next.kind === 'none') return { silent: false, undetermined: true, reply: next, detail: `cannot judge silence: the follow-up request got no reply (${next.why})` };
    const v = next.value as { id?: unknown } | undefined;
    if (v?.id === follow.id) return { silent: true, reply: next, detail: 'the next reply was the follow-up reply' };
    // Either a reply to the notification, or the follow-up's reply under a wrong id (a
    // different check's concern): a second reply within timeoutMs tells them apart (no
    // patience: the usual case is that none comes).
    const second = await readReply(p, this.timeoutMs, this.transcript);
    if (second.kind === 'none') return { silent: true, reply: next, detail: 'one reply for the two messages: the follow-up reply (under another id)' };
    return { silent: false, got: next.raw, reply: next, detail: 'two replies came back for a notification and one request' };
  }

  private async post(text: string, note: string | undefined, token: string | undefined): Promise<Reply> {
    const url = await this.httpUrl();
    const out = await postJson(url, text, { timeoutMs: this.patience, transcript: this.transcript, ...(token ? { token } : {}), ...(note ? { note } : {}) });
    if (!out.ok) return { kind: 'none', why: out.error === 'timeout' ? `${noReplyWithin(this.timeoutMs, this.patience)}: ${out.message}` : `${out.error}: ${out.message}` };
    const r = out.reply;
    const http: HttpDetails = { status: r.status, headers: r.headers, contentType: r.headers['content-type'] ?? '' };
    if (r.body.length === 0) return { kind: 'none', why: `HTTP ${r.status} with an empty body`, http };
    const utf8 = isUtf8(r.body);
    return this.timed({ kind: 'reply', raw: r.text, utf8, http, ...parsed(r.text, utf8), latencyMs: Math.round(r.ms) }, false);
  }

  /** per_event: a fresh process gets one message, end of input, and must exit. */
  private async perEvent(text: string, note: string | undefined): Promise<Reply> {
    const p = this.startStdio();
    try {
      if (note) this.transcript.record({ dir: 'note', channel: 'stdio', note });
      p.send(`${text}\n`);
      p.closeStdin();
      return this.timed(await readPerEvent(p, this.timeoutMs, this.transcript, this.patience), true);
    } finally {
      await p.stop();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.stdio?.stop(), this.server?.stop()]);
    this.workspace.dispose();
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
