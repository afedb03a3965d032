// Judging one intercept reply (AHP-DEC-001, AHP-CORE-003, AHP-CAP-001): either a decision
// (no effect, deny, or a new input) or an operational failure. Acceptance is atomic: the
// whole effect list is checked (schema, advertisement, and every modify applied on a
// copy) before anything counts, so a rejected response never yields a deny or an edit.
// Unknown members of the result object itself are ignored.
import { PROTOCOL_VERSION } from '../../src/protocol/catalogue.js';
import { applyModifyResponse, EditRejected, type EditContext } from '../../src/protocol/edit.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { OLDEST_SNAPSHOT, snapshotOf, type SnapshotId } from '../../src/protocol/snapshots.js';
import { TOOL_BEFORE_CAPABILITIES } from './events.js';
import { NO_FAULT, type HarnessFault } from './faults.js';

/** `value`: the edited value (the tool input at tool.before, the content at a content boundary). */
export type Decision<V = JsonObject> =
  | { readonly kind: 'no-effect' }
  | { readonly kind: 'deny'; readonly reason: string }
  | { readonly kind: 'modify'; readonly value: V };

export type Judgement<V = JsonObject> =
  | { readonly ok: true; readonly decision: Decision<V> }
  /** `partial`: the partial-modify / non-atomic-edits faults' leftover edits (never set otherwise). */
  | { readonly ok: false; readonly failure: string; readonly partial?: V };

/** What the harness enforces, whatever the advertisement says (no-deny-capability only changes the latter). */
const ENFORCED: readonly string[] = TOOL_BEFORE_CAPABILITIES.effects;

/** tool.before: the input is the one editable target, shown in full. */
const TOOL_INPUT_EDIT_CONTEXT: EditContext = {
  capabilities: [
    ['input', 'replace'],
    ['input', 'merge'],
  ],
  selection: { input: 'body' },
  readable: ['input'],
  writable: ['input'],
  event: 'tool.before',
};

const bad = <V = JsonObject>(failure: string): Judgement<V> => ({ ok: false, failure });
const quote = (v: unknown): string => (JSON.stringify(v) ?? String(v)).slice(0, 60);

/**
 * Judged by `snapshot`'s rules: where a result may leave out `effects` (draft@1d98c19,
 * intercept-no-effect-response.schema.json) such a result is no effect, not a failure; the
 * effects are validated by that snapshot's schemas.
 */
export function judgeReply(
  reply: JsonValue,
  rpcId: string,
  input: JsonObject,
  fault: HarnessFault = NO_FAULT,
  snapshot: SnapshotId = OLDEST_SNAPSHOT,
): Judgement {
  const listed = replyEffects(reply, rpcId, fault, snapshot);
  if (!listed.ok) return listed;
  if (listed.effects === undefined) return { ok: true, decision: { kind: 'no-effect' } };
  let effects = fault.pick(
    'ignore-unknown-effects',
    listed.effects,
    listed.effects.filter((e) => isObject(e) && typeof e.type === 'string' && ENFORCED.includes(e.type)),
  );
  let problem = effectsProblem(effects, snapshot);
  // lenient-effect-fields fault: a list the schema accepts has no member to strip, so only a refused one asks.
  if (problem !== undefined && fault.is('lenient-effect-fields')) {
    effects = stripUnknownMembers(effects);
    problem = effectsProblem(effects, snapshot);
  }
  if (fault.is('partial-modify')) return judgeOneByOne(effects, input, fault);
  if (problem !== undefined) return bad(problem);
  return decide(effects as JsonObject[], input, fault);
}

/**
 * The JSON-RPC and result checks every intercept reply gets (whatever the event): the
 * effect list, or `effects: undefined` for a result that may leave it out (no effect).
 */
export function replyEffects(
  reply: JsonValue,
  rpcId: string,
  fault: HarnessFault = NO_FAULT,
  snapshot: SnapshotId = OLDEST_SNAPSHOT,
): { ok: true; effects: JsonValue[] | undefined } | { ok: false; failure: string } {
  const { effectsOptional } = snapshotOf(snapshot).rules;
  const fail = (failure: string): { ok: false; failure: string } => ({ ok: false, failure });
  if (!isObject(reply)) return fail('reply is not a JSON object');
  if (reply.jsonrpc !== '2.0') return fail('reply "jsonrpc" is not "2.0"');
  if (reply.id !== rpcId) return fail('reply id does not match the request id');
  if ('error' in reply) {
    const code = isObject(reply.error) && typeof reply.error.code === 'number' ? ` ${reply.error.code}` : '';
    return fail(`backend answered with a JSON-RPC error${code}`);
  }
  const result = reply.result;
  if (!isObject(result)) return fail('reply has no result object');
  if (result.protocolVersion !== PROTOCOL_VERSION)
    return fail(`result.protocolVersion ${quote(result.protocolVersion)} is not "draft"`);
  if (Object.keys(result).some((k) => k !== 'protocolVersion' && k !== 'effects') && fault.is('strict-result-fields')) {
    return fail('result has members other than protocolVersion and effects');
  }
  // effects-required fault: 1d98c19's optional effects are still demanded.
  if (!('effects' in result) && effectsOptional && !fault.is('effects-required'))
    return { ok: true, effects: undefined };
  if (!Array.isArray(result.effects)) return fail('result.effects is missing or not a list');
  return { ok: true, effects: result.effects };
}

/** Why the list cannot be accepted, or undefined. */
export function effectsProblem(
  effects: JsonValue[],
  snapshot: SnapshotId = OLDEST_SNAPSHOT,
  enforced: readonly string[] = ENFORCED,
): string | undefined {
  for (const [i, e] of effects.entries()) {
    if (!isObject(e) || typeof e.type !== 'string') return `effect ${i} has no type`;
    // Unknown types and defined-but-unadvertised ones alike (AHP-CAP-001).
    if (!enforced.includes(e.type)) return `effect ${i} of type ${quote(e.type)} was not advertised`;
  }
  const findings = validate('effects', effects, { wireOnly: true, explain: false, snapshot });
  if (!isWireValid(findings)) {
    const f = findings.find((x) => x.layer === 'wire')!;
    return `effects fail the effect schema at ${f.path || '(root)'}: ${f.message.slice(0, 120)}`;
  }
  return undefined;
}

/** Accepted effects: a deny wins; the modifies must still apply cleanly (atomic acceptance). */
function decide(effects: readonly JsonObject[], input: JsonObject, fault: HarnessFault): Judgement {
  const modifies = effects.filter((e) => e.type === 'modify');
  let next = input;
  if (modifies.length > 0) {
    const applied = applyModifies(modifies, input, fault);
    if (!applied.ok) return bad(applied.failure);
    next = applied.input;
  }
  const deny = effects.find((e) => e.type === 'deny');
  if (deny) return { ok: true, decision: { kind: 'deny', reason: deny.reason as string } };
  if (modifies.length > 0) return { ok: true, decision: { kind: 'modify', value: next } };
  return { ok: true, decision: { kind: 'no-effect' } };
}

type Applied = { ok: true; input: JsonObject } | { ok: false; failure: string };

function applyModifies(modifies: readonly JsonObject[], input: JsonObject, fault: HarnessFault): Applied {
  let result: Record<string, unknown>;
  try {
    result = applyModifyResponse({ input }, modifies, TOOL_INPUT_EDIT_CONTEXT);
  } catch (e) {
    if (e instanceof EditRejected) return { ok: false, failure: `modify rejected (${e.rule})` };
    throw e;
  }
  const next = result.input as JsonValue; // the edit of a JSON input is JSON
  if (!isObject(next)) return { ok: false, failure: 'modify left the input not an object' };
  if (modifies.some(mergesNull) && fault.is('merge-drops-null')) dropNullMerges(next, modifies);
  return { ok: true, input: next };
}

const mergesNull = (m: JsonObject): boolean =>
  m.operation === 'merge' && isObject(m.value) && Object.values(m.value).includes(null);

/** merge-drops-null fault: treat a null merge value as a deletion (the draft keeps it). */
function dropNullMerges(input: JsonObject, modifies: readonly JsonObject[]): void {
  for (const m of modifies) {
    if (m.operation !== 'merge' || !isObject(m.value)) continue;
    for (const [k, v] of Object.entries(m.value)) if (v === null && input[k] === null) delete input[k];
  }
}

/** lenient-effect-fields fault: remove the members the effect schema does not know. */
function stripUnknownMembers(effects: JsonValue[]): JsonValue[] {
  const copy = cloneJson(effects);
  // Only members of the effect objects themselves are stripped; stop when none is left.
  for (let round = 0; round < 8; round++) {
    let removed = 0;
    for (const f of validate('effects', copy, { wireOnly: true })) {
      const m = f.code === 'schema.unknown-member' ? /^\/(\d+)\/([^/]+)$/.exec(f.path) : null;
      const target = m ? copy[Number(m[1])] : undefined;
      if (m && isObject(target)) {
        delete target[m[2]!.replace(/~1/g, '/').replace(/~0/g, '~')];
        removed++;
      }
    }
    if (removed === 0) break;
  }
  return copy;
}

/** partial-modify fault: apply effect by effect, keep what came before the first bad one. */
function judgeOneByOne(effects: JsonValue[], input: JsonObject, fault: HarnessFault): Judgement {
  let current = input;
  let applied = 0;
  let deny: string | undefined;
  for (const e of effects) {
    const failure = effectsProblem([e]);
    if (failure !== undefined) return applied > 0 ? { ok: false, failure, partial: current } : bad(failure);
    const effect = e as JsonObject;
    if (effect.type === 'deny') {
      deny ??= effect.reason as string;
      continue;
    }
    const one = applyModifies([effect], current, fault);
    if (!one.ok) return applied > 0 ? { ok: false, failure: one.failure, partial: current } : bad(one.failure);
    current = one.input;
    applied++;
  }
  if (deny !== undefined) return { ok: true, decision: { kind: 'deny', reason: deny } };
  if (applied > 0) return { ok: true, decision: { kind: 'modify', value: current } };
  return { ok: true, decision: { kind: 'no-effect' } };
}
