// The reference backend's message handler, shared by both transports: one incoming
// message (text or raw bytes) in, the reply to send (or null for none) out. It keeps no
// state of its own; the only memory is `ctx.seen` and `ctx.counts`, used by the faults
// that carry state across requests (flaky-duplicates, duplicate-*, deny-once, wrong-id-late).
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
import { wireSchemas } from '../../src/protocol/schema-build/index.js';
import { OLDEST_SNAPSHOT, snapshotOf, type SnapshotId } from '../../src/protocol/snapshots.js';
import { configurationOf } from './configuration.js';
import type { FaultMode } from './faults.js';
import { matchRule, proposals, type Policy, type Proposal } from './policy.js';
import { contentEffects } from './content.js';
import { isBoundaryEvent } from '../../src/checks/boundaries.js';

export interface HandlerContext {
  readonly policy: Policy;
  readonly fault?: FaultMode | undefined;
  /** Event keys already answered (flaky-duplicates, duplicate-*, deny-once only); one set per process. */
  readonly seen?: Set<string>;
  /** Success replies sent so far by this process (wrong-id-late only). */
  readonly counts?: { successes: number };
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

/** The reply object for one incoming message, or null when nothing is to be sent. */
export function respond(input: string | Uint8Array, ctx: HandlerContext): Reply | null {
  const reply = dispatch(input, ctx);
  if (reply !== null && ctx.fault === 'no-jsonrpc-member') delete reply.jsonrpc;
  if (reply !== null && ctx.fault === 'integer-id-as-string' && typeof reply.id === 'number')
    reply.id = String(reply.id);
  if (
    reply !== null &&
    ctx.fault === 'error-no-message' &&
    isObject(reply.error) &&
    reply.error.code === RPC_CODES.methodNotFound
  )
    delete reply.error.message;
  return reply;
}

function dispatch(input: string | Uint8Array, ctx: HandlerContext): Reply | null {
  const parsed = typeof input === 'string' ? parseJsonStrict(input) : parseJsonBytes(input);
  if (!parsed.ok) return errorReply(ctx.fault === 'parse-error-with-id' ? 0 : null, ERRORS.parse);
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
    ctx.fault === 'configuration-unoffered-wrong-code'
  )
    return errorReply(id, ERRORS.invalidRequest);
  if (msg.method !== METHODS.intercept) {
    if (ctx.fault === 'unknown-method-result') return successReply(id, [], ctx);
    return errorReply(id, ERRORS.methodNotFound);
  }
  const verdict = judgeIntercept(msg, ctx);
  if ('error' in verdict) return errorReply(id, verdict.error);
  if (
    (ctx.fault === 'duplicate-error' || ctx.fault === 'duplicate-silent') &&
    ctx.seen &&
    isObject((msg.params as Record<string, unknown>).event)
  ) {
    const event = (msg.params as { event: Record<string, unknown> }).event;
    const key = JSON.stringify(['delivered', event.source ?? null, event.id ?? null]);
    if (ctx.seen.has(key))
      return ctx.fault === 'duplicate-error'
        ? errorReply(id, { code: RPC_CODES.invalidRequest, message: 'duplicate event' })
        : null;
    ctx.seen.add(key);
  }
  return successReply(id, verdict.effects, ctx);
}

// ---------------------------------------------------------------- notifications

/** Notifications are never answered; two faults break exactly that. */
function notification(msg: Record<string, unknown>, ctx: HandlerContext): Reply | null {
  if (ctx.fault === 'ack-observe' && isValidObservation(msg)) {
    return { jsonrpc: '2.0', id: null, result: { protocolVersion: PROTOCOL_VERSION, effects: [] } };
  }
  if (ctx.fault === 'reply-to-bad-notifications') {
    const error = notificationError(msg, ctx);
    if (error) return errorReply(null, error);
  }
  if (ctx.fault === 'reply-to-malformed-notifications') {
    const problem = malformedNotification(msg);
    if (problem) return errorReply(null, invalidParams(`malformed notification at ${problem}`));
  }
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

/** The error a notification would get as a request, limited to version, event and method. */
function notificationError(msg: Record<string, unknown>, ctx: HandlerContext): RpcError | undefined {
  if (msg.method === METHODS.intercept) {
    const verdict = judgeIntercept(msg, ctx);
    if ('error' in verdict && (verdict.error.code === ERRORS.version.code || verdict.error.code === ERRORS.event.code))
      return verdict.error;
    return undefined;
  }
  if (msg.method !== METHODS.observe) return ERRORS.methodNotFound;
  if (!isObject(msg.params)) return undefined;
  if (msg.params.protocolVersion !== PROTOCOL_VERSION) return ERRORS.version;
  const event = msg.params.event;
  if (isObject(event) && (typeof event.type !== 'string' || !EVENT_TYPES.includes(event.type))) return ERRORS.event;
  return undefined;
}

// ---------------------------------------------------------------- hooks/intercept

function judgeIntercept(msg: Record<string, unknown>, ctx: HandlerContext): Verdict {
  const lenient = ctx.fault === 'lenient-params';
  const params = msg.params;
  if (!isObject(params)) return lenient ? { effects: [] } : { error: invalidParams('params must be an object') };
  if (ctx.fault !== 'accept-any-version' && params.protocolVersion !== PROTOCOL_VERSION)
    return { error: ERRORS.version };
  const event = params.event;
  if (!isObject(event)) return lenient ? { effects: [] } : { error: invalidParams('params.event must be an object') };
  let spec = typeof event.type === 'string' ? eventSpec(event.type) : undefined;
  if (!spec && ctx.fault === 'family-fallback' && typeof event.type === 'string') spec = familyFallback(event.type);
  if (!spec || !spec.interceptable) {
    return { error: ctx.fault === 'unknown-event-wrong-code' ? ERRORS.invalidRequest : ERRORS.event };
  }
  if (ctx.fault === 'reject-unknown-fields') {
    const where = unknownMemberAt(msg, params, event, spec.type);
    if (where) return { error: invalidParams(`unknown member in ${where}`) };
  }
  if (ctx.fault === 'reject-unknown-nested') {
    const where = unknownNestedMemberAt(params, event);
    if (where) return { error: invalidParams(`unknown member in ${where}`) };
  }
  // Under accept-any-version the version is judged as if it said "draft".
  const judged =
    ctx.fault === 'accept-any-version' ? { ...msg, params: { ...params, protocolVersion: PROTOCOL_VERSION } } : msg;
  const problem = structuralProblem(judged, judged.params as Record<string, unknown>, event, rulesOf(ctx));
  if (problem) {
    if (lenient) return { effects: [] };
    // Only the location: never quote request values back.
    return { error: invalidParams('the request is not a valid hooks/intercept request', { path: problem }) };
  }
  return { effects: decide(event, params.capabilities, ctx) };
}

/** The policy's decision for a valid request, kept to what the request advertises. */
function decide(event: Record<string, unknown>, capabilities: unknown, ctx: HandlerContext): JsonValue {
  const rule = matchRule(ctx.policy, event);
  // Content boundaries: the edit (and the content faults) keep to the view and advertisement themselves.
  if (typeof event.type === 'string' && isBoundaryEvent(event.type) && !rule?.deny)
    return contentEffects(event as JsonObject, capabilities, rule?.editContent, ctx.fault);
  const offered = rule ? proposals(rule, event).map((p) => shape(p, ctx)) : [];
  let effects = offered.filter((e) => advertised(e, capabilities)).slice(0, 1);
  // The fault sends the policy's preferred effect where the advertisement rules all out.
  if (ctx.fault === 'ignore-capabilities' && effects.length === 0) effects = offered.slice(0, 1);
  if (ctx.fault === 'flaky-duplicates' && ctx.seen) {
    const key = JSON.stringify([event.source ?? null, event.id ?? null]);
    if (ctx.seen.has(key)) effects = [];
    else ctx.seen.add(key);
  }
  if (ctx.fault === 'deny-once' && ctx.seen && effects.some((e) => e.type === 'deny')) {
    const tool = isObject(event.tool) ? event.tool : {};
    const call = JSON.stringify(['deny-once', tool.name ?? null, tool.input ?? null]);
    const delivery = JSON.stringify([
      'deny-once',
      tool.name ?? null,
      tool.input ?? null,
      event.source ?? null,
      event.id ?? null,
    ]);
    // The same event again (a duplicate) is answered alike; another event for the same call is let through.
    if (ctx.seen.has(call) && !ctx.seen.has(delivery)) effects = [];
    else ctx.seen.add(call).add(delivery);
  }
  if (ctx.fault === 'effects-not-array' && effects.length === 0 && event.type === 'tool.before') return {};
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
  if (effect.type === 'deny') {
    if (ctx.fault === 'deny-empty-reason') effect.reason = '';
    if (ctx.fault === 'deny-code-not-reverse-dns') {
      effect.code = typeof effect.code === 'string' ? (effect.code.split('.').pop() ?? '') : 'dangerous_delete';
    }
  }
  if (effect.type === 'modify' && effect.target === 'input' && ctx.fault === 'modify-wrong-shape' && p.patch) {
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

/** Members the event schema declares for a type, plus the seed's `harness` metadata. */
function knownEventMembers(type: string): Set<string> {
  let known = eventMembers.get(type);
  if (!known) {
    const defs = (
      wireSchemas()['event.schema.json'] as { $defs?: Record<string, { properties?: Record<string, unknown> }> }
    ).$defs;
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
  if (ctx.fault === 'no-result-version') delete result.protocolVersion;
  if (ctx.fault === 'omit-effects' && Array.isArray(effects) && effects.length === 0) delete result.effects;
  if (ctx.fault === 'result-configuration') result.configuration = configurationOf(ctx.policy);
  if (ctx.fault === 'echo-authorization' && ctx.authorization !== undefined) {
    result.extensions = { 'com.example.debug': { authorization: ctx.authorization } };
  }
  // Envelope faults of one kind of reply only: the effect is valid, the reply as a whole is not.
  const holds = (type: string): boolean =>
    Array.isArray(effects) && effects.some((e) => isObject(e) && e.type === type);
  if (ctx.fault === 'deny-wrong-version' && holds('deny')) result.protocolVersion = '1999-01-01';
  if (ctx.counts) ctx.counts.successes++;
  if (ctx.fault === 'wrong-id-late' && (ctx.counts?.successes ?? 0) >= 20)
    return { jsonrpc: '2.0', id: `${id}-late`, result };
  return {
    jsonrpc: ctx.fault === 'modify-bad-jsonrpc' && holds('modify') ? '1.0' : '2.0',
    id: ctx.fault === 'wrong-id' ? `${id}-reply` : id,
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
  const configuration = ctx.fault === 'configuration-empty' ? { subscriptions: [] } : configurationOf(ctx.policy);
  const result: JsonObject = { protocolVersion: PROTOCOL_VERSION, configuration };
  if (ctx.fault === 'configuration-with-effects') result.effects = [];
  return { jsonrpc: '2.0', id, result };
}
