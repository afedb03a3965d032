// Content upload, backend side (issue 15 B; spec/draft/content-upload.md@2b5da580, "Request
// framing" and "Confirmation and errors"): the upload receiver a backend claims
// (`backend.upload`), sent raw uploads by the runner, framed right and wrong on purpose.
import { createHash, randomBytes } from 'node:crypto';
import { postRawUpload, type UploadAnswerSeen } from '../../drivers/upload-client.js';
import { isObject } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { check, test, type Judge } from '../support/check.js';
import type { BackendSession } from '../support/backend-session.js';

const sha256Hex = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
/** Binary bytes that are no UTF-8 (a converting receiver changes their hash). */
const binary = (n: number): Buffer => Buffer.concat([Buffer.from([0x89, 0x00, 0xff, 0x0d, 0x0a]), randomBytes(n)]);
const framing = (b: Buffer): Record<string, string> => ({
  'content-type': 'application/octet-stream',
  'content-length': String(b.length),
  'ahp-content-sha256': sha256Hex(b),
});

interface Sent {
  what: string;
  headers: Record<string, string>;
  body: Buffer;
  chunked?: boolean;
  /** The status the binding's table gives this case. */
  status?: number;
}

const shown = (a: UploadAnswerSeen | undefined) =>
  a === undefined
    ? 'no answer in time'
    : { status: a.status, contentType: a.headers['content-type'], body: a.body.toString('utf8').slice(0, 400) };

async function send(backend: BackendSession, url: string, s: Sent): Promise<UploadAnswerSeen | undefined> {
  const answer = await postRawUpload(url, {
    headers: s.headers,
    body: s.body,
    ...(s.chunked ? { chunked: true } : {}),
    timeoutMs: backend.patience,
  });
  backend.transcript.record({
    dir: 'send',
    channel: 'http',
    http: { method: 'POST', url, headers: s.headers },
    bytes: s.body.subarray(0, 256),
    note: `upload: ${s.what} (${s.body.length} bytes${s.chunked ? ', chunked' : ''}; first 256 shown)`,
  });
  backend.transcript.record({
    dir: 'recv',
    channel: 'http',
    ...(answer ? { http: { status: answer.status, headers: answer.headers }, bytes: answer.body } : {}),
    note: answer ? `upload answer to: ${s.what}` : `no answer in time to: ${s.what}`,
  });
  return answer;
}

async function receiverUrl(backend: BackendSession, judge: Judge): Promise<string> {
  const url = await backend.uploadUrl();
  if (!url) return judge.notApplicable('the claim names no upload receiver (backend.upload)');
  return url;
}

const jsonBody = (a: UploadAnswerSeen): unknown => {
  try {
    return JSON.parse(a.body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};

test.describe('upload (backend)', () => {
  test(
    ...check('upload.receiver-receipt', async ({ backend, judge, spec, snapshot }) => {
      const url = await receiverUrl(backend, judge);
      const cases = [binary(1024), Buffer.alloc(0)];
      const seen: unknown[] = [];
      for (const body of cases) {
        const what = `${body.length} bytes, framed as the binding says`;
        const a = await send(backend, url, { what, headers: framing(body), body });
        seen.push({ sent: { size: body.length, sha256: sha256Hex(body) }, received: shown(a) });
        if (a === undefined) return judge.incomplete(`no answer in time to an upload of ${what}`, { received: seen });
        const problems: string[] = [];
        if (a.status !== 201) problems.push(`status ${a.status}, not 201`);
        if (!/^application\/json\s*(;.*)?$/i.test(a.headers['content-type'] ?? ''))
          problems.push(`Content-Type ${JSON.stringify(a.headers['content-type'] ?? null)}, not application/json`);
        const receipt = jsonBody(a);
        if (!isObject(receipt)) problems.push('the body is not a JSON object');
        else {
          const findings = validate('upload-receipt', receipt, { wireOnly: true, snapshot });
          if (!isWireValid(findings))
            problems.push(
              `the receipt is not valid: ${findings
                .filter((f) => f.layer === 'wire')
                .slice(0, 3)
                .map((f) => `${f.path || '/'} ${f.message}`)
                .join('; ')}`,
            );
          if (receipt.size !== body.length) problems.push(`size ${JSON.stringify(receipt.size)}, sent ${body.length}`);
          if (receipt.sha256 !== sha256Hex(body)) problems.push('sha256 is not the SHA-256 of the bytes sent');
        }
        if (problems.length)
          judge.fail(`the upload of ${what} got no matching receipt: ${problems.join('; ')}`, {
            sent: { size: body.length, sha256: sha256Hex(body) },
            received: shown(a),
            expected: spec.expectation,
          });
      }
      judge.evidence({ received: seen, expected: spec.expectation });
    }),
  );

  test(
    ...check('upload.receiver-rejects', async ({ backend, judge, spec }) => {
      const url = await receiverUrl(backend, judge);
      const max = backend.claim.backend!.upload!.maxBytes;
      const b = (): Buffer => binary(256);
      const cases: Sent[] = [
        (() => {
          const body = b();
          return {
            what: 'a wrong AHP-Content-SHA256',
            headers: { ...framing(body), 'ahp-content-sha256': sha256Hex(b()) },
            body,
            status: 400,
          };
        })(),
        (() => {
          const body = b();
          return {
            what: 'an uppercase AHP-Content-SHA256',
            headers: { ...framing(body), 'ahp-content-sha256': sha256Hex(body).toUpperCase() },
            body,
            status: 400,
          };
        })(),
        (() => {
          const body = b();
          const { 'ahp-content-sha256': _, ...rest } = framing(body);
          return { what: 'no AHP-Content-SHA256', headers: rest, body, status: 400 };
        })(),
        (() => {
          const body = b();
          return {
            what: 'Content-Type text/plain',
            headers: { ...framing(body), 'content-type': 'text/plain' },
            body,
            status: 400,
          };
        })(),
        (() => {
          const body = Buffer.from(JSON.stringify({ wrapped: b().toString('base64') }));
          return {
            what: 'a JSON-wrapped body, Content-Type application/json',
            headers: { ...framing(body), 'content-type': 'application/json' },
            body,
            status: 400,
          };
        })(),
        (() => {
          const body = b();
          const { 'content-length': _, ...rest } = framing(body);
          return { what: 'a chunked body without Content-Length', headers: rest, body, chunked: true, status: 400 };
        })(),
        (() => {
          const body = binary(Math.max(0, max + 1 - 5));
          return {
            what: `${body.length} bytes, one more than the claimed maxBytes ${max}`,
            headers: framing(body),
            body,
            status: 413,
          };
        })(),
      ];
      const seen: unknown[] = [];
      const accepted: string[] = [];
      const silent: string[] = [];
      for (const c of cases) {
        const a = await send(backend, url, c);
        seen.push({ sent: c.what, received: shown(a) });
        if (a === undefined) silent.push(c.what);
        else if (a.status < 400 || a.status > 499 || (isObject(jsonBody(a)) && 'ref' in (jsonBody(a) as object)))
          accepted.push(`${c.what} got ${a.status}${a.status === 201 ? ' with a receipt' : ''}`);
        else if (c.status !== undefined && a.status !== c.status)
          judge.warn(`${c.what} got ${a.status}; the binding's table gives ${c.status}`);
      }
      if (accepted.length)
        judge.fail(`the receiver did not reject: ${accepted.join('; ')}`, {
          received: seen,
          expected: spec.expectation,
        });
      if (silent.length)
        judge.incomplete(`no answer in time to: ${silent.join('; ')}`, { received: seen, expected: spec.expectation });
      judge.evidence({ received: seen, expected: spec.expectation });
    }),
  );
});
