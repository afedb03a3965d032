// HTTP binding: one JSON-RPC message per POST to the configured path.
//   reply          -> 200, Content-Type: application/json, the reply as the body
//   no reply       -> 204, no body (notifications)
//   other path 404, other method 405, body over 1 MiB 413, missing/wrong bearer 401.
//   /uploads: the content-upload receiver (upload.ts).
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { respond, type HandlerContext } from './handler.js';
import { serveUpload, UPLOAD_PATH } from './upload.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** The bearer token to require, or undefined for no authentication. */
  readonly token?: string | undefined;
  readonly ctx: HandlerContext;
  /** Called once per request (--trace, a bench instrument). */
  readonly onExchange?: (() => void) | undefined;
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text + '\n');
}

function authorized(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const got = Buffer.from(header, 'utf8');
  const want = Buffer.from(`Bearer ${token}`, 'utf8');
  return got.length === want.length && timingSafeEqual(got, want);
}

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
  return createServer((req, res) => {
    void serve(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    opts.onExchange?.();
    const url = new URL(req.url ?? '/', 'http://backend.invalid');
    if (url.pathname === UPLOAD_PATH && opts.path !== UPLOAD_PATH) return serveUpload(req, res, ctx.fault);
    if (url.pathname !== opts.path) {
      req.resume();
      return plain(res, 404, 'not found');
    }
    if (req.method !== 'POST') {
      req.resume();
      return plain(res, 405, 'method not allowed', { Allow: 'POST' });
    }
    const authorization = req.headers.authorization;
    if (opts.token !== undefined && !authorized(authorization, opts.token)) {
      req.resume();
      return plain(res, 401, 'unauthorized', { 'WWW-Authenticate': 'Bearer' });
    }
    const body = await readBody(req);
    if (body === 'too-large') {
      // Stop reading the rest: answer and close the connection.
      return plain(res, 413, 'request body too large', { Connection: 'close' });
    }
    const reply = respond(body, { ...ctx, authorization });
    if (reply === null) {
      if (ctx.fault === 'observe-200-body') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{}');
        return;
      }
      res.writeHead(204);
      res.end();
      return;
    }
    const text = JSON.stringify(reply);
    const status = ctx.fault === 'error-status-400' && 'error' in reply ? 400 : 200;
    res.writeHead(status, {
      'Content-Type': ctx.fault === 'text-content-type' ? 'text/plain' : 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
    });
    res.end(text);
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
