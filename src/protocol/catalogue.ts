// The AHP `draft` catalogue: one table for events, effects, modify targets and the
// capability rules that tie them together. The JSON Schemas in schemas/<snapshot>, the
// validator, the edit engine and the suites all derive from this file.
//
// Facts come from the upstream `draft` snapshot (commit 2b5da580) as digested in
// ../shared/spec-notes and checked against ../shared/ahp-spec. Where upstream versions
// disagree, the newest draft wins; see schemas/README.md for the recorded choices.

export const PROTOCOL_VERSION = 'draft' as const;

export const EFFECT_TYPES = ['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'] as const;
export type EffectType = (typeof EFFECT_TYPES)[number];

export const MODIFY_TARGETS = [
  'input',
  'output',
  'prompt',
  'request',
  'response',
  'content',
  'instructions',
  'summary',
  'workspace',
] as const;
export type ModifyTarget = (typeof MODIFY_TARGETS)[number];

export const MODIFY_OPERATIONS = ['replace', 'merge'] as const;

export const FLOW_OPERATIONS = ['stop', 'continue'] as const;
export type FlowOperation = (typeof FLOW_OPERATIONS)[number];

/**
 * Value family of each modify target. `content` is a message list everywhere except
 * at `user.elicitation.result`, where it is the parsed MCP answer object; the effect
 * schema therefore admits both and the edit engine resolves the boundary.
 */
export type TargetFamily = 'messages' | 'text-parts' | 'object' | 'messages-or-object';
export const TARGET_FAMILY: Record<ModifyTarget, TargetFamily> = {
  input: 'object',
  workspace: 'object',
  output: 'messages',
  prompt: 'messages',
  request: 'messages',
  response: 'messages',
  content: 'messages-or-object',
  instructions: 'text-parts',
  summary: 'text-parts',
};

export type EventCategory =
  'tool' | 'session' | 'turn' | 'model' | 'context' | 'config' | 'task' | 'workspace' | 'user' | 'meta';

/** Which shared envelope an event uses: execution events close their `turn` reference. */
export type EnvelopeStyle = 'open-turn' | 'closed-turn';

export interface EventSpec {
  readonly type: string;
  readonly category: EventCategory;
  /** Valid as a `hooks/intercept` event (else observe-only). */
  readonly interceptable: boolean;
  /** Effects a harness may advertise at this boundary (empty for observe-only events). */
  readonly effects: readonly EffectType[];
  /** Modify targets at this boundary. */
  readonly modifyTargets: readonly ModifyTarget[];
  /** Flow operations at this boundary. */
  readonly flowOperations: readonly FlowOperation[];
  /** Element type of the envelope's `items`: canonical messages or generic parts. */
  readonly items: 'messages' | 'parts';
  readonly envelope: EnvelopeStyle;
}

const ev = (
  type: string,
  category: EventCategory,
  items: 'messages' | 'parts',
  envelope: EnvelopeStyle,
  control?: { effects: EffectType[]; modify?: ModifyTarget[]; flow?: FlowOperation[] },
): EventSpec => ({
  type,
  category,
  interceptable: control !== undefined,
  effects: control?.effects ?? [],
  modifyTargets: control?.modify ?? [],
  flowOperations: control?.flow ?? [],
  items,
  envelope,
});

// Order follows the upstream event union so generated unions read the same way.
export const EVENTS: readonly EventSpec[] = [
  ev('tool.before', 'tool', 'parts', 'open-turn', {
    effects: ['deny', 'allow', 'ask', 'modify', 'inject', 'flow', 'return', 'message'],
    modify: ['input'],
    flow: ['stop'],
  }),
  ev('tool.after', 'tool', 'messages', 'open-turn', {
    effects: ['modify', 'inject', 'flow', 'message'],
    modify: ['output'],
    flow: ['stop', 'continue'],
  }),
  ev('session.start', 'session', 'messages', 'open-turn', { effects: ['inject', 'message'] }),
  ev('session.end', 'session', 'parts', 'open-turn'),
  ev('config.change.before', 'config', 'parts', 'open-turn', { effects: ['deny', 'message'] }),
  ev('config.change.after', 'config', 'parts', 'open-turn'),
  ev('turn.start', 'turn', 'messages', 'closed-turn', {
    effects: ['deny', 'modify', 'inject', 'flow', 'message'],
    modify: ['prompt'],
    flow: ['stop'],
  }),
  ev('turn.finish.before', 'turn', 'messages', 'closed-turn', {
    effects: ['modify', 'flow', 'message'],
    modify: ['response'],
    flow: ['stop', 'continue'],
  }),
  ev('turn.end', 'turn', 'messages', 'closed-turn'),
  ev('turn.progress', 'turn', 'parts', 'closed-turn'),
  ev('model.request.before', 'model', 'messages', 'closed-turn', {
    effects: ['deny', 'modify', 'inject', 'return', 'flow', 'message'],
    modify: ['request'],
    flow: ['stop'],
  }),
  ev('model.response.after', 'model', 'messages', 'closed-turn', {
    effects: ['modify', 'flow', 'message'],
    modify: ['response'],
    flow: ['stop'],
  }),
  ev('model.error', 'model', 'parts', 'closed-turn'),
  ev('model.switch.before', 'model', 'parts', 'closed-turn', { effects: ['deny', 'flow', 'message'], flow: ['stop'] }),
  ev('model.switch.after', 'model', 'parts', 'closed-turn'),
  ev('tool.permission.request', 'tool', 'parts', 'closed-turn', {
    effects: ['allow', 'deny', 'modify', 'flow', 'message'],
    modify: ['input'],
    flow: ['stop'],
  }),
  ev('tool.permission.resolved', 'tool', 'parts', 'closed-turn'),
  ev('tool.progress', 'tool', 'parts', 'closed-turn'),
  ev('tool.batch.after', 'tool', 'parts', 'closed-turn', { effects: ['flow', 'inject', 'message'], flow: ['stop'] }),
  ev('context.compact.before', 'context', 'messages', 'closed-turn', {
    effects: ['deny', 'modify', 'return', 'inject', 'message'],
    modify: ['instructions'],
  }),
  ev('context.compact.after', 'context', 'messages', 'closed-turn', {
    effects: ['inject', 'modify', 'message'],
    modify: ['summary'],
  }),
  ev('task.change.before', 'task', 'parts', 'open-turn', { effects: ['deny', 'message'] }),
  ev('task.change.after', 'task', 'parts', 'open-turn'),
  ev('user.attention', 'user', 'parts', 'open-turn'),
  ev('user.elicitation.request', 'user', 'parts', 'open-turn', { effects: ['deny', 'return', 'message'] }),
  ev('user.elicitation.result', 'user', 'parts', 'open-turn', { effects: ['modify', 'message'], modify: ['content'] }),
  ev('user.message.inbound', 'user', 'parts', 'open-turn', {
    effects: ['deny', 'modify', 'message'],
    modify: ['prompt'],
  }),
  ev('user.message.outbound', 'user', 'parts', 'open-turn', {
    effects: ['deny', 'modify', 'message'],
    modify: ['content'],
  }),
  ev('workspace.change.before', 'workspace', 'parts', 'open-turn', {
    effects: ['deny', 'modify', 'message'],
    modify: ['workspace'],
  }),
  ev('workspace.change.after', 'workspace', 'parts', 'open-turn'),
  ev('file.changed', 'workspace', 'parts', 'open-turn'),
  ev('hook.failure', 'meta', 'parts', 'open-turn'),
];

export const EVENT_TYPES: readonly string[] = EVENTS.map((e) => e.type);
export const INTERCEPTABLE_EVENTS: readonly EventSpec[] = EVENTS.filter((e) => e.interceptable);
const byType = new Map(EVENTS.map((e) => [e.type, e]));
export function eventSpec(type: string): EventSpec | undefined {
  return byType.get(type);
}

/** Where `return` may appear and where `continue` may: derived, kept for readers and tests. */
export const RETURN_EVENTS = EVENTS.filter((e) => e.effects.includes('return')).map((e) => e.type);
export const CONTINUE_EVENTS = EVENTS.filter((e) => e.flowOperations.includes('continue')).map((e) => e.type);

/** JSON-RPC methods of AHP. */
export const METHODS = {
  intercept: 'hooks/intercept',
  observe: 'hooks/observe',
  capabilities: 'hooks/capabilities',
  /** Only in snapshots with `rules.configuration` (draft@1d98c19). */
  configuration: 'hooks/configuration',
} as const;

/** AHP-reserved JSON-RPC server error codes. */
export const ERROR_CODES = {
  unsupportedProtocolVersion: -32001,
  unsupportedEvent: -32002,
  backendUnavailable: -32003,
  backendInternalError: -32004,
} as const;

/** Reverse-DNS names for extension keys, deny codes and backend ids (upper case allowed). */
export const REVERSE_DNS_PATTERN = '^(?:[A-Za-z][A-Za-z0-9_-]*\\.)+[A-Za-z][A-Za-z0-9_-]*$';

/** Whole-family (`tool.*`) or everything (`*`) subscription selectors. */
export const EVENT_WILDCARD_PATTERN = '^(?:\\*|[a-z][a-z0-9]*\\.\\*)$';

export const CONTENT_SELECTION_MODES = ['body', 'metadata', 'omit'] as const;

/**
 * The portable endpoint authentication mechanisms (AHP-AUTH-001): what a registration may
 * bind a hook to, and what a harness manifest's `authentication` lists as supported.
 */
export const AUTH_MECHANISMS = ['bearer', 'oauth'] as const;
export type AuthMechanism = (typeof AUTH_MECHANISMS)[number];
export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
