// The reference backend's message handler, shared by both transports: one incoming
// message (text or raw bytes) in, the reply to send (or null for none) out. It keeps no
// state of its own; the only memory is `ctx.seen`, `ctx.counts` and `ctx.decisions`, used by
// the faults that carry state across requests (flaky-duplicates, duplicate-*, deny-once,
// wrong-id-late, replay-decision). All are kept whether or not a fault is on, so the fault
// probe (ctx.fault) is asked only where a repeat or a count makes a difference, not on every
// request.
//
// Order of judgement for one message:
//   1. strict JSON (UTF-8, no duplicate keys)          else -32700, id null
//   2. JSON-RPC envelope (object, jsonrpc "2.0", method string, id string|integer)
//                                                        else -32600 with the id, or nothing
//   3. no id = notification: never answered
//   4. method hooks/intercept                          else -32601 (hooks/configuration, where
//      served, is answered apart: configurationReply)
//   5. params object                                    else -32602
//   6. params.protocolVersion "draft"                   else -32001
//   7. params.event an object                           else -32602
//   8. params.event.type an interceptable event         else -32002
//   9. the whole request wire-valid (our validator)     else -32602
//  10. the policy's effects, kept only where advertised
//
// The snapshot (ctx.snapshot, default draft@2b5da580) changes what a valid request is
// (1d98c19 requires `harness` on every event) and whether hooks/configuration exists.
import { EVENT_TYPES, eventSpec, METHODS, ERROR_CODES, PROTOCOL_VERSION } from '../../src/protocol/catalogue.js';
import { isObject, parseJsonBytes, parseJsonStrict, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import { eventSchema } from '../../src/protocol/schema-build/events.js';
import { OLDEST_SNAPSHOT, snapshotOf, type SnapshotId } from '../../src/protocol/snapshots.js';
import { configurationOf } from './configuration.js';
import type { FaultProbe } from '../fault-probe.js';
import type { FaultMode } from './faults.js';
import { matchRule, proposals, type Policy, type Proposal } from './policy.js';
import { contentEffects } from './content.js';
import { isBoundaryEvent } from '../../src/checks/boundaries.js';

export interface HandlerContext {
  readonly policy: Policy;
  /** Whether a fault mode is on: asked last in a condition (reference/fault-probe.ts). */
  readonly fault: FaultProbe<FaultMode>;
  /** Event keys already answered (read by flaky-duplicates, duplicate-*, deny-once only); one set per process. */
  readonly seen?: Set<string>;
  /** Success replies sent so far by this process (wrong-id-late only). */
  readonly counts?: { successes: number };
  /** The effects last returned per tool call (event type, tool name and input; replay-decision only). */
  readonly decisions?: Map<string, JsonObject[]>;
  /** The request's Authorization header (HTTP only); never copied into a reply unless the echo fault is on. */
  readonly authorization?: string | undefined;
  /** The snapshot whose rules the backend follows (default draft@2b5da580). */
  readonly snapshot?: SnapshotId;
  /** Serves hooks/configuration where the snapshot has it (default true; --no-configuration). */
  readonly configuration?: boolean;
}

const OLDEST_RULES = snapshotOf(OLDEST_SNAPSHOT).rules;
const rulesOf = (ctx: HandlerContext) => snapshotOf(ctx.snapshot ?? OLDEST_SNAPSHOT).rules;
const servesConfiguration = (ctx: HandlerContext): boolean => rulesOf(ctx).configuration && ctx.configuration !== false;

export type Reply = Record<string, JsonValue>;
type Id = string | number;

/** Standard JSON-RPC codes next to the AHP ones from the catalogue. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  ...ERROR_CODES,
} as const;

interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}

type Verdict = { readonly error: RpcError } | { readonly effects: JsonValue };

const isId = (v: unknown): v is Id => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

const ERRORS = {
  parse: { code: RPC_CODES.parseError, message: 'parse error' },
  invalidRequest: { code: RPC_CODES.invalidRequest, message: 'invalid request' },
  methodNotFound: { code: RPC_CODES.methodNotFound, message: 'method not found' },
  version: {
    code: RPC_CODES.unsupportedProtocolVersion,
    message: 'unsupported protocol version',
    data: { supported: [PROTOCOL_VERSION] },
  },
  event: { code: RPC_CODES.unsupportedEvent, message: 'unsupported event' },
} as const satisfies Record<string, RpcError>;

function invalidParams(detail: string, data?: JsonValue): RpcError {
  return data === undefined
    ? { code: RPC_CODES.invalidParams, message: `invalid params: ${detail}` }
    : { code: RPC_CODES.invalidParams, message: `invalid params: ${detail}`, data };
}

/** The reply text for one incoming message, or null when nothing is to be sent. */
export function handle(input: string | Uint8Array, ctx: HandlerContext): string | null {
  const reply = respond(input, ctx);
  return reply === null ? null : JSON.stringify(reply);
}

/** The refusals silent-on-errors leaves unanswered and slow-reverse-refusals holds. */
const SILENCED: readonly number[] = [
  RPC_CODES.methodNotFound,
  RPC_CODES.unsupportedProtocolVersion,
  RPC_CODES.unsupportedEvent,
];

/** The reply object for one incoming message, or null when nothing is to be sent. */
export function respond(input: string | Uint8Array, ctx: HandlerContext): Reply | null {
  const reply = dispatch(input, ctx);
  if (reply === null) return null;
  const { fault } = ctx;
  // Asked only where it can act, so the fault probe traces it to these refusals alone.
  if (isObject(reply.error) && SILENCED.includes(reply.error.code as number) && fault.is('silent-on-errors'))
    return null;
  if (fault.is('no-jsonrpc-member')) delete reply.jsonrpc;
  if (typeof reply.id === 'number' && fault.is('integer-id-as-string')) reply.id = String(reply.id);
  if (isObject(reply.error) && reply.error.code === RPC_CODES.methodNotFound && fault.is('error-no-message'))
    delete reply.error.message;
  return reply;
}

/**
 * Whether the transport holds this reply (slow-reverse-refusals, reference/backend/hold.ts):
 * asked of every reply it would send, the probe only where the mode can act.
 */
export function isHeld(reply: Reply, ctx: HandlerContext): boolean {
  return (
    isObject(reply.error) && SILENCED.includes(reply.error.code as number) && ctx.fault.is('slow-reverse-refusals')
  );
}

function dispatch(input: string | Uint8Array, ctx: HandlerContext): Reply | null {
  const parsed = typeof input === 'string' ? parseJsonStrict(input) : parseJsonBytes(input);
  if (!parsed.ok) return errorReply(ctx.fault.is('parse-error-with-id') ? 0 : null, ERRORS.parse);
  const msg = parsed.value;
  if (!isObject(msg)) return null; // no id to answer to (batches included: AHP forbids them)
  const hasId = Object.prototype.hasOwnProperty.call(msg, 'id');
  if (msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || (hasId && !isId(msg.id))) {
    if (!hasId) return null;
    return errorReply(isId(msg.id) ? msg.id : null, ERRORS.invalidRequest);
  }
  if (!hasId) return notification(msg, ctx);
  const id = msg.id as Id;
  if (msg.method === METHODS.configuration && servesConfiguration(ctx)) return configurationReply(id, msg, ctx);
  if (
    msg.method === METHODS.configuration &&
    rulesOf(ctx).configuration &&
    ctx.fault.is('configuration-unoffered-wrong-code')
  )
    return errorReply(id, ERRORS.invalidRequest);
  if (msg.method !== METHODS.intercept) {
    if (ctx.fault.is('unknown-method-result')) return successReply(id, [], ctx);
    return errorReply(id, ERRORS.methodNotFound);
  }
  const verdict = judgeIntercept(msg, ctx);
  if ('error' in verdict) return errorReply(id, verdict.error);
  // (Under lenient-params a request without a params or event object gets here too.)
  const event = isObject(msg.params) ? msg.params.event : undefined;
  if (ctx.seen && isObject(event)) {
    const key = JSON.stringify(['delivered', event.source ?? null, event.id ?? null]);
    if (ctx.seen.has(key)) {
      // A repeat delivery: only here can the duplicate-* faults answer otherwise.
      if (ctx.fault.is('duplicate-error'))
        return errorReply(id, { code: RPC_CODES.invalidRequest, message: 'duplicate event' });
      if (ctx.fault.is('duplicate-silent')) return null;
    } else ctx.seen.add(key);
  }
  return successReply(id, verdict.effects, ctx);
}

// ---------------------------------------------------------------- notifications

/** Notifications are never answered; three faults break exactly that. */
function notification(msg: Record<string, unknown>, ctx: HandlerContext): Reply | null {
  const { fault } = ctx;
  if (isValidObservation(msg) && fault.is('ack-observe')) {
    return { jsonrpc: '2.0', id: null, result: { protocolVersion: PROTOCOL_VERSION, effects: [] } };
  }
  const error = notificationError(msg);
  if (error && fault.is('reply-to-bad-notifications')) return errorReply(null, error);
  const problem = malformedNotification(msg);
  if (problem && fault.is('reply-to-malformed-notifications'))
    return errorReply(null, invalidParams(`malformed notification at ${problem}`));
  return null;
}

/**
 * Where a hooks/observe or hooks/intercept notification with a supported version (or none)
 * is structurally broken: params, the event, or the event's required members. Version,
 * event type and method faults are reply-to-bad-notifications' concern, not this one's.
 */
function malformedNotification(msg: Record<string, unknown>): string | undefined {
  if (msg.method !== METHODS.observe && msg.method !== METHODS.intercept) return undefined;
  const params = msg.params;
  if (!isObject(params)) return '/params';
  if (params.protocolVersion !== undefined && params.protocolVersion !== PROTOCOL_VERSION) return undefined;
  const event = params.event;
  if (!isObject(event)) return '/params/event';
  if (typeof event.type === 'string' && !EVENT_TYPES.includes(event.type)) return undefined;
  return structuralProblem(msg, params, event, OLDEST_RULES);
}

function isValidObservation(msg: Record<string, unknown>): boolean {
  if (msg.method !== METHODS.observe || !isObject(msg.params)) return false;
  const { params } = msg;
  if (params.protocolVersion !== PROTOCOL_VERSION || !isObject(params.event)) return false;
  if (typeof params.event.type !== 'string' || !EVENT_TYPES.includes(params.event.type)) return false;
  return structuralProblem(msg, params, params.event, OLDEST_RULES) === undefined;
}

/**
 * The error a notification would get as a request from a conforming backend, limited to
 * version, event and method. Pure (no fault asked, no state kept), so every notification
 * can be judged before the probe is asked; a hooks/intercept notification meets the same
 * version and event tests as judgeIntercept's, in the same order (params not an object and
 * event not an object are invalid params there, so no error here).
 */
function notificationError(msg: Record<string, unknown>): RpcError | undefined {
  if (msg.method !== METHODS.intercept && msg.method !== METHODS.observe) return ERRORS.methodNotFound;
  if (!isObject(msg.params)) return undefined;
  if (msg.params.protocolVersion !== PROTOCOL_VERSION) return ERRORS.version;
  const event = msg.params.event;
  if (!isObject(event)) return undefined;
  if (msg.method === METHODS.intercept) return interceptableSpec(event.type) ? undefined : ERRORS.event;
  if (typeof event.type !== 'string' || !EVENT_TYPES.includes(event.type)) return ERRORS.event;
  return undefined;
}

/** The spec of an event type a hooks/intercept may carry, or undefined. */
function interceptableSpec(type: unknown): ReturnType<typeof eventSpec> {
  const spec = typeof type === 'string' ? eventSpec(type) : undefined;
  return spec?.interceptable ? spec : undefined;
}

// ---------------------------------------------------------------- hooks/intercept

function judgeIntercept(msg: Record<string, unknown>, ctx: HandlerContext): Verdict {
  const { fault } = ctx;
  const params = msg.params;
  if (!isObject(params))
    return fault.is('lenient-params') ? { effects: [] } : { error: invalidParams('params must be an object') };
  const otherVersion = params.protocolVersion !== PROTOCOL_VERSION;
  if (otherVersion && !fault.is('accept-any-version')) return { error: ERRORS.version };
  const event = params.event;
  if (!isObject(event))
    return fault.is('lenient-params') ? { effects: [] } : { error: invalidParams('params.event must be an object') };
  let spec = typeof event.type === 'string' ? eventSpec(event.type) : undefined;
  if (!spec && typeof event.type === 'string' && fault.is('family-fallback')) spec = familyFallback(event.type);
  if (!spec || !spec.interceptable) {
    return { error: fault.is('unknown-event-wrong-code') ? ERRORS.invalidRequest : ERRORS.event };
  }
  const unknown = unknownMemberAt(msg, params, event, spec.type);
  if (unknown && fault.is('reject-unknown-fields')) return { error: invalidParams(`unknown member in ${unknown}`) };
  const nested = unknownNestedMemberAt(params, event);
  if (nested && fault.is('reject-unknown-nested')) return { error: invalidParams(`unknown member in ${nested}`) };
  // Under accept-any-version another version is judged as if it said "draft" (only getting here with the fault on).
  const judged = otherVersion ? { ...msg, params: { ...params, protocolVersion: PROTOCOL_VERSION } } : msg;
  const problem = structuralProblem(judged, judged.params as Record<string, unknown>, event, rulesOf(ctx));
  if (problem) {
    if (fault.is('lenient-params')) return { effects: [] };
    // Only the location: never quote request values back.
    return { error: invalidParams('the request is not a valid hooks/intercept request', { path: problem }) };
  }
  return { effects: decide(event, params.capabilities, ctx) };
}

/** The policy's decision for a valid request, kept to what the request advertises. */
function decide(event: Record<string, unknown>, capabilities: unknown, ctx: HandlerContext): JsonValue {
  const { fault } = ctx;
  const rule = matchRule(ctx.policy, event);
  // Content boundaries: the edit (and the content faults) keep to the view and advertisement themselves.
  if (typeof event.type === 'string' && isBoundaryEvent(event.type) && !rule?.deny)
    return contentEffects(event as JsonObject, capabilities, rule?.editContent, fault);
  // Shaping keeps type, target and operation, so the advertisement is judged on the proposal
  // and only the effect sent is shaped (its faults asked only when it is sent).
  const offered = rule ? proposals(rule, event) : [];
  let effects = offered
    .filter((p) => advertised(p.effect, capabilities))
    .slice(0, 1)
    .map((p) => shape(p, ctx));
  // The fault sends the policy's preferred effect where the advertisement rules all out.
  if (effects.length === 0 && offered.length > 0 && fault.is('ignore-capabilities'))
    effects = offered.slice(0, 1).map((p) => shape(p, ctx));
  if (ctx.decisions && isObject(event.tool)) {
    // replay-decision, asked only where this call got other effects before: the earlier
    // decision is sent again, whatever this request advertises.
    const call = JSON.stringify([event.type, event.tool.name ?? null, event.tool.input ?? null]);
    const before = ctx.decisions.get(call);
    if (before && JSON.stringify(before) !== JSON.stringify(effects) && fault.is('replay-decision')) effects = before;
    else if (effects.length > 0) ctx.decisions.set(call, effects);
  }
  if (ctx.seen) {
    const key = JSON.stringify([event.source ?? null, event.id ?? null]);
    if (!ctx.seen.has(key)) ctx.seen.add(key);
    else if (effects.length > 0 && fault.is('flaky-duplicates')) effects = [];
  }
  if (ctx.seen && effects.some((e) => e.type === 'deny')) {
    const tool = isObject(event.tool) ? event.tool : {};
    const call = JSON.stringify(['denied', tool.name ?? null, tool.input ?? null]);
    const delivery = JSON.stringify([
      'denied',
      tool.name ?? null,
      tool.input ?? null,
      event.source ?? null,
      event.id ?? null,
    ]);
    // The same event again (a duplicate) is answered alike; another event for the same call is let through.
    if (ctx.seen.has(call) && !ctx.seen.has(delivery) && fault.is('deny-once')) effects = [];
    else ctx.seen.add(call).add(delivery);
  }
  if (effects.length === 0 && event.type === 'tool.before' && fault.is('effects-not-array')) return {};
  return effects;
}

/** family-fallback: the first interceptable event of the type's family ("tool.x" -> tool.before). */
function familyFallback(type: string): ReturnType<typeof eventSpec> {
  const family = type.split('.')[0];
  const known = EVENT_TYPES.map((t) => eventSpec(t)).find(
    (s) => s !== undefined && s.interceptable && s.type.split('.')[0] === family,
  );
  return known;
}

/** One proposal as the backend sends it, with the effect-level faults applied. */
function shape(p: Proposal, ctx: HandlerContext): JsonObject {
  const effect: JsonObject = { ...p.effect };
  const { fault } = ctx;
  if (effect.type === 'deny') {
    if (fault.is('deny-empty-reason')) effect.reason = '';
    if (fault.is('deny-code-not-reverse-dns')) {
      effect.code = typeof effect.code === 'string' ? (effect.code.split('.').pop() ?? '') : 'dangerous_delete';
    }
  }
  if (effect.type === 'modify' && effect.target === 'input' && p.patch && fault.is('modify-wrong-shape')) {
    effect.value = Object.entries(p.patch)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(',');
  }
  return effect;
}

/** Advertised: the type is in capabilities.effects and, for modify, the target's operation is true. */
function advertised(effect: JsonObject, capabilities: unknown): boolean {
  if (!isObject(capabilities) || !Array.isArray(capabilities.effects)) return false;
  if (typeof effect.type !== 'string' || !capabilities.effects.includes(effect.type)) return false;
  if (effect.type !== 'modify') return true;
  const modify = capabilities.modify;
  if (!isObject(modify) || typeof effect.target !== 'string' || typeof effect.operation !== 'string') return false;
  const target = modify[effect.target];
  return isObject(target) && target[effect.operation] === true;
}

// ---------------------------------------------------------------- reject-unknown-fields

const MESSAGE_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_MEMBERS = new Set(['protocolVersion', 'event', 'capabilities', 'extensions', 'state']);
const eventMembers = new Map<string, Set<string>>();

let eventDefs: Record<string, { properties?: Record<string, unknown> }> | undefined;

/**
 * Members the event schema declares for a type, plus the seed's `harness` metadata. Every
 * interceptable request is judged so (the reject-unknown-fields fault is asked only where a
 * member is unknown), so only the event document is built, once per process.
 */
function knownEventMembers(type: string): Set<string> {
  let known = eventMembers.get(type);
  if (!known) {
    eventDefs ??= (eventSchema(OLDEST_RULES) as { $defs?: Record<string, { properties?: Record<string, unknown> }> })
      .$defs;
    const defs = eventDefs;
    known = new Set([...Object.keys(defs?.[type]?.properties ?? {}), 'harness']);
    eventMembers.set(type, known);
  }
  return known;
}

function unknownMemberAt(
  msg: Record<string, unknown>,
  params: Record<string, unknown>,
  event: Record<string, unknown>,
  type: string,
): string | undefined {
  if (Object.keys(msg).some((k) => !MESSAGE_MEMBERS.has(k))) return 'the message';
  if (Object.keys(params).some((k) => !PARAMS_MEMBERS.has(k))) return 'params';
  const known = knownEventMembers(type);
  if (Object.keys(event).some((k) => !known.has(k))) return 'params.event';
  return undefined;
}

// ---------------------------------------------------------------- reject-unknown-nested

const SESSION_MEMBERS = new Set(['id', 'cwd', 'workspaceRoots', 'model', 'agent', 'synthesized']);
const CAPABILITY_MEMBERS = new Set(['effects', 'modify', 'flow', 'inject', 'elicitation', 'continuation']);
const MODIFY_OPERATIONS = new Set(['replace', 'merge']);

/** The first nested open object (capabilities, a modify target, the session) holding a member this fault does not know. */
function unknownNestedMemberAt(params: Record<string, unknown>, event: Record<string, unknown>): string | undefined {
  const caps = params.capabilities;
  if (isObject(caps)) {
    if (Object.keys(caps).some((k) => !CAPABILITY_MEMBERS.has(k))) return 'params.capabilities';
    if (isObject(caps.modify)) {
      for (const [target, ops] of Object.entries(caps.modify)) {
        if (isObject(ops) && Object.keys(ops).some((k) => !MODIFY_OPERATIONS.has(k)))
          return `params.capabilities.modify.${target}`;
      }
    }
  }
  if (isObject(event.session) && Object.keys(event.session).some((k) => !SESSION_MEMBERS.has(k)))
    return 'params.event.session';
  return undefined;
}

// ---------------------------------------------------------------- warm-up

/**
 * The structure this backend relies on, checked by hand. Full schema validation of every
 * request is the harness's and the runner's job; a backend answering invalid params with
 * an error is a SHOULD, and a hand check keeps a per_event process fast to start (no
 * schema compilation on its one message). Returns the JSON Pointer of the first problem.
 */
function structuralProblem(
  msg: Record<string, unknown>,
  params: Record<string, unknown>,
  event: unknown,
  rules: { readonly harnessOnEveryEvent: boolean },
): string | undefined {
  const str = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
  if (!isObject(event)) return '/params/event';
  for (const member of ['id', 'source', 'type', 'time'] as const)
    if (!str(event[member])) return `/params/event/${member}`;
  if (rules.harnessOnEveryEvent) {
    const h = event.harness;
    if (!isObject(h) || !str(h.name) || !str(h.version)) return '/params/event/harness';
  }
  if (msg.method === METHODS.intercept) {
    if (msg.id !== event.id) return '/id';
    const caps = params.capabilities;
    if (!isObject(caps) || !Array.isArray(caps.effects) || !caps.effects.every((e) => typeof e === 'string'))
      return '/params/capabilities';
  }
  if (event.type === 'tool.before' || event.type === 'tool.after') {
    if (!isObject(event.call) || !str(event.call.id)) return '/params/event/call';
    if (!isObject(event.tool) || !str(event.tool.name) || !isObject(event.tool.input)) return '/params/event/tool';
    if (!str(event.path)) return '/params/event/path';
  }
  return undefined;
}

// ---------------------------------------------------------------- replies

function errorReply(id: Id | null, error: RpcError): Reply {
  const body: JsonObject = { code: error.code, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  return { jsonrpc: '2.0', id, error: body };
}

function successReply(id: Id, effects: JsonValue, ctx: HandlerContext): Reply {
  const result: JsonObject = { protocolVersion: PROTOCOL_VERSION, effects };
  const { fault } = ctx;
  if (fault.is('no-result-version')) delete result.protocolVersion;
  if (Array.isArray(effects) && effects.length === 0 && fault.is('omit-effects')) delete result.effects;
  if (fault.is('result-configuration')) result.configuration = configurationOf(ctx.policy);
  if (ctx.authorization !== undefined && fault.is('echo-authorization')) {
    result.extensions = { 'com.example.debug': { authorization: ctx.authorization } };
  }
  // Envelope faults of one kind of reply only: the effect is valid, the reply as a whole is not.
  const holds = (type: string): boolean =>
    Array.isArray(effects) && effects.some((e) => isObject(e) && e.type === type);
  if (holds('deny') && fault.is('deny-wrong-version')) result.protocolVersion = '1999-01-01';
  if (ctx.counts) ctx.counts.successes++;
  if ((ctx.counts?.successes ?? 0) >= 20 && fault.is('wrong-id-late'))
    return { jsonrpc: '2.0', id: `${id}-late`, result };
  return {
    jsonrpc: holds('modify') && fault.is('modify-bad-jsonrpc') ? '1.0' : '2.0',
    id: fault.is('wrong-id') ? `${id}-reply` : id,
    result,
  };
}

// ---------------------------------------------------------------- hooks/configuration

/**
 * The reply to hooks/configuration (configuration-request.schema.json@1d98c19: params holds
 * protocolVersion only): the policy's subscriptions. Judged like an intercept's envelope:
 * params an object, else -32602; a supported version, else -32001.
 */
function configurationReply(id: Id, msg: Record<string, unknown>, ctx: HandlerContext): Reply {
  const params = msg.params;
  if (!isObject(params)) return errorReply(id, invalidParams('params must be an object'));
  if (params.protocolVersion !== PROTOCOL_VERSION) return errorReply(id, ERRORS.version);
  const configuration = ctx.fault.is('configuration-empty') ? { subscriptions: [] } : configurationOf(ctx.policy);
  const result: JsonObject = { protocolVersion: PROTOCOL_VERSION, configuration };
  if (ctx.fault.is('configuration-with-effects')) result.effects = [];
  return { jsonrpc: '2.0', id, result };
}
