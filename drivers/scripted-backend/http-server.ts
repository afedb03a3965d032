// The scripted backend for HTTP: a loopback server in the runner's process. Each hook of
// the registration gets its own path (/hooks/<name>?via=ahp-conformance, so a harness that
// drops the query or rewrites the path is seen); /redirected/<name> is the target of
// scripted redirects (any request there means the harness followed one).
import { Buffer, isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  answerFor,
  CONFIGURATION,
  NO_CONFIGURATION,
  probeOf,
  replyObject,
  type Answer,
  type WireRecord,
} from './script.js';
import type { FrameAck, RunLog } from './collector.js';
import {
  challenge,
  PRM_PATH,
  resourceMetadata,
  verifyBearer,
  type BearerVerdict,
  type Protection,
} from '../auth/resource.js';

const MAX_BODY = 4 * 1024 * 1024;
const REDACTED = '[redacted]';

export const HOOK_QUERY = 'via=ahp-conformance';

/** Hooks whose endpoint is an OAuth-protected resource (drivers/auth/resource.ts). */
export interface HttpProtection {
  hooks: ReadonlySet<string>;
  protection: Protection;
}

export class ScriptedHttpBackend {
  private requests = 0;
  private readonly open = new Set<ServerResponse>();
  private timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    private readonly current: () => RunLog | undefined,
    private readonly token: string | undefined,
    private readonly auth: HttpProtection | undefined,
  ) {}

  /** Start on a free loopback port. The run (wire log and script) is looked up per request: one server serves a check's runs in turn. */
  static async start(
    current: () => RunLog | undefined,
    token?: string,
    auth?: HttpProtection,
  ): Promise<ScriptedHttpBackend> {
    const server = createServer();
    const backend = new ScriptedHttpBackend(server, current, token, auth);
    server.on('request', (req, res) => backend.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return backend;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(hook: string): string {
    return `${this.origin}/hooks/${encodeURIComponent(hook)}?${HOOK_QUERY}`;
  }

  /** The resource identifier of a hook's endpoint (RFC 8707 / RFC 9728): its URL without the query. */
  resource(hook: string): string {
    return `${this.origin}/hooks/${encodeURIComponent(hook)}`;
  }

  redirectUrl(hook: string): string {
    return `${this.origin}/redirected/${encodeURIComponent(hook)}`;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private redact(text: string): { text: string; seen: boolean } {
    if (!this.token || !text.includes(this.token)) return { text, seen: false };
    return { text: text.split(this.token).join(REDACTED), seen: true };
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const n = ++this.requests;
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const chunks: Buffer[] = [];
    let size = 0;
    let read = false;
    req.on('data', (c: Buffer) => {
      if (read) return;
      const room = MAX_BODY - size;
      size += c.length;
      if (room > 0) chunks.push(c.length <= room ? c : c.subarray(0, room));
      if (size <= MAX_BODY) return;
      // Over the bound: stop reading (an endless body would keep us draining), answer with
      // the first MAX_BODY bytes, and close the connection once the answer is out. The time
      // a request may take is bounded by the session, which closes this server.
      read = true;
      req.pause();
      res.setHeader('connection', 'close');
      res.once('finish', () => req.socket.destroy());
      this.answer(n, req, res, Buffer.concat(chunks), true);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (read) return;
      read = true;
      this.answer(n, req, res, Buffer.concat(chunks), false);
    });
  }

  private answer(n: number, req: IncomingMessage, res: ServerResponse, body: Buffer, tooBig: boolean): void {
    const url = new URL(req.url ?? '/', this.origin);
    const m = /^\/(hooks|redirected)\/([^/]+)$/.exec(url.pathname);
    const hook = m ? decodeURIComponent(m[2]!) : '(unknown path)';
    const auths: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      if (req.rawHeaders[i]!.toLowerCase() === 'authorization') auths.push(req.rawHeaders[i + 1]!);
    if (this.auth && url.pathname.startsWith(PRM_PATH)) return this.metadata(n, req, res, url.pathname);
    // A protected hook judges the credential first: nothing of the event is acted on without it.
    if (this.auth && m?.[1] === 'hooks' && this.auth.hooks.has(hook)) {
      void verifyBearer(auths, this.resource(hook), this.auth.protection).then(
        (v) => this.answerAs(n, req, res, body, tooBig, url, m, hook, auths, v),
        () => this.answerAs(n, req, res, body, tooBig, url, m, hook, auths, { kind: 'invalid', why: 'not verifiable' }),
      );
      return;
    }
    this.answerAs(n, req, res, body, tooBig, url, m, hook, auths, undefined);
  }

  /** RFC 9728 metadata of a protected hook (path-specific location only), recorded. */
  private metadata(n: number, req: IncomingMessage, res: ServerResponse, path: string): void {
    const hm = /^\/hooks\/([^/]+)$/.exec(path.slice(PRM_PATH.length));
    const hook = hm ? decodeURIComponent(hm[1]!) : undefined;
    const known = hook !== undefined && this.auth!.hooks.has(hook) && req.method === 'GET';
    this.current()?.append({
      hook: hook ?? '(unknown path)',
      transport: 'http',
      pid: n,
      kind: 'metadata',
      http: { method: req.method, url: path, status: known ? 200 : 404 },
    });
    if (!known) return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(resourceMetadata(this.resource(hook), this.auth!.protection)));
  }

  private answerAs(
    n: number,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    tooBig: boolean,
    url: URL,
    m: RegExpExecArray | null,
    hook: string,
    auths: string[],
    bearer: BearerVerdict | undefined,
  ): void {
    const authorization = {
      count: auths.length,
      matches:
        auths.length === 1 &&
        (bearer ? bearer.kind === 'issued' : this.token !== undefined && auths[0] === `Bearer ${this.token}`),
      ...(bearer ? { bearer } : {}),
    };
    const raw = body.toString('utf8');
    const { text, seen } = this.redact(raw);
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      message = undefined;
    }
    if (seen)
      message = JSON.parse(
        JSON.stringify(message ?? null)
          .split(this.token!)
          .join(REDACTED),
      );
    const msg =
      message && typeof message === 'object' && !Array.isArray(message)
        ? (message as Record<string, unknown>)
        : undefined;
    const method = typeof msg?.method === 'string' ? msg.method : undefined;
    const log = this.current();
    if (!log) {
      res.writeHead(503).end();
      return;
    }
    const script = log.script;
    const step = probeOf(msg);
    const record = (r: Omit<WireRecord, 't' | 'hook' | 'transport' | 'pid'>): FrameAck =>
      log.append({ hook, transport: 'http', pid: n, ...r });
    const { ordinal, attempt } = record({
      kind: 'frame',
      text,
      lines: 1,
      message,
      ...(method ? { method } : {}),
      ...(step !== undefined ? { step } : {}),
      ...(isUtf8(body) ? {} : { base64: body.toString('base64') }),
      http: {
        method: req.method,
        url: `${url.pathname}${url.search}`,
        contentType: req.headers['content-type'],
        authorization,
      },
      ...(seen ? { secretSeen: true } : {}),
      ...(m?.[1] === 'redirected' ? { note: 'request to the redirect target' } : {}),
      ...(tooBig ? { note: `body over ${MAX_BODY} bytes, truncated` } : {}),
    });

    const hookScript = script.hooks[hook] ?? {};
    const isConfiguration = method === CONFIGURATION && msg !== undefined && 'id' in msg;
    const isRequest = (method === 'hooks/intercept' || isConfiguration) && msg !== undefined && 'id' in msg;
    let a: Answer;
    let wwwAuthenticate: string | undefined;
    if (bearer && bearer.kind !== 'issued') {
      // RFC 6750 3.1: no credential gets a bare challenge, a bad one invalid_token / insufficient_scope.
      const error =
        bearer.kind === 'none'
          ? undefined
          : bearer.why?.startsWith('insufficient scope')
            ? 'insufficient_scope'
            : 'invalid_token';
      wwwAuthenticate = challenge(this.resource(hook), this.auth!.protection, error);
      a = { none: true, http: { status: 401 } };
    } else if (!m) a = { none: true, http: { status: 404 } };
    else if (m[1] === 'redirected')
      a = isRequest ? { effects: [{ type: 'deny', reason: 'reached through a redirect' }] } : { none: true };
    else if (isConfiguration) a = answerFor(hookScript.configuration, ordinal!, NO_CONFIGURATION);
    else if (isRequest) {
      const byStep = step !== undefined ? hookScript.byStep?.[step] : undefined;
      a = byStep ? answerFor(byStep, attempt!, {}) : answerFor(hookScript.intercept, ordinal!, {});
    } else if (method === 'hooks/observe') {
      const byStep = step !== undefined ? hookScript.observeByStep?.[step] : undefined;
      a = byStep
        ? answerFor(byStep, attempt!, { none: true })
        : answerFor(hookScript.observe, ordinal!, { none: true });
    } else a = { none: true, http: { status: 400 } };

    const send = (): void => {
      if (a.probeFile) record({ kind: 'probe', path: a.probeFile, exists: existsSyncSafe(a.probeFile) });
      const status = a.http?.status ?? (isRequest && !a.none ? 200 : 202);
      const out = a.none ? '' : (a.raw ?? JSON.stringify(replyObject(a, msg ?? {})));
      const headers: Record<string, string> = {};
      if (out) headers['content-type'] = a.http?.contentType ?? 'application/json';
      else if (a.http?.contentType) headers['content-type'] = a.http.contentType;
      if (wwwAuthenticate) headers['www-authenticate'] = wwwAuthenticate;
      if (a.http?.location)
        headers.location = new URL(
          a.http.location.replace('{redirect}', `/redirected/${encodeURIComponent(hook)}`),
          this.origin,
        ).href;
      record({
        kind: 'reply',
        text: out,
        ...(method ? { method } : {}),
        ...(step !== undefined ? { step } : {}),
        http: { status },
        ...(a.http?.location ? { note: `Location: ${headers.location}` } : {}),
        ...(wwwAuthenticate ? { note: `WWW-Authenticate: ${wwwAuthenticate}` } : {}),
      });
      if (res.destroyed) return;
      try {
        res.writeHead(status, headers).end(out);
      } catch {
        // the harness went away (deadline passed): a late reply nobody reads
      }
    };
    if (a.delayMs) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        send();
      }, a.delayMs);
      this.timers.add(t);
    } else send();
  }
}

function existsSyncSafe(path: string): boolean {
  try {
    return existsSync(path);
  } catch {
    return false;
  }
}
