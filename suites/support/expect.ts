// Small judgements shared by the backend suites. Each judges one aspect and says, when it
// fails, what was sent, what came back and what was expected; requireWholeReply is the one
// rule that a reply judged on one aspect is valid as a whole too.
import type { JsonValue } from '../../src/protocol/json.js';
import { isObject } from '../../src/protocol/json.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import type { HttpDetails } from '../../drivers/channel.js';
import type { Reply } from './backend-session.js';
import type { Evidence } from '../../src/results/model.js';
import type { Judge } from './check.js';

type Obj = Record<string, unknown>;

const clip = (s: string, n = 400): string => (s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s);

/**
 * A value from the implementation, quoted as JSON for a message. Our parser accepts any
 * nesting depth, JSON.stringify does not: a value too deep to quote is described, so the
 * check still states its finding (the raw text is in the transcript).
 */
export function quoted(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return '(a value nested too deeply to quote; the raw reply is in the transcript)';
  }
}

/** The HTTP status and headers of a reply that came over HTTP with a response. */
export function httpOf(r: Reply): HttpDetails | undefined {
  return r.transport === 'http' ? r.http : undefined;
}

export function describeReply(r: Reply): string {
  if (r.kind === 'none') return `no reply (${r.why})`;
  const h = httpOf(r);
  const http = h ? `HTTP ${h.status} ${h.contentType || '(no content type)'}: ` : '';
  return `${http}${clip(r.raw)}`;
}

export function received(r: Reply): unknown {
  const http = httpOf(r);
  if (r.kind === 'none') return { none: r.why, ...(http ? { http } : {}) };
  return { raw: clip(r.raw, 4000), ...(http ? { http } : {}), ...(r.parseError ? { parseError: r.parseError } : {}) };
}

/** The reply as a JSON object, or fail saying why there is none. */
export function replyObject(judge: Judge, r: Reply, sent: unknown, expected: string): Obj {
  judge.evidence({ sent, received: received(r), expected });
  if (r.kind === 'none') judge.fail(`expected ${expected}, got ${describeReply(r)}`);
  if (r.parseError !== undefined || !isObject(r.value)) {
    judge.fail(
      `expected ${expected}, got a reply that is not one JSON object (${r.parseError ?? 'a JSON value of another type'}): ${clip(r.raw, 200)}`,
    );
  }
  return r.value as Obj;
}

/** A success response's `result` object (any id; id equality is its own check). */
export function successResult(
  judge: Judge,
  r: Reply,
  sent: unknown,
  expected = 'a success response with a result object',
): Obj {
  const v = replyObject(judge, r, sent, expected);
  if (isObject(v.error)) {
    const e = v.error as { code?: JsonValue; message?: JsonValue };
    judge.fail(`expected ${expected}, got JSON-RPC error ${quoted(e.code)} ${quoted(e.message ?? '')}`);
  }
  if (!isObject(v.result))
    judge.fail(`expected ${expected}, got a response without a result object: ${clip(quoted(v), 200)}`);
  return v.result as Obj;
}

/**
 * What keeps a success reply from being one a harness can act on, as a whole, under the
 * claim's snapshot, or undefined: an id that is not the request's (the harness matches a
 * reply to its request by id), or a reply that is not a valid intercept response by the
 * snapshot's schemas (jsonrpc, id, the result's protocolVersion, shape and effects).
 */
export function wholeReplyProblem(v: Obj, request: Obj, snapshot: SnapshotId): string | undefined {
  if (!('id' in v)) return `it has no id (the request's is ${quoted(request.id)})`;
  if (v.id !== request.id) return `its id ${clip(quoted(v.id), 80)} is not the request's id ${quoted(request.id)}`;
  const findings = validate('intercept-response', v, { wireOnly: true, snapshot });
  if (isWireValid(findings)) return undefined;
  return `it is not a valid intercept response under ${snapshot}: ${findings
    .slice(0, 4)
    .map((f) => `${f.path || '(root)'} ${f.message}`)
    .join('; ')}`;
}

/**
 * A check that judges one aspect of a success reply (its deny, its modify effects, which
 * effects it holds) passes the reply only when the reply as a whole is valid for the
 * claim's snapshot: a harness acts on no part of a reply it cannot accept. Fails the check
 * (as `label`) saying what is wrong; an error reply or no reply is its caller's to judge.
 * The envelope's own checks (base.jsonrpc-utf8, base.protocol-version, ti.response-id,
 * ti.result-valid) still report their findings.
 */
export function requireWholeReply(judge: Judge, r: Reply, request: Obj, snapshot: SnapshotId, label = ''): void {
  if (r.kind !== 'reply' || !isObject(r.value) || !isObject(r.value.result)) return;
  const problem = wholeReplyProblem(r.value, request, snapshot);
  if (problem) judge.fail(`${label}the reply is not valid as a whole, so a harness acts on none of it: ${problem}`);
}

/** A JSON-RPC error response for `request` (with its id), optionally with an exact code. */
export function errorResponse(judge: Judge, r: Reply, request: Obj, code?: number): Obj {
  const expected = `a JSON-RPC error${code === undefined ? '' : ` with code ${code}`} carrying the request id ${quoted(request.id)}`;
  const v = replyObject(judge, r, request, expected);
  if (!isObject(v.error)) {
    judge.fail(
      `expected ${expected}, got ${'result' in v ? 'a success result' : 'a response without an error object'}: ${clip(quoted(v), 200)}`,
    );
  }
  const e = v.error as Obj;
  const shape = errorShapeProblem(e);
  if (shape)
    judge.fail(`expected ${expected}, got a malformed JSON-RPC error object (${shape}): ${clip(quoted(e), 200)}`);
  if (code !== undefined && e.code !== code)
    judge.fail(`expected ${expected}, got error code ${quoted(e.code)} (${quoted(e.message ?? '')})`);
  if (v.id !== request.id)
    judge.fail(
      `expected ${expected}, got the error with id ${quoted(v.id)}${typeof v.id !== typeof request.id ? ` (a ${jsonType(v.id)}, the request id is a ${jsonType(request.id)})` : ''}`,
    );
  return e;
}

/** What is wrong with a JSON-RPC error object's shape (code an integer, message a string), or undefined. */
export function errorShapeProblem(e: Obj): string | undefined {
  const problems: string[] = [];
  if (!('code' in e)) problems.push('no code');
  else if (typeof e.code !== 'number' || !Number.isInteger(e.code))
    problems.push(`code ${quoted(e.code)} is not an integer`);
  if (!('message' in e)) problems.push('no message');
  else if (typeof e.message !== 'string') problems.push(`message ${quoted(e.message)} is not a string`);
  return problems.length ? problems.join(', ') : undefined;
}

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A probe's own failure inside eachProbe (caught there, never a check failure by itself). */
class ProbeFailure extends Error {}

/**
 * Several probes in one check, each judged on its own (soft assertions): every failing probe
 * is named, each probe's sent and received messages are kept as evidence, and the check
 * fails once at the end. Warnings, notes and `incomplete` pass through to the check.
 */
export async function eachProbe<T>(
  judge: Judge,
  probes: readonly T[],
  expected: string,
  label: (p: T) => string,
  run: (probe: T, j: Judge) => Promise<void>,
): Promise<void> {
  const sent: unknown[] = [];
  const got: unknown[] = [];
  const failures: string[] = [];
  const record = (e: Evidence | undefined, slot: { sent?: unknown; received?: unknown }): void => {
    if (e?.sent !== undefined) slot.sent = e.sent;
    if (e?.received !== undefined) slot.received = e.received;
  };
  try {
    for (const probe of probes) {
      const slot: { sent?: unknown; received?: unknown } = {};
      const sub: Judge = {
        evidence: (e) => record(e, slot),
        fail: (m, e) => {
          record(e, slot);
          throw new ProbeFailure(m);
        },
        warn: (m, e) => {
          record(e, slot);
          judge.warn(`${label(probe)}: ${m}`);
        },
        notApplicable: (r) => judge.notApplicable(r),
        incomplete: (r, e) => {
          record(e, slot);
          sent.push(slot.sent);
          got.push(slot.received);
          judge.evidence({ sent, received: got, expected });
          return judge.incomplete(`${label(probe)}: ${r}`);
        },
        note: (m) => judge.note(`${label(probe)}: ${m}`),
      };
      try {
        await run(probe, sub);
      } catch (err) {
        if (!(err instanceof ProbeFailure)) throw err;
        failures.push(`${label(probe)}: ${err.message}`);
      }
      sent.push(slot.sent);
      got.push(slot.received);
    }
  } finally {
    judge.evidence({ sent, received: got, expected });
  }
  if (failures.length)
    judge.fail(
      failures.length === 1
        ? failures[0]!
        : `${failures.length} of ${probes.length} probes failed:\n${failures.join('\n')}`,
    );
}

export { clip };
