// HTTP binding: one JSON-RPC message per POST to the configured path.
//   reply          -> 200, Content-Type: application/json, the reply as the body
//   no reply       -> 204, no body (notifications)
//   other path 404, other method 405, body over 1 MiB 413, missing/wrong bearer 401 with a
//   Bearer challenge, a token in two places (two headers, the query) 400.
//   --auth oauth (oauth.ts): the 401 challenge names the RFC 9728 metadata, served by GET at
//   /.well-known/oauth-protected-resource<path>; a token lacking a required scope gets 403.
//   /uploads: the content-upload receiver (upload.ts), with its own bearer token when given
//   (--upload-token-env): the event endpoint's credentials never open it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FaultProbe } from '../fault-probe.js';
import { authorized } from './bearer.js';
import type { FaultMode } from './faults.js';
import { isHeld, respond, type HandlerContext } from './handler.js';
import { ReplyHold } from './hold.js';
import type { OAuthProtection } from './oauth.js';
import { serveUpload, UPLOAD_PATH } from './upload.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** The bearer token to require, or undefined for no authentication. */
  readonly token?: string | undefined;
  /** OAuth protection instead of one bearer token (--auth oauth). */
  readonly oauth?: OAuthProtection | undefined;
  /** The upload receiver's own bearer token, or undefined for an open receiver. */
  readonly uploadToken?: string | undefined;
  readonly ctx: HandlerContext;
  /** Called once per request (--trace, a bench instrument). */
  readonly onExchange?: (() => void) | undefined;
  /** slow-reverse-refusals: how long a refusal is held (hold.ts). */
  readonly holdMs?: number | undefined;
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text + '\n');
}

type Refusal = { status: 400 | 401 | 403; challenge: string; text: string };

/** How the endpoint is protected: one bearer token, or OAuth access tokens for `resource`. */
type Guard = { kind: 'bearer'; token: string } | { kind: 'oauth'; oauth: OAuthProtection; resource: string };

/** The Bearer challenge's parameters: the realm, or (OAuth) where the metadata is (RFC 9728 5.1). */
function challengeOf(guard: Guard, fault: FaultProbe<FaultMode>, extra: string[] = []): string {
  const where =
    guard.kind === 'bearer' || fault.is('oauth-no-metadata')
      ? `realm="${REALM}"`
      : `resource_metadata="${metadataUrl(guard.resource, guard.oauth)}"`;
  return `Bearer ${[where, ...extra].join(', ')}`;
}

function metadataUrl(resource: string, oauth: OAuthProtection): string {
  const u = new URL(resource);
  return `${u.origin}${oauth.metadataPath(u.pathname)}`;
}

/**
 * Why a request is refused before its body is read, or undefined when it carries the token
 * properly: in one Authorization header and nowhere else (RFC 6750 sections 2 and 3).
 * Node keeps only the first of repeated Authorization headers, so they are counted raw.
 */
async function refusal(
  req: IncomingMessage,
  url: URL,
  guard: Guard,
  fault: FaultProbe<FaultMode>,
): Promise<Refusal | undefined> {
  const lines = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'authorization');
  if (lines.length > 1 || url.searchParams.has('access_token'))
    return { status: 400, challenge: 'Bearer error="invalid_request"', text: 'credentials in more than one place' };
  const header = req.headers.authorization;
  if (header === undefined)
    return fault.is('auth-anonymous')
      ? undefined
      : { status: 401, challenge: challengeOf(guard, fault), text: 'unauthorized' };
  const status = await tokenRefusal(header, guard, fault);
  if (status === undefined) return undefined;
  // The auth-any-token fault lets any one Bearer token through that would be refused here.
  if (/^Bearer \S+$/.test(header) && fault.is('auth-any-token')) return undefined;
  if (status === 403 && guard.kind === 'oauth')
    return {
      status: 403,
      challenge: challengeOf(guard, fault, ['error="insufficient_scope"', `scope="${guard.oauth.scopes.join(' ')}"`]),
      text: 'insufficient scope',
    };
  return {
    status: 401,
    challenge: challengeOf(guard, fault, ['error="invalid_token"']),
    text: fault.is('auth-echo-token') ? `unauthorized: ${header} is not a valid credential` : 'unauthorized',
  };
}

/** Whether the one Authorization header's token is refused: 401 (invalid), 403 (OAuth: a scope lacking) or undefined. */
async function tokenRefusal(
  header: string,
  guard: Guard,
  fault: FaultProbe<FaultMode>,
): Promise<401 | 403 | undefined> {
  if (guard.kind === 'bearer') return authorized(header, guard.token) ? undefined : 401;
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header);
  if (!m) return 401;
  return (await guard.oauth.verify(m[1]!, guard.resource, fault))?.status;
}

const REALM = 'ahp-reference-backend';

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function createBackendServer(opts: HttpOptions): Server {
  const { ctx } = opts;
  // One for the server: refusals held across concurrent requests go out newest first.
  const hold = new ReplyHold<() => void>((send) => send());
  return createServer((req, res) => {
    void serve(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.destroy();
    });
  });

  /**
   * The endpoint's protection. The OAuth resource identifier is the URL clients use: this
   * host and the port the request came in on, the endpoint path.
   */
  function guardOf(req: IncomingMessage): Guard | undefined {
    if (opts.oauth) {
      const port = req.socket.localPort ?? opts.port;
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      return { kind: 'oauth', oauth: opts.oauth, resource: `http://${host}:${port}${opts.path}` };
    }
    return opts.token !== undefined ? { kind: 'bearer', token: opts.token } : undefined;
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    opts.onExchange?.();
    const url = new URL(req.url ?? '/', 'http://backend.invalid');
    const guard = guardOf(req);
    if (guard?.kind === 'oauth' && url.pathname === guard.oauth.metadataPath(opts.path)) {
      req.resume();
      // Public, like the challenge that points here (RFC 9728 3); absent under the fault.
      if (ctx.fault.is('oauth-no-metadata')) return plain(res, 404, 'not found');
      if (req.method !== 'GET') return plain(res, 405, 'method not allowed', { Allow: 'GET' });
      const text = JSON.stringify(guard.oauth.metadata(guard.resource));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
      return void res.end(text);
    }
    if (url.pathname === UPLOAD_PATH && opts.path !== UPLOAD_PATH)
      return serveUpload(req, res, ctx.fault, {
        uploadToken: opts.uploadToken,
        eventToken: opts.token,
      });
    if (url.pathname !== opts.path) {
      req.resume();
      return plain(res, 404, 'not found');
    }
    if (req.method !== 'POST') {
      req.resume();
      return plain(res, 405, 'method not allowed', { Allow: 'POST' });
    }
    const authorization = req.headers.authorization;
    const refused = guard ? await refusal(req, url, guard, ctx.fault) : undefined;
    if (refused) {
      req.resume();
      return plain(
        res,
        refused.status,
        refused.text,
        ctx.fault.is('auth-no-challenge') ? {} : { 'WWW-Authenticate': refused.challenge },
      );
    }
    const body = await readBody(req);
    if (body === 'too-large') {
      // Stop reading the rest: answer and close the connection.
      return plain(res, 413, 'request body too large', { Connection: 'close' });
    }
    const reply = respond(body, { ...ctx, authorization });
    if (reply === null) {
      if (ctx.fault.is('observe-200-body')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{}');
        return;
      }
      res.writeHead(204);
      res.end();
      return;
    }
    const send = (): void => {
      const text = JSON.stringify(reply);
      const status = 'error' in reply && ctx.fault.is('error-status-400') ? 400 : 200;
      res.writeHead(status, {
        'Content-Type': ctx.fault.is('text-content-type') ? 'text/plain' : 'application/json',
        'Content-Length': String(Buffer.byteLength(text)),
      });
      res.end(text);
    };
    // The server is up before the runner's first request, so a deadline starts on arrival.
    if (isHeld(reply, ctx)) return hold.add(send, Date.now() + (opts.holdMs ?? 0));
    send();
  }
}

/** Start listening; resolves with the bound port. */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
    });
  });
}
