// The runner's content-upload receiver (harness checks of the binary upload binding): a
// loopback HTTP server that records every raw request as it came (method, path and query,
// headers, transfer encoding, the body's bytes, size and SHA-256, times) and answers each
// with a scripted status, so a check can judge the sender's framing and what it did with
// a receipt. /redirected/... is the target of the scripted redirect: any request there
// means the sender followed it.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nowMs } from './scripted-backend/script.js';

/**
 * What the receiver answers a request with:
 *   receipt     201 application/json {ref, size, sha256} of the bytes it got (the only confirmation)
 *   accepted    202, empty          no-content  204, empty
 *   mismatch    201 with a receipt whose size and sha256 are not those of the bytes
 *   redirect    307 to /redirected/<n> (which would answer a correct receipt)
 */
export type UploadAnswer = 'receipt' | 'accepted' | 'no-content' | 'mismatch' | 'redirect';
/** Not an upload (another method or path, e.g. a discovery request): 404, and no answer of the script is used. */
type Unscripted = 'cap' | 'unknown';
export const UPLOAD_ANSWERS: readonly UploadAnswer[] = ['receipt', 'accepted', 'no-content', 'mismatch', 'redirect'];

export const REDIRECTED_PREFIX = '/redirected/';
const UPLOADS_PREFIX = '/uploads/';
/** Bound on the body a request may hold (the checks' files are small); more is cut and answered 413. */
export const UPLOAD_BODY_CAP = 1024 * 1024;

export interface UploadRecord {
  /** ms since the epoch: the request's headers arrived, and its answer was sent. */
  t: number;
  answeredAt?: number;
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  /** Header names lowercased; repeated headers joined with ", " (Node's view), counts kept apart. */
  headers: Record<string, string>;
  /** How many Authorization headers the request had. */
  authorizationCount: number;
  transferEncoding?: string;
  contentLength?: string;
  contentType?: string;
  sha256Header?: string;
  /** What the body really was. */
  size: number;
  sha256: string;
  /** The body was longer than the cap (only its start was hashed). */
  truncated: boolean;
  /** Whether the secret the receiver was given appears in any header value or in the body. */
  secretSeen: boolean;
  /** The request reached the redirect target. */
  redirected: boolean;
  answer: UploadAnswer | Unscripted;
  status: number;
  /** The JSON body of a 201, as sent. */
  receipt?: { ref: string; size: number; sha256: string };
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export class UploadReceiver {
  readonly records: UploadRecord[] = [];
  private count = 0;
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    /** Answers by arrival order at the configured endpoint; the last one repeats. */
    private readonly answers: readonly UploadAnswer[],
    private readonly secrets: readonly string[],
  ) {}

  static async start(opts: { answers: readonly UploadAnswer[]; secrets?: readonly string[] }): Promise<UploadReceiver> {
    if (!opts.answers.length) throw new Error('an upload receiver needs at least one answer');
    const server = createServer();
    const receiver = new UploadReceiver(
      server,
      opts.answers,
      (opts.secrets ?? []).filter((s) => s.length > 0),
    );
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return receiver;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The endpoint for a subscription's `upload`: a path and query a sender must keep exactly. */
  endpoint(name: string): string {
    return `${this.origin}${this.endpointPath(name)}`;
  }

  endpointPath(name: string): string {
    return `${UPLOADS_PREFIX}${encodeURIComponent(name)}?via=ahp-conformance`;
  }

  /** POSTs anywhere but the redirect target: what the sender sent as uploads. */
  get uploads(): UploadRecord[] {
    return this.records.filter((r) => !r.redirected && r.method === 'POST');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const t = nowMs();
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const hash = createHash('sha256');
    req.on('data', (c: Buffer) => {
      size += c.length;
      hash.update(c);
      const kept = chunks.reduce((k, x) => k + x.length, 0);
      if (kept < UPLOAD_BODY_CAP) chunks.push(c.subarray(0, UPLOAD_BODY_CAP - kept));
      else truncated = true;
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      let authorizationCount = 0;
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (req.rawHeaders[i]!.toLowerCase() === 'authorization') authorizationCount++;
      const text = `${Object.values(headers).join('\n')}\n${body.toString('latin1')}`;
      const url = req.url ?? '';
      const redirected = url.startsWith(REDIRECTED_PREFIX);
      const digest = hash.digest('hex');
      const upload = req.method === 'POST' && url.startsWith(UPLOADS_PREFIX);
      const answer: UploadAnswer | Unscripted = truncated
        ? 'cap'
        : redirected
          ? 'receipt'
          : upload
            ? this.answers[Math.min(this.count++, this.answers.length - 1)]!
            : 'unknown';
      const record: UploadRecord = {
        t,
        method: req.method ?? '',
        url,
        headers,
        authorizationCount,
        ...(headers['transfer-encoding'] !== undefined ? { transferEncoding: headers['transfer-encoding'] } : {}),
        ...(headers['content-length'] !== undefined ? { contentLength: headers['content-length'] } : {}),
        ...(headers['content-type'] !== undefined ? { contentType: headers['content-type'] } : {}),
        ...(headers['ahp-content-sha256'] !== undefined ? { sha256Header: headers['ahp-content-sha256'] } : {}),
        size,
        sha256: digest,
        truncated,
        secretSeen: this.secrets.some((s) => text.includes(s)),
        redirected,
        answer,
        status: 0,
      };
      this.records.push(record);
      this.respond(res, record);
    });
  }

  private respond(res: ServerResponse, r: UploadRecord): void {
    const done = (status: number, body?: object, extra: Record<string, string> = {}): void => {
      r.status = status;
      const text = body ? JSON.stringify(body) : '';
      res.writeHead(status, {
        ...(body ? { 'content-type': 'application/json' } : {}),
        'content-length': String(Buffer.byteLength(text)),
        ...extra,
      });
      // Taken as the answer is handed to the socket: no sender can have it earlier, so an
      // event later than this came after the confirmation whatever the scheduling.
      r.answeredAt = nowMs();
      res.end(text);
    };
    const ref = `ahp-upload-${randomBytes(8).toString('hex')}`;
    switch (r.answer) {
      case 'cap':
        return done(413);
      case 'unknown':
        return done(404);
      case 'receipt':
        r.receipt = { ref, size: r.size, sha256: r.sha256 };
        return done(201, r.receipt);
      case 'mismatch':
        // Another object's digest and a size off by one: neither matches what was sent.
        r.receipt = { ref, size: r.size + 1, sha256: sha256Hex(Buffer.from(`not-${r.sha256}`)) };
        return done(201, r.receipt);
      case 'accepted':
        return done(202);
      case 'no-content':
        return done(204);
      case 'redirect':
        return done(307, undefined, { location: `${this.origin}${REDIRECTED_PREFIX}${this.records.length}` });
    }
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
