// Small judgements shared by the backend suites. Each judges one aspect and says, when it
// fails, what was sent, what came back and what was expected.
import type { JsonValue } from '../../src/protocol/json.js';
import type { Reply } from './backend-session.js';
import type { Judge } from './fixtures.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const clip = (s: string, n = 400): string => (s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s);

export function describeReply(r: Reply): string {
  if (r.kind === 'none') return `no reply (${r.why})`;
  const http = r.http ? `HTTP ${r.http.status} ${r.http.contentType || '(no content type)'}: ` : '';
  return `${http}${clip(r.raw)}`;
}

export function received(r: Reply): unknown {
  if (r.kind === 'none') return { none: r.why, ...(r.http ? { http: r.http } : {}) };
  return { raw: clip(r.raw, 4000), ...(r.http ? { http: r.http } : {}), ...(r.parseError ? { parseError: r.parseError } : {}) };
}

/** The reply as a JSON object, or fail saying why there is none. */
export function replyObject(judge: Judge, r: Reply, sent: unknown, expected: string): Obj {
  judge.evidence({ sent, received: received(r), expected });
  if (r.kind === 'none') judge.fail(`expected ${expected}, got ${describeReply(r)}`);
  if (r.parseError !== undefined || !isObj(r.value)) {
    judge.fail(`expected ${expected}, got a reply that is not one JSON object (${r.parseError ?? 'a JSON value of another type'}): ${clip(r.raw, 200)}`);
  }
  return r.value as Obj;
}

/** A success response's `result` object (any id; id equality is its own check). */
export function successResult(judge: Judge, r: Reply, sent: unknown, expected = 'a success response with a result object'): Obj {
  const v = replyObject(judge, r, sent, expected);
  if (isObj(v.error)) {
    const e = v.error as { code?: JsonValue; message?: JsonValue };
    judge.fail(`expected ${expected}, got JSON-RPC error ${JSON.stringify(e.code)} ${JSON.stringify(e.message ?? '')}`);
  }
  if (!isObj(v.result)) judge.fail(`expected ${expected}, got a response without a result object: ${clip(JSON.stringify(v), 200)}`);
  return v.result as Obj;
}

/** A JSON-RPC error response for `request` (with its id), optionally with an exact code. */
export function errorResponse(judge: Judge, r: Reply, request: Obj, code?: number): Obj {
  const expected = `a JSON-RPC error${code === undefined ? '' : ` with code ${code}`} carrying the request id ${JSON.stringify(request.id)}`;
  const v = replyObject(judge, r, request, expected);
  if (!isObj(v.error)) {
    judge.fail(`expected ${expected}, got ${'result' in v ? 'a success result' : 'a response without an error object'}: ${clip(JSON.stringify(v), 200)}`);
  }
  const e = v.error as Obj;
  if (code !== undefined && e.code !== code) judge.fail(`expected ${expected}, got error code ${JSON.stringify(e.code)} (${JSON.stringify(e.message ?? '')})`);
  if (v.id !== request.id) judge.fail(`expected ${expected}, got the error with id ${JSON.stringify(v.id)}`);
  return e;
}

export { isObj, clip };
