// Content upload (adapter contract 2, "Upload steps"; the binary upload binding of
// spec/draft/content-upload.md@2b5da580): a content step's attachment given as a file is
// either carried inline (text and JSON media are never uploaded: they become a text part)
// or uploaded to the upload binding of the boundary's interceptor subscription before the
// event that refers to it is built. Only a 201 JSON receipt whose size and sha256 match
// the bytes sent confirms an upload; anything else (202, 204, a redirect, a mismatched or
// malformed receipt, a timeout) is an upload failure and the subscription's failure policy
// decides: fail-closed denies the step, fail-open sends the part as a gap. Event
// credentials are never sent to the upload endpoint; `upload.auth` (bearer tokenEnv) is
// resolved on its own.
import { createHash } from 'node:crypto';
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isObject, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import type { Recipient } from './dispatch.js';
import type { HarnessFault } from './faults.js';
import type { Authentication, FailurePolicy, UploadBinding } from './registration.js';

export type UploadResult = { ok: true; ref: string } | { ok: false; reason: string };

/** What the parts of a step become once its attachment files are dealt with. */
export type Prepared =
  | {
      ok: true;
      body: JsonObject;
      /** Uploads left for after the event (upload-after-event fault only). */ later: (() => Promise<UploadResult>)[];
    }
  | { ok: false; reason: string };

const RECEIPT_MAX_BYTES = 64 * 1024;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Media carried inline as text, never uploaded: text/*, application/json and +json types. */
export function isInlineMedia(mediaType: string): boolean {
  const t = mediaType.split(';')[0]!.trim().toLowerCase();
  return t.startsWith('text/') || t === 'application/json' || t.endsWith('+json');
}

/** Does a step (or any part of it) give an attachment as a file? */
export function hasFileAttachments(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasFileAttachments);
  if (!isObject(value)) return false;
  if (value.kind === 'attachment' && typeof value.file === 'string') return true;
  return Object.values(value).some((v) => v !== undefined && hasFileAttachments(v));
}

/**
 * Replace every file attachment of a step's body with what the interceptors are sent:
 * a text part (inline media), a body reference (a confirmed upload) or a gap (no binding,
 * or a failed upload under fail-open). A failed upload under fail-closed fails the step.
 */
export async function prepareAttachments(
  body: JsonObject,
  interceptors: readonly Recipient[],
  fault: HarnessFault,
): Promise<Prepared> {
  const target = interceptors.find((r) => r.subscription.upload !== undefined);
  const binding = target?.subscription.upload;
  const policy: FailurePolicy = target?.subscription.failurePolicy ?? 'fail-closed';
  const later: (() => Promise<UploadResult>)[] = [];
  let failure: string | undefined;

  const part = async (p: JsonObject): Promise<JsonObject> => {
    const { file, ...rest } = p;
    const mediaType = typeof p.mediaType === 'string' ? p.mediaType : 'application/octet-stream';
    const common = { id: rest.id, ...(rest.category !== undefined ? { category: rest.category } : {}) };
    const gap = (reason: string): JsonObject => ({
      ...common,
      kind: 'attachment',
      mediaType,
      selection: 'body',
      gap: { reason },
    });
    const limit = binding?.maxBytes ?? RECEIPT_MAX_BYTES;
    let bytes: Buffer | undefined;
    try {
      bytes = readBounded(String(file), limit);
    } catch (e) {
      // An unreadable source is a missing body: the failure policy decides, as for a failed upload.
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      const reason = `the attachment could not be read (${code})`;
      if (isInlineMedia(mediaType))
        return { ...common, kind: 'text', mediaType: 'text/plain', selection: 'body', gap: { reason } };
      if (!binding) return gap(reason);
      return settle(reason);
    }
    if (isInlineMedia(mediaType)) {
      // upload-all-attachments fault: the text is uploaded as well (it is still carried inline).
      if (binding && bytes && fault.is('upload-all-attachments')) await upload(bytes, binding, target!, fault);
      return {
        ...common,
        kind: 'text',
        mediaType: 'text/plain',
        selection: 'body',
        text: bytes?.toString('utf8') ?? '',
      };
    }
    if (!binding) return gap('no upload binding for this attachment');
    if (!bytes) return settle(`the attachment exceeds the upload limit of ${binding.maxBytes} bytes`);
    if (fault.is('upload-after-event')) {
      later.push(() => upload(bytes, binding, target!, fault));
      return gap('upload pending');
    }
    const first = await upload(bytes, binding, target!, fault);
    // upload-twice fault: a confirmed upload is POSTed once more, and the second receipt's ref is used.
    const result = first.ok && fault.is('upload-twice') ? await upload(bytes, binding, target!, fault) : first;
    if (result.ok) return { ...common, kind: 'attachment', mediaType, selection: 'body', body: { ref: result.ref } };
    return settle(result.reason);

    function settle(reason: string): JsonObject {
      if (policy === 'fail-closed') failure ??= `upload failed: ${reason}`;
      return gap('upload failed');
    }
  };

  const walk = async (v: JsonValue): Promise<JsonValue> => {
    if (Array.isArray(v)) {
      const out: JsonValue[] = [];
      for (const x of v) out.push(await walk(x)); // serial: uploads in content order
      return out;
    }
    if (!isObject(v)) return v;
    if (v.kind === 'attachment' && typeof v.file === 'string') return part(v);
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = await walk(x);
    return out;
  };

  const prepared = (await walk(body)) as JsonObject;
  return failure !== undefined ? { ok: false, reason: failure } : { ok: true, body: prepared, later };
}

/** The file's bytes, or undefined when it holds more than `limit` (never truncated). */
function readBounded(path: string, limit: number): Buffer | undefined {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > limit) return undefined;
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** The credential for the upload endpoint: only `upload.auth` (bearer tokenEnv), never the event's. */
function uploadAuthorization(
  binding: UploadBinding,
  r: Recipient,
  fault: HarnessFault,
): { header?: string } | { failure: string } {
  const auth: Authentication | undefined =
    binding.auth ?? (fault.is('upload-event-credentials') ? r.hook.authentication : undefined);
  if (auth === undefined) return {};
  if (auth.type === 'bearer' && typeof auth.tokenEnv === 'string') {
    const token = process.env[auth.tokenEnv];
    if (!token) return { failure: `upload bearer token variable ${auth.tokenEnv} is not set` };
    return { header: `Bearer ${token}` };
  }
  return { failure: 'this upload authentication is not supported by this harness' };
}

/** One upload, confirmed only by a matching 201 JSON receipt. */
export async function upload(
  bytes: Buffer,
  binding: UploadBinding,
  r: Recipient,
  fault: HarnessFault,
): Promise<UploadResult> {
  const auth = uploadAuthorization(binding, r, fault);
  if ('failure' in auth) return { ok: false, reason: auth.failure };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'ahp-content-sha256': sha256,
    ...(fault.is('upload-chunked') ? {} : { 'content-length': String(bytes.length) }),
    ...(auth.header !== undefined ? { authorization: auth.header } : {}),
  };
  const signal = AbortSignal.timeout(binding.timeoutMs);
  let url = binding.endpoint;
  for (let hop = 0; ; hop++) {
    let answer: Answer;
    try {
      answer = await post(url, bytes, headers, signal, fault.is('upload-chunked'));
    } catch (e) {
      return { ok: false, reason: `the upload did not complete (${(e as Error).name})` };
    }
    if (answer.status >= 300 && answer.status < 400) {
      if (answer.location !== undefined && hop === 0 && fault.is('upload-follow-redirect')) {
        url = new URL(answer.location, url).href;
        continue;
      }
      return { ok: false, reason: `the upload was answered ${answer.status} (redirects are not followed)` };
    }
    return confirm(answer, bytes.length, sha256, fault);
  }
}

interface Answer {
  status: number;
  contentType?: string;
  location?: string;
  body: Buffer;
}

function confirm(a: Answer, size: number, sha256: string, fault: HarnessFault): UploadResult {
  let receipt: unknown;
  try {
    receipt = a.body.length ? JSON.parse(a.body.toString('utf8')) : undefined;
  } catch {
    receipt = undefined;
  }
  const ref = isObject(receipt as JsonValue) ? (receipt as JsonObject).ref : undefined;
  const confirmed = confirmation(a, receipt, ref, size, sha256);
  // upload-accept-unconfirmed fault: any success is taken as confirmation, with a reference of
  // its own where none came (a confirmed upload reads the same, so only an unconfirmed one asks).
  if (!confirmed.ok && a.status >= 200 && a.status < 300 && fault.is('upload-accept-unconfirmed'))
    return { ok: true, ref: typeof ref === 'string' && ref ? ref : `local-${sha256.slice(0, 16)}` };
  return confirmed;
}

function confirmation(a: Answer, receipt: unknown, ref: unknown, size: number, sha256: string): UploadResult {
  if (a.status !== 201) return { ok: false, reason: `the upload was answered ${a.status}, not 201` };
  if (!(a.contentType ?? '').toLowerCase().startsWith('application/json'))
    return { ok: false, reason: 'the receipt is not application/json' };
  const rc = receipt as JsonObject | undefined;
  if (!isObject(rc as JsonValue) || typeof ref !== 'string' || ref === '')
    return { ok: false, reason: 'the receipt has no ref' };
  if (rc!.size !== size || typeof rc!.sha256 !== 'string' || !SHA256_HEX.test(rc!.sha256) || rc!.sha256 !== sha256)
    return { ok: false, reason: 'the receipt does not match the bytes sent' };
  return { ok: true, ref };
}

function post(
  url: string,
  bytes: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
  chunked: boolean,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { method: 'POST', headers, signal, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (c: Buffer) => {
        if (kept < RECEIPT_MAX_BYTES) chunks.push(c.subarray(0, RECEIPT_MAX_BYTES - kept));
        kept += c.length;
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          ...(typeof res.headers['content-type'] === 'string' ? { contentType: res.headers['content-type'] } : {}),
          ...(typeof res.headers.location === 'string' ? { location: res.headers.location } : {}),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    if (chunked && bytes.length > 1) {
      // upload-chunked fault: no Content-Length, the body in two writes (chunked transfer).
      req.write(bytes.subarray(0, 1));
      req.end(bytes.subarray(1));
    } else req.end(bytes);
  });
}
