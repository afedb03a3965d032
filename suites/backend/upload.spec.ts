// Content upload, backend side (issue 15 B; spec/draft/content-upload.md@2b5da580, "Request
// framing" and "Confirmation and errors"): the upload receiver a backend claims
// (`backend.upload`), sent raw uploads by the runner, framed right and wrong on purpose.
// A receiver that requires its own token (`backend.upload.auth`) gets it with every upload
// but those of upload.receiver-auth, which judges that it refuses the others
// (capability-auth.md@40d064d, "Registration" and "Failure and timing").
import { createHash, randomBytes } from 'node:crypto';
import { postRawUpload, type UploadAnswerSeen } from '../../drivers/upload-client.js';
import { parseChallenges } from '../../src/checks/www-authenticate.js';
import { isObject } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { check, test, type Judge } from '../support/check.js';
import type { BackendSession } from '../support/backend-session.js';
import { wrongToken } from '../support/backend-auth.js';

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
  /** The Authorization header: absent, the upload token (when claimed); null, none; else this value. */
  authorization?: string | null;
}

const shown = (a: UploadAnswerSeen | undefined) =>
  a === undefined
    ? 'no answer in time'
    : { status: a.status, contentType: a.headers['content-type'], body: a.body.toString('utf8').slice(0, 400) };

async function send(backend: BackendSession, url: string, s: Sent): Promise<UploadAnswerSeen | undefined> {
  const authorization =
    s.authorization === undefined
      ? backend.uploadToken === undefined
        ? undefined
        : `Bearer ${backend.uploadToken}`
      : (s.authorization ?? undefined);
  const headers = { ...s.headers, ...(authorization !== undefined ? { authorization } : {}) };
  const answer = await postRawUpload(url, {
    headers,
    body: s.body,
    ...(s.chunked ? { chunked: true } : {}),
    timeoutMs: backend.patience,
  });
  backend.transcript.record({
    dir: 'send',
    channel: 'http',
    http: { method: 'POST', url, headers },
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

/** An answer that accepted the upload: a non-4xx status, or a body that names a ref (a receipt). */
const acceptedUpload = (a: UploadAnswerSeen): boolean => {
  const body = jsonBody(a);
  return a.status < 400 || a.status > 499 || (isObject(body) && 'ref' in body);
};

/** Where in an answer (body, a header) one of `secrets` appears. */
function echoes(a: UploadAnswerSeen, secrets: readonly string[]): string[] {
  const where: string[] = [];
  for (const secret of secrets) {
    if (a.body.includes(Buffer.from(secret, 'utf8'))) where.push('the body');
    for (const [name, value] of Object.entries(a.headers)) if (value.includes(secret)) where.push(`header ${name}`);
  }
  return [...new Set(where)];
}

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
        else if (acceptedUpload(a))
          accepted.push(`${c.what} got ${a.status}${a.status === 201 ? ' with a receipt' : ''}`);
        // Judged: a 4xx without a receipt (a sender fails any upload without a 201 receipt,
        // so no other 4xx lets a bad upload through). The binding's receiver table (400
        // framing, 413 size) is preferred, a warning otherwise (docs/claims.md says both).
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

  test(
    ...check('upload.receiver-auth', async ({ backend, judge, spec }) => {
      const url = await receiverUrl(backend, judge);
      const right = backend.uploadToken;
      if (right === undefined)
        return judge.incomplete(
          'the runner holds no upload token (backend.upload.auth.tokenEnv is unset and the runner does not start the server)',
        );
      const wrong = wrongToken(backend);
      const eventToken = backend.token;
      const probes: { what: string; authorization: string | null }[] = [
        { what: 'no Authorization header', authorization: null },
        { what: 'a wrong bearer token', authorization: `Bearer ${wrong}` },
      ];
      // Absent upload credentials never inherit the event endpoint's: its token must not work here.
      if (eventToken !== undefined && eventToken !== right)
        probes.push({ what: "the event endpoint's bearer token", authorization: `Bearer ${eventToken}` });
      // (The claim loader refuses equal bearer tokens; a note, not a verdict, if one gets here.)
      else if (eventToken !== undefined)
        judge.note(
          "the event endpoint's token and the upload token are the same value, so whether event credentials authorize uploads was not probed",
        );
      const secrets = [right, wrong, ...(eventToken !== undefined ? [eventToken] : [])];
      const seen: unknown[] = [];
      const taken: string[] = [];
      const silent: string[] = [];
      const advice: string[] = [];
      const leaks: string[] = [];
      const noteLeaks = (what: string, a: UploadAnswerSeen): void => {
        const where = echoes(a, secrets);
        if (where.length) leaks.push(`the answer to ${what} holds a token in ${where.join(' and ')}`);
      };
      for (const p of probes) {
        const body = binary(256);
        const a = await send(backend, url, {
          what: `a well-framed upload with ${p.what}`,
          headers: framing(body),
          body,
          authorization: p.authorization,
        });
        seen.push({ sent: { credentials: p.what, size: body.length }, received: shown(a) });
        if (a === undefined) {
          silent.push(p.what);
          continue;
        }
        noteLeaks(p.what, a);
        if (acceptedUpload(a)) {
          const receipt = isObject(jsonBody(a)) && 'ref' in (jsonBody(a) as object);
          taken.push(`${p.what} got ${a.status}${receipt ? ' with a receipt' : ', not a 4xx refusal'}`);
          continue;
        }
        const challenge = a.headers['www-authenticate'];
        if (a.status !== 401) advice.push(`${p.what} got ${a.status}, not 401`);
        else if (challenge === undefined || !parseChallenges(challenge).some((c) => c.scheme === 'bearer'))
          advice.push(`${p.what} got 401 without a Bearer WWW-Authenticate challenge`);
      }
      // The control: the same kind of upload with the upload token must get its receipt, or the
      // refusals above may only show a receiver that refuses everything.
      const control = binary(256);
      const c = await send(backend, url, {
        what: 'a well-framed upload with the upload token (control)',
        headers: framing(control),
        body: control,
      });
      seen.push({ sent: { credentials: 'the upload token (control)', size: control.length }, received: shown(c) });
      if (c !== undefined) noteLeaks('the control upload', c);
      const evidence = { received: seen, expected: spec.expectation };
      judge.evidence(evidence);
      if (taken.length)
        return judge.fail(`the receiver did not refuse uploads without its token: ${taken.join('; ')}`, evidence);
      if (leaks.length) return judge.fail(`a token is echoed: ${leaks.join('; ')}`, evidence);
      if (silent.length) return judge.incomplete(`no answer in time to the upload with ${silent.join('; ')}`, evidence);
      const receipt = c === undefined ? undefined : jsonBody(c);
      if (c === undefined || c.status !== 201 || !isObject(receipt) || !('ref' in receipt))
        return judge.incomplete(
          `the control upload with the upload token got ${c === undefined ? 'no answer in time' : `${c.status}, no receipt`}, so the refusals show nothing about credentials`,
          evidence,
        );
      if (advice.length)
        judge.warn(
          `refused, but ${advice.join('; ')} (RFC 6750 section 3: 401 with a Bearer challenge is recommended)`,
        );
      judge.note(
        `${probes.map((p) => p.what).join(', ')}: each refused without a receipt; the upload token got its 201 receipt; no token echoed`,
      );
    }),
  );
});
