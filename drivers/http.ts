// HTTP transport driver: JSON-RPC messages POSTed to an implementation's endpoint, and
// the lifecycle of a locally launched HTTP server.
//
// Safety rules: plain http only to loopback (tokens must never cross a network in clear),
// never follow redirects (a 3xx is a finding, and following could leak the token), bound
// the time and the response size, and keep no sockets alive after a request.
import type { ChildProcess } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { describeSpawnError, explainSpawnFailure, killTree, LaunchError, spawnTracked } from './processes.js';
import { ByteTail, lastLine } from './tail.js';
import { checkUrl } from './url-policy.js';
import type { Transcript } from './transcript.js';
import type { Confinement } from './containment.js';

export { LaunchError } from './processes.js';
export { checkUrl, isLoopbackHost } from './url-policy.js';

export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** body decoded as UTF-8 (lossy) */
  text: string;
  /** time from sending the request to the end of the body */
  ms: number;
  /** set when the body exceeded the 4 MiB bound and the rest was not read */
  truncated?: true;
}

export type HttpOutcome =
  | { ok: true; reply: HttpReply }
  | {
      ok: false;
      /** incomplete: the connection ended in the middle of the body */
      error: 'timeout' | 'connect' | 'refused-url' | 'incomplete' | 'other';
      message: string;
      /** what had come when the reply stopped after its headers (timeout or incomplete); the body bounded like a reply's */
      partial?: { status: number; headers: Record<string, string>; body: Uint8Array };
    };

export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

// One dispatcher for all requests: pipelining 0 disables keep-alive (undici then sends
// 'connection: close' and destroys the socket after the response), so nothing lingers.
let agent: Agent | undefined;
function dispatcher(): Agent {
  agent ??= new Agent({ pipelining: 0, keepAliveTimeout: 1, keepAliveMaxTimeout: 1, connections: 64 });
  return agent;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function errCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return undefined;
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

const round1 = (ms: number) => Math.round(ms * 10) / 10;

/**
 * POST `body` to `url` exactly once. Never throws: failures come back as an outcome.
 * The request and the reply are recorded in the transcript (the token redacted).
 */
export async function postJson(
  url: string,
  body: string | Uint8Array,
  opts: {
    timeoutMs: number;
    token?: string;
    /**
     * The Authorization header lines to send instead of the token's one, as given: none, or
     * several (authentication checks probe a backend with missing or duplicated credentials).
     */
    authorization?: readonly string[];
    transcript: Transcript;
    contentType?: string;
    note?: string;
    /** GET sends no body (getUrl). */
    method?: 'POST' | 'GET';
    /** Aborts the exchange early, as a timeout whose message is the abort's reason (a fence was answered). */
    giveUp?: AbortSignal;
  },
): Promise<HttpOutcome> {
  const { transcript } = opts;
  const method = opts.method ?? 'POST';
  const bodyBuf =
    typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const checked = checkUrl(url);
  if (!checked.ok) {
    transcript.record({
      dir: 'note',
      channel: 'http',
      http: { method, url },
      note: `not sent: ${checked.message}`,
    });
    return { ok: false, error: 'refused-url', message: checked.message };
  }
  if (opts.token) transcript.addSecret(opts.token);
  const parsed = new URL(url);
  if (parsed.password) transcript.addSecret(decodeURIComponent(parsed.password));

  const headers: Record<string, string | string[]> =
    method === 'GET' ? {} : { 'content-type': opts.contentType ?? 'application/json' };
  if (opts.authorization !== undefined) {
    // undici sends one header line per array member.
    if (opts.authorization.length > 0) headers.authorization = [...opts.authorization];
  } else if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  transcript.record({
    dir: 'send',
    channel: 'http',
    bytes: bodyBuf,
    // what goes on the wire besides undici's own host header
    http: {
      method,
      url,
      headers: {
        ...flattenHeaders(headers),
        ...(method === 'GET' ? {} : { 'content-length': String(bodyBuf.length) }),
        connection: 'close',
      },
    },
    ...(opts.note !== undefined ? { note: opts.note } : {}),
  });

  // One budget for connecting, the headers and the whole body: undici's headersTimeout and
  // bodyTimeout are idle timeouts (a trickle resets them), so the deadline is an abort.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort(new Error(`timeout after ${opts.timeoutMs} ms`));
    },
    Math.max(0, opts.timeoutMs),
  );
  let gaveUp: string | undefined;
  const onGiveUp = (): void => {
    gaveUp = String(opts.giveUp?.reason ?? 'given up');
    controller.abort(new Error(gaveUp));
  };
  if (opts.giveUp?.aborted) onGiveUp();
  else opts.giveUp?.addEventListener('abort', onGiveUp, { once: true });
  const started = performance.now();
  let head: { status: number; headers: Record<string, string> } | undefined;
  const chunks: Buffer[] = [];
  let kept = 0;
  let received = 0;
  try {
    // undici's request() does not decode Content-Encoding: a compressed body stays as sent
    // (and bounded like any other), so a decompression bomb costs nothing.
    const res = await request(url, {
      method,
      headers,
      ...(method === 'GET' ? {} : { body: bodyBuf }),
      dispatcher: dispatcher(),
      signal: controller.signal,
      reset: true,
      headersTimeout: Math.max(1, opts.timeoutMs),
      bodyTimeout: Math.max(1, opts.timeoutMs),
    });
    head = { status: res.statusCode, headers: flattenHeaders(res.headers) };
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      received += chunk.length;
      const room = MAX_RESPONSE_BYTES - kept;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.max(0, room);
        truncated = true;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
    // Over the bound: destroy the socket (pipelining 0, reset) rather than drain the rest.
    if (truncated) res.body.destroy();
    const ms = round1(performance.now() - started);
    const bytes = Buffer.concat(chunks, kept);
    const reply: HttpReply = {
      status: res.statusCode,
      headers: head.headers,
      body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      text: bytes.toString('utf8'),
      ms,
    };
    if (truncated) reply.truncated = true;
    const notes: string[] = [`${ms} ms`];
    if (truncated)
      notes.push(`response body exceeds ${MAX_RESPONSE_BYTES} bytes: first ${kept} bytes kept, the rest not read`);
    if (res.statusCode >= 300 && res.statusCode < 400) notes.push('redirect not followed');
    transcript.record({
      dir: 'recv',
      channel: 'http',
      bytes,
      http: { url, status: res.statusCode, headers: head.headers },
      note: notes.join('; '),
    });
    return { ok: true, reply };
  } catch (err) {
    const code = errCode(err);
    let outcome: HttpOutcome;
    // After the headers: how much of the body came, of how much announced.
    const announced = head?.headers['content-length'];
    const progress = head
      ? `HTTP ${head.status} and ${received}${announced !== undefined ? ` of ${announced}` : ''} body bytes`
      : '';
    if (gaveUp !== undefined) {
      outcome = { ok: false, error: 'timeout', message: `${gaveUp}${head ? ` (got ${progress})` : ''}` };
    } else if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      outcome = {
        ok: false,
        error: 'timeout',
        message: `no complete reply within ${opts.timeoutMs} ms${head ? ` (got ${progress})` : ''}`,
      };
    } else if (code !== undefined && CONNECT_CODES.has(code)) {
      const m = (err as Error)?.message ?? '';
      outcome = {
        ok: false,
        error: 'connect',
        message: oneLine(`cannot connect to ${parsed.host}: ${m.includes(code) ? m : `${code} ${m}`}`),
      };
    } else if (head) {
      outcome = {
        ok: false,
        error: 'incomplete',
        message: oneLine(
          `the reply ended early: the connection closed after ${progress} (${code ?? (err as Error)?.name ?? 'error'}: ${(err as Error)?.message ?? String(err)})`,
        ),
      };
    } else {
      outcome = {
        ok: false,
        error: 'other',
        message: oneLine(`${code ?? (err as Error)?.name ?? 'error'}: ${(err as Error)?.message ?? String(err)}`),
      };
    }
    if (head) {
      const bytes = Buffer.concat(chunks, kept);
      outcome.partial = {
        status: head.status,
        headers: head.headers,
        body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      };
      transcript.record({
        dir: 'recv',
        channel: 'http',
        bytes,
        http: { url, status: head.status, headers: head.headers },
        note: `${round1(performance.now() - started)} ms; incomplete body: ${received} bytes received`,
      });
    }
    transcript.record({ dir: 'note', channel: 'http', http: { url }, note: `${outcome.error}: ${outcome.message}` });
    return outcome;
  } finally {
    clearTimeout(timer);
    opts.giveUp?.removeEventListener('abort', onGiveUp);
  }
}

/** GET `url` once, without credentials unless given; like postJson otherwise (bounded, recorded, never throws). */
export function getUrl(
  url: string,
  opts: { timeoutMs: number; transcript: Transcript; note?: string },
): Promise<HttpOutcome> {
  return postJson(url, '', { ...opts, method: 'GET' });
}

export interface HttpServerLaunch {
  command?: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  url: string;
  /** Contain the server (drivers/containment.ts); absent: a plain process group. */
  confine?: Confinement;
  /** default 10000 */
  readyTimeoutMs?: number;
  transcript: Transcript;
}

/** Does host:port accept a TCP connection within timeoutMs? */
function tryConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const socket = netConnect({ host, port });
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), Math.max(1, timeoutMs));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class HttpServerProcess {
  private child: ChildProcess | undefined;
  private readonly transcript: Transcript;
  private readonly stderrBuf = new ByteTail(64 * 1024);
  private readonly stdoutBuf = new ByteTail(64 * 1024);
  private exitInfo: { code: number | null; signal: string | null } | undefined;
  private spawnError: LaunchError | undefined;
  private stopping: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  private constructor(l: HttpServerLaunch) {
    this.transcript = l.transcript;
  }

  /**
   * Launch the server (when `command` is given) and wait until the host:port of `url`
   * accepts TCP connections. Throws LaunchError (one line) if it exits first, cannot be
   * started, the port is already taken by something else, or the deadline passes.
   */
  static async start(l: HttpServerLaunch): Promise<HttpServerProcess> {
    const s = new HttpServerProcess(l);
    const checked = checkUrl(l.url);
    if (!checked.ok) throw new LaunchError(checked.message);
    const u = new URL(l.url);
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    const where = `${u.hostname}:${port}`;
    const timeoutMs = l.readyTimeoutMs ?? 10_000;
    const started = Date.now();
    const deadline = started + timeoutMs;

    if (l.command !== undefined) {
      // Something already listening would be mistaken for our server: refuse.
      if (await tryConnect(host, port, 500)) {
        throw new LaunchError(
          `port already in use: something is accepting connections on ${where} before the server was started`,
        );
      }
      s.launch(l);
    }

    try {
      for (;;) {
        if (s.spawnError) throw s.spawnError;
        if (s.exitInfo) throw await s.exitedEarly(where);
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          const tail = lastLine(s.stderrTail());
          throw new LaunchError(
            l.command !== undefined
              ? `server did not accept connections on ${where} within ${timeoutMs} ms${tail ? `; last stderr: ${tail}` : ''}`
              : `nothing accepted connections on ${where} within ${timeoutMs} ms`,
          );
        }
        if (await tryConnect(host, port, Math.min(remaining, 1000))) {
          if (s.spawnError) throw s.spawnError;
          if (s.exitInfo) throw await s.exitedEarly(where);
          s.transcript.record({
            dir: 'note',
            channel: 'http',
            note: `ready: ${where} accepts connections after ${Date.now() - started} ms`,
          });
          return s;
        }
        await new Promise<void>((resolve) => {
          s.wake = resolve;
          void sleep(50).then(resolve);
        });
        s.wake = undefined;
      }
    } catch (e) {
      await s.stop();
      if (e instanceof LaunchError) s.transcript.record({ dir: 'note', channel: 'http', note: e.message });
      throw e;
    }
  }

  private launch(l: HttpServerLaunch): void {
    const command = l.command!;
    const child = spawnTracked(command, l.args, {
      cwd: l.cwd,
      env: l.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(l.confine ? { confine: l.confine } : {}),
    });
    child.on('error', (err) => {
      const { message, code } = describeSpawnError(command, err);
      this.spawnError ??= new LaunchError(message, code);
      this.wake?.();
    });
    if (child.pid === undefined) {
      const { message, code } = explainSpawnFailure(command, l.cwd, l.env);
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      throw new LaunchError(message, code);
    }
    this.child = child;
    // stdin stays open (and unused): some servers shut down when stdin closes.
    child.stdin!.on('error', () => {});
    child.stdout!.on('data', (chunk: Buffer) => {
      this.stdoutBuf.push(chunk);
      this.transcript.record({ dir: 'recv', channel: 'http', bytes: chunk, note: 'server stdout' });
    });
    child.stdout!.on('error', () => {});
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrBuf.push(chunk);
      this.transcript.record({ dir: 'stderr', channel: 'http', bytes: chunk });
    });
    child.stderr!.on('error', () => {});
    child.once('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      this.transcript.record({
        dir: 'exit',
        channel: 'http',
        note: signal ? `server killed by signal ${signal}` : `server exit code ${code}`,
      });
      this.wake?.();
    });
  }

  private async exitedEarly(where: string): Promise<LaunchError> {
    // let the last stderr bytes arrive
    const stderr = this.child?.stderr;
    if (stderr && !stderr.readableEnded && !stderr.destroyed) {
      await Promise.race([new Promise((r) => stderr.once('close', r)), sleep(300)]);
    }
    const e = this.exitInfo!;
    const how = e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`;
    const tail = lastLine(this.stderrTail());
    return new LaunchError(
      `server ${how} before accepting connections on ${where}${tail ? `; last stderr: ${tail}` : ''}`,
    );
  }

  /** Set while the server process runs (undefined without a command). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  exited(): { code: number | null; signal: string | null } | undefined {
    return this.exitInfo;
  }

  stderrTail(): string {
    return this.stderrBuf.text();
  }

  stdoutTail(): string {
    return this.stdoutBuf.text();
  }

  /** Kill the server's whole process tree; idempotent, never throws. */
  stop(): Promise<void> {
    if (!this.stopping) {
      const child = this.child;
      this.stopping = child
        ? killTree(child).then(() => {
            for (const s of [child.stdin, child.stdout, child.stderr]) {
              try {
                s?.destroy();
              } catch {
                // ignore
              }
            }
          })
        : Promise.resolve();
    }
    return this.stopping;
  }
}
