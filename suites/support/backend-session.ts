// One check's conversation with a backend under test, over the project's transport and
// lifecycle. The runner plays the harness: it sends requests and notifications through a
// driver, waits at most one deadline per exchange, and hands back what came back — raw
// bytes, parsed value and transport details — for the check to judge.
import getPort from 'get-port';
import { HttpServerProcess, postJson } from '../../drivers/http.js';
import { StdioProcess } from '../../drivers/stdio.js';
import { Transcript } from '../../drivers/transcript.js';
import type { Lifecycle, Transport } from '../../src/checks/catalogue.js';
import { HARMLESS_TOOL, interceptRequest, newId, toolBeforeEvent, type DeliberateProbe } from '../../src/checks/probes.js';
import type { ResolvedClaim } from '../../src/claims/load.js';
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

/**
 * Find the first JSON object in stdout lines: a line of its own, or an object spread over
 * consecutive lines. Lines before it are kept as `skipped`. Every check reads replies this
 * leniently, so that a framing fault fails the framing checks and not every other check.
 */
export function findObject(lines: readonly Line[]): { reply: Extract<Reply, { kind: 'reply' }>; used: number } | undefined {
  for (let end = 0; end < lines.length; end++) {
    const line = lines[end]!;
    const single = objectOf(line.text);
    if (single !== undefined) {
      const before = lines.slice(0, end);
      return { reply: { kind: 'reply', raw: line.text, utf8: line.utf8, value: single, framing: { skipped: before.map((l) => l.text), multiLine: false, oversize: before.filter((l) => l.oversize).length } }, used: end + 1 };
    }
    for (let start = 0; start < end; start++) {
      // A pretty-printed message starts at column 0; indented braces open nested objects.
      if (!lines[start]!.text.startsWith('{')) continue;
      const joined = lines.slice(start, end + 1).map((l) => l.text).join('\n');
      const value = objectOf(joined);
      if (value !== undefined) {
        return {
          reply: {
            kind: 'reply', raw: joined, utf8: lines.slice(start, end + 1).every((l) => l.utf8), value,
            framing: { skipped: lines.slice(0, start).map((l) => l.text), multiLine: true, oversize: lines.slice(0, start).filter((l) => l.oversize).length },
          },
          used: end + 1,
        };
      }
    }
  }
  return undefined;
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
    transcript: Transcript = new Transcript(),
  ) {
    this.transcript = transcript;
    if (transport === 'http') {
      const tokenEnv = claim.backend?.http?.tokenEnv;
      this.token = tokenEnv ? process.env[tokenEnv] : undefined;
      if (this.token) this.transcript.addSecret(this.token);
    }
  }

  private env(extra: Record<string, string>): Record<string, string> {
    return { ...(process.env as Record<string, string>), ...extra };
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
      const s = this.claim.backend!.stdio!;
      this.stdio = StdioProcess.start({ command: s.command, args: s.args, cwd: s.cwd, env: this.env(s.env), transcript: this.transcript });
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
      env: this.env(Object.fromEntries(Object.entries(h.env).map(([k, v]) => [k, fill(v)]))),
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

  /** Read the next reply of the persistent process (leniently framed; see findObject). */
  async readLine(p: StdioProcess, timeoutMs = this.timeoutMs): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    const lines: Line[] = [];
    for (;;) {
      const line = await p.nextLine(Math.max(1, deadline - Date.now()));
      if (line.kind === 'line') {
        lines.push({ text: line.text, utf8: line.utf8 });
        const found = findObject(lines);
        if (found) return found.reply;
        continue;
      }
      if (line.kind === 'oversize') {
        lines.push({ text: `(a ${line.bytes}-byte line over the line size bound)`, utf8: true, oversize: true });
        continue;
      }
      const got = lines.length ? `; ${lines.length} stdout line(s) that are not a JSON object: ${lines.map((l) => l.text).join(' | ').slice(0, 300)}` : '';
      const skipped = lines.length ? { skipped: lines.map((l) => l.text), oversize: lines.filter((l) => l.oversize).length } : {};
      if (line.kind === 'eof') {
        const exit = p.exited() ?? (await p.waitExit(500));
        return { kind: 'none', why: `stdout closed${exit && exit !== 'timeout' ? ` (exit code ${exit.code ?? exit.signal})` : ''}${got}`, ...(exit ? { exit } : {}), ...skipped };
      }
      return { kind: 'none', why: `no reply within ${timeoutMs} ms${got}`, ...skipped };
    }
  }

  /**
   * Send a notification and judge silence positively. persistent stdio: follow it with a
   * valid intercept and require that the next line is that intercept's reply. per_event:
   * no output and an exit. HTTP: whatever came back is returned for the check to judge.
   */
  async notify(m: Outgoing): Promise<{ silent: boolean; got?: string; reply?: Reply; detail: string }> {
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
    if (next.kind === 'none') return { silent: false, reply: next, detail: `cannot judge silence: the follow-up request got no reply (${next.why})` };
    const v = next.value as { id?: unknown } | undefined;
    if (v?.id === follow.id) return { silent: true, reply: next, detail: 'the next reply was the follow-up reply' };
    // Either a reply to the notification, or the follow-up's reply under a wrong id (a
    // different check's concern): a second reply within the deadline tells them apart.
    const second = await this.readLine(p);
    if (second.kind === 'none') return { silent: true, reply: next, detail: 'one reply for the two messages: the follow-up reply (under another id)' };
    return { silent: false, got: next.raw, reply: next, detail: 'two replies came back for a notification and one request' };
  }

  private async post(text: string, note: string | undefined, token: string | undefined): Promise<Reply> {
    const url = await this.httpUrl();
    const out = await postJson(url, text, { timeoutMs: this.timeoutMs, transcript: this.transcript, ...(token ? { token } : {}), ...(note ? { note } : {}) });
    if (!out.ok) return { kind: 'none', why: `${out.error}: ${out.message}` };
    const r = out.reply;
    const http: HttpDetails = { status: r.status, headers: r.headers, contentType: r.headers['content-type'] ?? '' };
    if (r.body.length === 0) return { kind: 'none', why: `HTTP ${r.status} with an empty body`, http };
    const utf8 = isUtf8(r.body);
    return { kind: 'reply', raw: r.text, utf8, http, ...parsed(r.text, utf8) };
  }

  /** per_event: a fresh process gets one message, end of input, and must exit. */
  private async perEvent(text: string, note: string | undefined): Promise<Reply> {
    const s = this.claim.backend!.stdio!;
    const p = StdioProcess.start({ command: s.command, args: s.args, cwd: s.cwd, env: this.env(s.env), transcript: this.transcript });
    try {
      if (note) this.transcript.record({ dir: 'note', channel: 'stdio', note });
      p.send(`${text}\n`);
      p.closeStdin();
      const lines: Line[] = [];
      const deadline = Date.now() + this.timeoutMs;
      for (;;) {
        const line = await p.nextLine(Math.max(1, deadline - Date.now()));
        if (line.kind === 'line') lines.push({ text: line.text, utf8: line.utf8 });
        else if (line.kind === 'oversize') lines.push({ text: `(a ${line.bytes}-byte line over the line size bound)`, utf8: true, oversize: true });
        else break;
      }
      const exit = await p.waitExit(Math.max(200, deadline - Date.now()));
      const found = findObject(lines);
      if (!found) {
        const partial = p.pendingBytes();
        if (lines.length) {
          const first = lines[0]!;
          return { kind: 'reply', raw: first.text, utf8: first.utf8, ...parsed(first.text, first.utf8), extraLines: lines.slice(1).map((l) => l.text), exit };
        }
        return { kind: 'none', why: partial ? `${partial} bytes without a final newline` : 'no output', exit };
      }
      return { ...found.reply, extraLines: lines.slice(found.used).map((l) => l.text), exit };
    } finally {
      await p.stop();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.stdio?.stop(), this.server?.stop()]);
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
