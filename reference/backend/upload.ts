// The reference backend's content-upload receiver (the binary upload binding of
// spec/draft/content-upload.md@2b5da580, "Request framing" and "Confirmation and errors"),
// served beside the HTTP endpoint at UPLOAD_PATH: a POST of raw octets with an exact
// Content-Length and a lowercase hex AHP-Content-SHA256 of them gets 201 with a receipt
// {ref, size, sha256}; missing or malformed framing, a chunked body or a hash mismatch 400,
// a body over the limit 413. Bytes are not kept: the reference edits no attachments, and
// a receipt is an upload confirmation, not storage the checks read back.
// With its own token (--upload-token-env), an upload without exactly `Bearer <that token>` gets
// 401 and a Bearer challenge before its body is read (capability-auth.md@40d064d, "Failure and
// timing"): the event endpoint's token included.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultProbe } from '../fault-probe.js';
import { authorized } from './bearer.js';
import type { FaultMode } from './faults.js';

export const UPLOAD_PATH = '/uploads';
/** The limit the reference enforces; its claims say the same (`backend.upload.maxBytes`). */
export const UPLOAD_MAX_BYTES = 64 * 1024;
const SHA256_HEX = /^[0-9a-f]{64}$/;

const REASONS: Record<number, string> = { 401: 'unauthorized', 413: 'too large' };

function answer(res: ServerResponse, status: number, body?: object, headers: Record<string, string> = {}): void {
  const text = body ? JSON.stringify(body) : `${REASONS[status] ?? 'bad upload'}\n`;
  res.writeHead(status, {
    'Content-Type': body ? 'application/json' : 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...(status === 413 ? { Connection: 'close' } : {}),
    ...headers,
  });
  res.end(text);
}

export interface UploadCredentials {
  /** The receiver's own bearer token; undefined: an open receiver. */
  readonly uploadToken?: string | undefined;
  /** The event endpoint's token: never valid here (only the upload-receiver-event-token fault takes it). */
  readonly eventToken?: string | undefined;
}

/** Whether the upload carries the receiver's credentials (always, for an open receiver). */
function permitted(req: IncomingMessage, fault: FaultProbe<FaultMode>, c: UploadCredentials): boolean {
  if (c.uploadToken === undefined) return true;
  const header = req.headers.authorization;
  if (authorized(header, c.uploadToken)) return true;
  // Refused credentials: only here can the credential faults let the upload in.
  if (fault.is('upload-receiver-anonymous')) return true;
  return c.eventToken !== undefined && authorized(header, c.eventToken) && fault.is('upload-receiver-event-token');
}

/** Serve one request at UPLOAD_PATH. */
export async function serveUpload(
  req: IncomingMessage,
  res: ServerResponse,
  fault: FaultProbe<FaultMode>,
  credentials: UploadCredentials = {},
): Promise<void> {
  if (!permitted(req, fault, credentials)) {
    req.resume();
    const challenge = `Bearer realm="ahp-reference-uploads"${req.headers.authorization === undefined ? '' : ', error="invalid_token"'}`;
    return answer(res, 401, undefined, { 'WWW-Authenticate': challenge });
  }
  // The lenient fault is asked only where the framing or the size would refuse the upload.
  const lenient = (): boolean => fault.is('upload-lenient-receiver');
  const length = req.headers['content-length'];
  const declared = length !== undefined && /^[0-9]+$/.test(length) ? Number(length) : undefined;
  const claimed = req.headers['ahp-content-sha256'];
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const framed =
    req.method === 'POST' &&
    declared !== undefined &&
    req.headers['transfer-encoding'] === undefined &&
    type === 'application/octet-stream' &&
    typeof claimed === 'string' &&
    SHA256_HEX.test(claimed);
  if (!framed && !lenient()) {
    req.resume();
    return answer(res, 400);
  }
  if (declared !== undefined && declared > UPLOAD_MAX_BYTES && !lenient()) {
    req.resume();
    return answer(res, 413);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // (The lenient fault takes up to 16 times the limit: still bounded.)
    if (size > UPLOAD_MAX_BYTES * 16 || (size > UPLOAD_MAX_BYTES && !lenient())) return answer(res, 413);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if ((sha256 !== claimed || bytes.length !== declared) && !lenient()) return answer(res, 400);
  const ref = `ahp-ref-${randomBytes(12).toString('hex')}`;
  // upload-receipt-mismatch fault: the receipt names the digest of the reference, not of the bytes.
  const digest = fault.is('upload-receipt-mismatch') ? createHash('sha256').update(ref).digest('hex') : sha256;
  return answer(res, 201, { ref, size: bytes.length, sha256: digest });
}
