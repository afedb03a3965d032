// The common event envelope and the payload of each event type.
// Envelopes are open (unknown top-level members are tolerated); nested protocol
// payload objects are closed.
import { EVENTS, type EventSpec } from '../catalogue.js';
import {
  any,
  anyObject,
  array,
  bool,
  constant,
  dateTime,
  document,
  forbid,
  int,
  nonEmpty,
  num,
  object,
  oneOfValues,
  pattern,
  ref,
  str,
  uri,
  whenMember,
  type Schema,
} from './dsl.js';
import type { SnapshotRules } from '../snapshots.js';

const C = 'content.schema.json#/$defs/';
const msg = (): Schema => ref(`${C}message`);
const messages = (): Schema => ref(`${C}messages`);
const textParts = (): Schema => ref(`${C}textParts`);
const textPart = (): Schema => ref(`${C}textPart`);
const contentPart = (): Schema => ref(`${C}part`);
const d = (name: string): Schema => ref(`#/$defs/${name}`);

/** `{id, synthesized?}` identity references (call, turn item, resumedFrom, ...). */
const identity = (closed = true): Schema =>
  object({ id: nonEmpty(), synthesized: bool() }, { required: ['id'], closed });

const gapList = (closedEntries: boolean, minItems?: number): Schema =>
  array(
    object({ path: nonEmpty(), reason: nonEmpty() }, { required: ['path', 'reason'], closed: closedEntries }),
    minItems === undefined ? {} : { minItems },
  );

const OUTCOMES = ['ok', 'error', 'denied', 'cancelled', 'timeout'];
const TURN_OUTCOMES = ['completed', 'failed', 'cancelled', 'max_iterations'];

/** Shared sub-objects of events. */
function sharedDefs(rules: SnapshotRules): Record<string, Schema> {
  const skipped = (reason: string, detail: boolean): Schema =>
    object(
      { status: constant('skipped'), reason: constant(reason), ...(detail ? { detail: nonEmpty() } : {}) },
      {
        required: ['status', 'reason'],
        closed: true,
      },
    );
  // A connection descriptor member may be replaced by a gap entry naming it.
  const presentOrGap = (member: string): Schema => ({
    anyOf: [
      { required: [member] },
      {
        required: ['gaps'],
        properties: { gaps: { contains: { required: ['path'], properties: { path: constant(member) } } } },
      },
    ],
  });
  const connection = (transport: Schema, members: Record<string, Schema>): Schema =>
    object(
      { transport, ...members, gaps: gapList(true, 1) },
      {
        required: ['transport'],
        closed: true,
        extra: { allOf: Object.keys(members).map(presentOrGap) },
      },
    );
  const httpUrl = (): Schema => str({ format: 'uri', pattern: '^https?://' });
  const usageBase = object(
    {
      kind: oneOfValues(['amount', 'total']),
      scope: oneOfValues(['attempt', 'turn']),
      completeness: oneOfValues(['complete', 'partial', 'unknown']),
      provenance: oneOfValues(['provider', 'estimate', 'mixed']),
      inputTokens: int(0),
      outputTokens: int(0),
      cacheReadTokens: int(0),
      cacheWriteTokens: int(0),
      cost: object(
        { amount: num(0), currency: pattern('^[A-Z]{3}$'), basis: oneOfValues(['billed', 'reported', 'estimated']) },
        {
          required: ['amount', 'currency', 'basis'],
          closed: true,
        },
      ),
    },
    { required: ['kind', 'scope', 'completeness', 'provenance'], closed: true },
  );
  const workspaceState = object(
    { cwd: nonEmpty(), workspaceRoots: array(nonEmpty(), { unique: true }) },
    {
      closed: true,
      extra: { minProperties: 1 },
    },
  );
  return {
    session: object(
      {
        id: nonEmpty(),
        cwd: str(),
        workspaceRoots: array(str()),
        model: str(),
        agent: object({ id: nonEmpty(), type: str() }, { required: ['id'] }),
        synthesized: bool(),
        // Host counters, each a non-negative integer; absent means unknown (common.schema.json@1d98c19 SessionCounters).
        ...(rules.sessionCounters ? { counters: { type: 'object', additionalProperties: int(0) } } : {}),
      },
      { required: ['id'] },
    ),
    harness: object({ name: nonEmpty(), version: nonEmpty() }, { required: ['name', 'version'], closed: true }),
    gaps: gapList(false),
    model: object({ id: nonEmpty(), provider: nonEmpty() }, { required: ['id', 'provider'], closed: true }),
    attempt: object(
      { id: nonEmpty(), number: int(1), synthesized: bool() },
      { required: ['id', 'number'], closed: true },
    ),
    error: object(
      {
        message: nonEmpty(),
        class: nonEmpty(),
        code: nonEmpty(),
        status: { oneOf: [nonEmpty(), int()] },
        native: any(),
      },
      { required: ['message', 'class'], closed: true },
    ),
    execution: {
      oneOf: [
        object({ status: constant('executed') }, { required: ['status'], closed: true }),
        // A supplied result (from `return`) carries no detail.
        skipped('supplied_result', false),
        ...['policy', 'cancelled', 'timeout', 'other'].map((r) => skipped(r, true)),
      ],
    },
    usage: usageBase,
    attemptUsage: {
      allOf: [
        d('usage'),
        {
          properties: {
            kind: constant('amount'),
            scope: constant('attempt'),
            provenance: oneOfValues(['provider', 'estimate']),
          },
        },
      ],
    },
    turnUsage: { allOf: [d('usage'), { properties: { kind: constant('total'), scope: constant('turn') } }] },
    mcp: object(
      {
        server: object({ id: nonEmpty(), name: nonEmpty() }, { required: ['id'], closed: true }),
        toolName: nonEmpty(),
        provenance: oneOfValues(['runtime', 'inferred']),
        connection: {
          oneOf: [
            connection(constant('http'), { url: httpUrl() }),
            connection(constant('sse'), { url: httpUrl() }),
            connection(constant('stdio'), { command: nonEmpty(), args: array(str()), cwd: nonEmpty() }),
            // Extension transports are named `_<name>` and describe their address generically.
            connection(pattern('^_.+'), { addressForm: nonEmpty(), address: nonEmpty() }),
          ],
        },
      },
      { required: ['server', 'toolName', 'provenance', 'connection'], closed: true },
    ),
    tool: object(
      { name: nonEmpty(), kind: nonEmpty(), input: anyObject(), origin: oneOfValues(['native', 'mcp']), mcp: d('mcp') },
      {
        required: ['name', 'input', 'origin'],
        closed: true,
        // `mcp` is present exactly when the tool comes from an MCP server.
        extra: { allOf: [whenMember('origin', ['mcp'], { required: ['mcp'] }, forbid('mcp'))] },
      },
    ),
    call: identity(),
    batch: object(
      { id: nonEmpty(), callIds: array(nonEmpty(), { minItems: 1, unique: true }), synthesized: bool() },
      {
        required: ['id', 'callIds'],
        closed: true,
      },
    ),
    fileChange: object(
      {
        path: nonEmpty(),
        change: oneOfValues(['created', 'modified', 'deleted', 'moved']),
        previousPath: nonEmpty(),
        before: contentPart(),
        after: contentPart(),
      },
      {
        required: ['path', 'change'],
        closed: true,
        extra: {
          allOf: [
            whenMember('change', ['moved'], { required: ['previousPath'] }),
            whenMember('change', ['created'], forbid('before')),
            whenMember('change', ['deleted'], forbid('after')),
          ],
        },
      },
    ),
    tokenCounts: object({ before: int(0), after: int(0) }, { closed: true }),
    workspaceState,
    workspaceChange: object(
      {
        kind: oneOfValues(['cwd', 'roots', 'switch']),
        change: d('workspaceState'),
        prior: d('workspaceState'),
        reason: str(),
      },
      { required: ['kind', 'change'], closed: true },
    ),
    task: object(
      {
        id: nonEmpty(),
        operation: oneOfValues(['create', 'update', 'remove']),
        change: anyObject(), // open: task fields are harness-specific
        prior: anyObject(),
        description: str(),
        synthesized: bool(),
      },
      { required: ['id', 'operation', 'change'], closed: true },
    ),
  };
}

interface Payload {
  required: string[];
  properties: Record<string, Schema>;
  rules?: Schema[];
}

/** Rules shared by events that settle an execution. */
const deniedMeansSkippedByPolicy = (): Schema =>
  whenMember('outcome', ['denied'], {
    properties: { execution: { properties: { status: constant('skipped'), reason: constant('policy') } } },
  });
const skipped = {
  required: ['execution'],
  properties: { execution: { required: ['status'], properties: { status: constant('skipped') } } },
};
const whenSkipped = (then: Schema): Schema => ({ if: skipped, then });

function payloads(): Record<string, Payload> {
  const toolCall = { call: d('call'), tool: d('tool'), path: nonEmpty(), batch: d('batch') };
  const turnSummary = {
    outcome: oneOfValues(TURN_OUTCOMES),
    lastAssistantItem: identity(),
    continuationCount: int(0),
    usage: d('turnUsage'),
  };
  const elicitationEnvelope = { server: nonEmpty(), mode: oneOfValues(['form', 'url']) };
  const configChange = (applied: boolean): Schema =>
    object(
      {
        source: nonEmpty(),
        scope: nonEmpty(),
        settings: array(nonEmpty()),
        summary: nonEmpty(),
        path: nonEmpty(),
        ...(applied ? { mcpServers: array(anyObject()) } : {}),
      },
      { required: ['source', 'scope', 'settings', 'summary'], closed: true },
    );
  const roleMessages = (role: string): Schema => array({ allOf: [msg(), { properties: { role: constant(role) } }] });
  return {
    'tool.before': {
      required: ['call', 'tool', 'path'],
      properties: toolCall,
      rules: [forbid('outcome', 'execution', 'durationMs', 'fileChanges')],
    },
    'tool.after': {
      required: ['outcome', 'execution', 'call', 'tool', 'path', 'items'],
      properties: {
        outcome: oneOfValues(OUTCOMES),
        execution: d('execution'),
        ...toolCall,
        error: d('error'),
        durationMs: num(0),
        fileChanges: array(d('fileChange')),
      },
      rules: [
        // `error` accompanies exactly the error outcome.
        whenMember('outcome', ['error'], { required: ['error'] }, forbid('error')),
        deniedMeansSkippedByPolicy(),
        whenMember('outcome', ['denied', 'cancelled', 'timeout'], { properties: { tool: forbid('output') } }),
        whenSkipped(forbid('durationMs', 'fileChanges')),
      ],
    },
    'session.start': {
      required: ['session', 'trigger', 'harness', 'permissionMode', 'manifest', 'items'],
      properties: {
        trigger: oneOfValues(['startup', 'resume', 'clear', 'compact', 'fork']),
        resumedFrom: identity(),
        permissionMode: nonEmpty(),
        harness: d('harness'),
        manifest: ref('manifest.schema.json'),
      },
      rules: [forbid('tool', 'outcome'), whenMember('trigger', ['clear', 'fork'], { required: ['resumedFrom'] })],
    },
    'session.end': {
      required: ['session', 'outcome', 'reason'],
      properties: {
        outcome: oneOfValues(['completed', 'cancelled', 'error', 'unknown']),
        reason: nonEmpty(),
        counters: { type: 'object', additionalProperties: int(0) },
      },
      rules: [forbid('tool')],
    },
    'config.change.before': { required: ['change'], properties: { change: configChange(false) } },
    // An applied change may also report the MCP servers it brought up.
    'config.change.after': { required: ['change'], properties: { change: configChange(true) } },
    'turn.start': {
      required: ['turn', 'trigger', 'items'],
      properties: { trigger: oneOfValues(['user', 'continuation', 'hook', 'external']), expandedFrom: nonEmpty() },
    },
    'turn.finish.before': { required: ['turn', 'outcome', 'continuationCount', 'items'], properties: turnSummary },
    'turn.end': {
      required: ['turn', 'outcome', 'continuationCount', 'items'],
      properties: { ...turnSummary, error: d('error') },
      rules: [whenMember('outcome', ['completed'], forbid('error'))],
    },
    'turn.progress': {
      required: ['turn', 'item', 'delta', 'final'],
      properties: { item: identity(), delta: msg(), final: bool() },
    },
    'model.request.before': {
      required: ['model', 'attempt', 'params', 'items'],
      properties: { model: d('model'), attempt: d('attempt'), params: anyObject() },
      rules: [forbid('usage', 'execution', 'finishReason', 'latencyMs', 'error')],
    },
    'model.response.after': {
      required: ['model', 'attempt', 'execution', 'items', 'finishReason'],
      properties: {
        model: d('model'),
        attempt: d('attempt'),
        execution: d('execution'),
        usage: d('attemptUsage'),
        finishReason: nonEmpty(),
        latencyMs: num(0),
      },
      rules: [
        forbid('error'),
        // A supplied response was not generated: no usage, no latency, and only `supplied_result`.
        whenSkipped(forbid('usage', 'latencyMs')),
        whenSkipped({ properties: { execution: { properties: { reason: constant('supplied_result') } } } }),
      ],
    },
    'model.error': {
      required: ['model', 'attempt', 'execution', 'error'],
      properties: {
        model: d('model'),
        attempt: d('attempt'),
        execution: { allOf: [d('execution'), { properties: { status: constant('executed') } }] },
        error: d('error'),
        usage: d('attemptUsage'),
        latencyMs: num(0),
        recovery: nonEmpty(),
      },
      rules: [forbid('finishReason')],
    },
    'model.switch.before': {
      required: ['current', 'proposed', 'reason'],
      properties: {
        current: d('model'),
        proposed: d('model'),
        reason: nonEmpty(),
        pricing: object(
          { currency: pattern('^[A-Z]{3}$'), inputPerMillionTokens: num(0), outputPerMillionTokens: num(0) },
          { required: ['currency'], closed: true },
        ),
      },
      rules: [forbid('previous')],
    },
    'model.switch.after': {
      required: ['previous', 'current', 'reason'],
      properties: { previous: d('model'), current: d('model'), reason: nonEmpty() },
      rules: [forbid('proposed')],
    },
    'tool.permission.request': {
      required: ['call', 'tool', 'path', 'suggestions', 'sandboxBypass'],
      properties: { ...toolCall, suggestions: array(anyObject()), sandboxBypass: bool() },
      rules: [forbid('decision', 'decidedBy', 'outcome', 'execution')],
    },
    'tool.permission.resolved': {
      required: ['call', 'tool', 'path', 'decision', 'decidedBy'],
      properties: {
        ...toolCall,
        decision: oneOfValues(['allow', 'deny']),
        decidedBy: oneOfValues(['user', 'policy', 'hook', 'auto', 'classifier']),
      },
    },
    'tool.progress': {
      required: ['call', 'tool', 'path', 'partialOutput', 'backgrounded'],
      properties: { ...toolCall, partialOutput: msg(), backgrounded: bool() },
      rules: [forbid('outcome', 'execution')],
    },
    'tool.batch.after': {
      required: ['batch', 'calls'],
      properties: {
        batch: identity(),
        calls: array(
          object(
            { ...toolCall, outcome: oneOfValues(OUTCOMES), execution: d('execution') },
            {
              required: ['call', 'tool', 'path', 'outcome', 'execution'],
              closed: true,
              extra: { allOf: [deniedMeansSkippedByPolicy()] },
            },
          ),
          { minItems: 1 },
        ),
      },
    },
    'context.compact.before': {
      required: ['trigger', 'items'],
      properties: {
        trigger: oneOfValues(['auto', 'manual', 'hook']),
        instructions: textParts(),
        // The after-count does not exist yet before compaction.
        tokenCounts: { allOf: [d('tokenCounts'), forbid('after')] },
      },
      rules: [forbid('summary', 'removed', 'execution')],
    },
    'context.compact.after': {
      required: ['summary', 'removed', 'execution'],
      properties: {
        summary: textParts(),
        removed: array(object({ id: nonEmpty() }, { required: ['id'], closed: true })),
        tokenCounts: d('tokenCounts'),
        execution: d('execution'),
      },
      rules: [whenSkipped({ properties: { execution: { properties: { reason: constant('supplied_result') } } } })],
    },
    'task.change.before': { required: ['task'], properties: { task: d('task') } },
    'task.change.after': { required: ['task'], properties: { task: d('task') } },
    'user.attention': {
      required: ['attention'],
      properties: {
        attention: object(
          { kind: nonEmpty(), message: textParts(), title: textParts() },
          {
            required: ['kind', 'message', 'title'],
            closed: true,
          },
        ),
      },
    },
    'user.elicitation.request': {
      required: ['elicitation'],
      properties: {
        elicitation: object(
          { ...elicitationEnvelope, request: textPart() },
          { required: ['server', 'mode'], closed: true },
        ),
      },
    },
    'user.elicitation.result': {
      required: ['elicitation'],
      properties: {
        elicitation: object(
          { ...elicitationEnvelope, action: oneOfValues(['accept', 'decline', 'cancel']), result: textPart() },
          {
            required: ['server', 'mode', 'action'],
            closed: true,
          },
        ),
      },
    },
    'user.message.inbound': {
      required: ['message'],
      properties: {
        message: object(
          { channel: nonEmpty(), sender: nonEmpty(), messages: roleMessages('user') },
          {
            required: ['channel', 'sender', 'messages'],
            closed: true,
          },
        ),
      },
    },
    'user.message.outbound': {
      required: ['message'],
      properties: {
        message: object(
          { channel: nonEmpty(), messages: roleMessages('assistant') },
          {
            required: ['channel', 'messages'],
            closed: true,
          },
        ),
      },
    },
    'workspace.change.before': { required: ['workspace'], properties: { workspace: d('workspaceChange') } },
    'workspace.change.after': { required: ['workspace'], properties: { workspace: d('workspaceChange') } },
    'file.changed': {
      required: ['changes'],
      properties: {
        changes: array(
          object(
            {
              path: nonEmpty(),
              operation: oneOfValues(['create', 'update', 'remove']),
              agentCaused: bool(),
              before: contentPart(),
              after: contentPart(),
            },
            { required: ['path', 'operation', 'agentCaused'], closed: true },
          ),
          { minItems: 1 },
        ),
      },
    },
    'hook.failure': {
      required: ['failure', 'parentEventId'],
      properties: {
        failure: object(
          { backendId: nonEmpty(), reason: nonEmpty(), policy: oneOfValues(['fail-open', 'fail-closed']) },
          { required: ['backendId', 'reason', 'policy'], closed: true },
        ),
      },
    },
  };
}

function envelope(spec: EventSpec, rules: SnapshotRules): Record<string, Schema> {
  return {
    ...(rules.harnessOnEveryEvent ? { harness: d('harness') } : {}),
    id: nonEmpty(),
    source: uri(),
    type: constant(spec.type),
    time: dateTime(),
    session: d('session'),
    parentEventId: nonEmpty(),
    turn: identity(spec.envelope === 'closed-turn'),
    items: spec.items === 'messages' ? messages() : array(contentPart()),
    gaps: d('gaps'),
    native: any(), // opaque; sent only when local policy enables it
    extensions: ref('extensions.schema.json'),
    synthesized: bool(),
  };
}

export function eventSchema(rules: SnapshotRules): Record<string, unknown> {
  const defs = sharedDefs(rules);
  const all = payloads();
  for (const spec of EVENTS) {
    const p = all[spec.type];
    if (!p) throw new Error(`no payload for ${spec.type}`);
    defs[spec.type] = object(
      { ...envelope(spec, rules), ...p.properties },
      {
        // The seed's base check 8 as a wire rule where the snapshot's schemas make it one
        // (common.schema.json@1d98c19 $defs/harness, required by every event file).
        required: [
          ...new Set([
            'id',
            'source',
            'type',
            'time',
            ...(rules.harnessOnEveryEvent ? ['harness'] : []),
            ...p.required,
          ]),
        ],
        extra: p.rules && p.rules.length ? { allOf: p.rules } : {},
      },
    );
  }
  return document('event.schema.json', `AHP draft event (any of the ${EVENTS.length} event types)`, {
    oneOf: EVENTS.map((e) => d(e.type)),
    $defs: defs,
  });
}

export function extensionsSchema(reverseDns: string): Record<string, unknown> {
  return document('extensions.schema.json', 'AHP draft extension members (reverse-DNS keys)', {
    type: 'object',
    propertyNames: { pattern: reverseDns },
  });
}
