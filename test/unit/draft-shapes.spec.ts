// Draft wire shapes (checker 4.5), contract consistency (4.6) and accepted decisions
// (4.7), judged through our validator with small hand-built messages.
import { test, expect } from '@playwright/test';
import { isWireValid, validate, validateRaw } from '../../src/protocol/validator.js';
import { KINDS } from '../../src/protocol/kinds.js';
import { EVENT_TYPES } from '../../src/protocol/catalogue.js';
import { wireSchemas } from '../../src/protocol/schema-build/index.js';
import {
  copy,
  expectWireInvalidAt,
  expectWireValid,
  interceptOf,
  interceptResultOf,
  makeEvent,
  messageOf,
  observeOf,
  textBody,
  without,
  type Obj,
} from '../support/wire.js';

// ------------------------------------------------------------------ builders

const SHA = 'ab'.repeat(32);
const nativeTool = (): Obj => ({
  name: 'write_file',
  kind: 'file_write',
  input: { path: 'notes.md' },
  origin: 'native',
});
const model = (): Obj => ({ id: 'm-1', provider: 'acme' });
const attempt = (): Obj => ({ id: 'att-1', number: 1 });
const task = (): Obj => ({ id: 'task-1', operation: 'update', change: { status: 'done' } });
const attemptUsage = (over: Obj = {}): Obj => ({
  kind: 'amount',
  scope: 'attempt',
  completeness: 'complete',
  provenance: 'provider',
  inputTokens: 10,
  outputTokens: 2,
  ...over,
});

/** One hand-written sample per event type; members beyond the id/source/type/time envelope only. */
const EVENT_BODIES: Record<string, Obj> = {
  'tool.before': { call: { id: 'call-1' }, tool: nativeTool(), path: 'native', items: [] },
  'tool.after': {
    outcome: 'ok',
    execution: { status: 'executed' },
    call: { id: 'call-1' },
    tool: nativeTool(),
    path: 'native',
    items: [messageOf('tool')],
  },
  'session.start': {
    session: { id: 'sess-1' },
    trigger: 'startup',
    permissionMode: 'default',
    items: [],
    manifest: {
      events: [],
      gaps: [],
      transports: ['stdio'],
      authentication: [],
      toolPaths: ['native'],
      contentCategories: ['text'],
      limits: {},
      managedPolicy: { scopes: ['user'], disableable: true },
      correlationIdentityFields: ['id'],
    },
  },
  'session.end': { session: { id: 'sess-1' }, outcome: 'completed', reason: 'user_exit' },
  'config.change.before': {
    change: { source: 'settings.json', scope: 'project', settings: ['model'], summary: 'switch model' },
  },
  'config.change.after': {
    change: {
      source: 'settings.json',
      scope: 'project',
      settings: ['model'],
      summary: 'switched model',
      mcpServers: [],
    },
  },
  'turn.start': { turn: { id: 'turn-1' }, trigger: 'user', items: [messageOf('user')] },
  'turn.finish.before': {
    turn: { id: 'turn-1' },
    outcome: 'completed',
    continuationCount: 0,
    items: [messageOf('assistant')],
  },
  'turn.end': { turn: { id: 'turn-1' }, outcome: 'completed', continuationCount: 0, items: [] },
  'turn.progress': { turn: { id: 'turn-1' }, item: { id: 'msg-1' }, delta: messageOf('assistant'), final: false },
  'model.request.before': { model: model(), attempt: attempt(), params: {}, items: [messageOf('user')] },
  'model.response.after': {
    model: model(),
    attempt: attempt(),
    execution: { status: 'executed' },
    items: [messageOf('assistant')],
    finishReason: 'stop',
  },
  'model.error': {
    model: model(),
    attempt: attempt(),
    execution: { status: 'executed' },
    error: { message: 'overloaded', class: 'provider' },
  },
  'model.switch.before': { current: model(), proposed: { id: 'm-2', provider: 'acme' }, reason: 'cost' },
  'model.switch.after': { previous: model(), current: { id: 'm-2', provider: 'acme' }, reason: 'fallback' },
  'tool.permission.request': {
    call: { id: 'call-1' },
    tool: nativeTool(),
    path: 'native',
    suggestions: [],
    sandboxBypass: false,
  },
  'tool.permission.resolved': {
    call: { id: 'call-1' },
    tool: nativeTool(),
    path: 'native',
    decision: 'allow',
    decidedBy: 'user',
  },
  'tool.progress': {
    call: { id: 'call-1' },
    tool: nativeTool(),
    path: 'native',
    partialOutput: messageOf('tool'),
    backgrounded: false,
  },
  'tool.batch.after': {
    batch: { id: 'batch-1' },
    calls: [
      { call: { id: 'call-1' }, tool: nativeTool(), path: 'native', outcome: 'ok', execution: { status: 'executed' } },
    ],
  },
  'context.compact.before': { trigger: 'auto', items: [messageOf('user')] },
  'context.compact.after': {
    summary: [textBody('short')],
    removed: [{ id: 'msg-0' }],
    execution: { status: 'executed' },
  },
  'task.change.before': { task: task() },
  'task.change.after': { task: task() },
  'user.attention': { attention: { kind: 'idle', message: [textBody('waiting')], title: [textBody('Agent')] } },
  'user.elicitation.request': { elicitation: { server: 'mcp-server', mode: 'url' } },
  'user.elicitation.result': { elicitation: { server: 'mcp-server', mode: 'form', action: 'cancel' } },
  'user.message.inbound': { message: { channel: 'chat', sender: 'alice', messages: [messageOf('user')] } },
  'user.message.outbound': { message: { channel: 'chat', messages: [messageOf('assistant')] } },
  'workspace.change.before': { workspace: { kind: 'roots', change: { workspaceRoots: ['/work/a', '/work/b'] } } },
  'workspace.change.after': { workspace: { kind: 'cwd', change: { cwd: '/work/b' }, prior: { cwd: '/work/a' } } },
  'file.changed': { changes: [{ path: '/work/a.txt', operation: 'update', agentCaused: true }] },
  'hook.failure': {
    failure: { backendId: 'com.example.policy', reason: 'timeout', policy: 'fail-open' },
    parentEventId: 'evt-0',
  },
};
const sample = (type: string, over: Obj = {}): Obj => makeEvent(type, { ...copy(EVENT_BODIES[type] as Obj), ...over });

/** Members each event requires beyond the envelope (written out here, independent of our schema builder). */
const REQUIRED: Record<string, string[]> = {
  'tool.before': ['call', 'tool', 'path'],
  'tool.after': ['outcome', 'execution', 'call', 'tool', 'path', 'items'],
  'session.start': ['session', 'trigger', 'harness', 'permissionMode', 'manifest', 'items'],
  'session.end': ['session', 'outcome', 'reason'],
  'config.change.before': ['change'],
  'config.change.after': ['change'],
  'turn.start': ['turn', 'trigger', 'items'],
  'turn.finish.before': ['turn', 'outcome', 'continuationCount', 'items'],
  'turn.end': ['turn', 'outcome', 'continuationCount', 'items'],
  'turn.progress': ['turn', 'item', 'delta', 'final'],
  'model.request.before': ['model', 'attempt', 'params', 'items'],
  'model.response.after': ['model', 'attempt', 'execution', 'items', 'finishReason'],
  'model.error': ['model', 'attempt', 'execution', 'error'],
  'model.switch.before': ['current', 'proposed', 'reason'],
  'model.switch.after': ['previous', 'current', 'reason'],
  'tool.permission.request': ['call', 'tool', 'path', 'suggestions', 'sandboxBypass'],
  'tool.permission.resolved': ['call', 'tool', 'path', 'decision', 'decidedBy'],
  'tool.progress': ['call', 'tool', 'path', 'partialOutput', 'backgrounded'],
  'tool.batch.after': ['batch', 'calls'],
  'context.compact.before': ['trigger', 'items'],
  'context.compact.after': ['summary', 'removed', 'execution'],
  'task.change.before': ['task'],
  'task.change.after': ['task'],
  'user.attention': ['attention'],
  'user.elicitation.request': ['elicitation'],
  'user.elicitation.result': ['elicitation'],
  'user.message.inbound': ['message'],
  'user.message.outbound': ['message'],
  'workspace.change.before': ['workspace'],
  'workspace.change.after': ['workspace'],
  'file.changed': ['changes'],
  'hook.failure': ['failure', 'parentEventId'],
};

function registration(parts: { top?: Obj; hook?: Obj; sub?: Obj } = {}): Obj {
  return {
    protocolVersion: 'draft',
    hooks: [
      {
        id: 'com.example.policy',
        transport: { type: 'http', url: 'https://policy.example.com/hooks' },
        authentication: { type: 'bearer', tokenEnv: 'AHP_POLICY_TOKEN' },
        subscriptions: [
          {
            events: ['tool.before'],
            mode: 'intercept',
            timeoutMs: 500,
            failurePolicy: 'fail-closed',
            content: { default: 'metadata' },
            ...parts.sub,
          },
        ],
        ...parts.hook,
      },
    ],
    ...parts.top,
  };
}
const SUB = '/hooks/0/subscriptions/0';

const upload = (over: Obj = {}): Obj => ({
  endpoint: 'https://uploads.example.com/v1',
  timeoutMs: 1000,
  maxBytes: 1048576,
  ...over,
});

function manifest(over: Obj = {}): Obj {
  return {
    events: [{ event: 'tool.before', modes: ['observe', 'intercept'], capabilities: { effects: ['deny', 'allow'] } }],
    gaps: [],
    transports: ['http'],
    authentication: ['bearer'],
    toolPaths: ['native'],
    contentCategories: ['text'],
    limits: { maxUploadBytes: 1024, maxContinuations: 3 },
    managedPolicy: { scopes: ['user'], disableable: true },
    correlationIdentityFields: ['id', 'session.id'],
    ...over,
  };
}

const continueCaps = (flow: Obj): Obj => ({ effects: ['flow'], flow: { operations: ['stop', 'continue'], ...flow } });
const modifyCaps = (target: string): Obj => ({
  effects: ['modify'],
  modify: { [target]: { replace: true, merge: true } },
});

const validEffects = (): Obj[] => [
  { type: 'allow' },
  { type: 'ask' },
  { type: 'deny', reason: 'blocked by policy' },
  { type: 'modify', target: 'input', operation: 'merge', value: { path: 'b.md' } },
  { type: 'message', text: 'note for the user' },
  { type: 'return', value: { ok: true } },
  { type: 'flow', operation: 'stop', reason: 'done' },
  { type: 'flow', operation: 'continue' },
  { type: 'inject', target: 'context', operation: 'append', deliverAt: 'now', value: [messageOf('user')] },
];

// ------------------------------------------------------------------ 4.5

test.describe('4.5 draft shapes', () => {
  test('continue capability needs both counts, each >= 0; zero is schema-valid', () => {
    expectWireValid(validate('capabilities', continueCaps({ remainingContinuations: 0, continuationCount: 0 })));
    expectWireValid(
      validate('capabilities:tool.after', continueCaps({ remainingContinuations: 2, continuationCount: 1 })),
    );
    expectWireInvalidAt(validate('capabilities', continueCaps({ continuationCount: 0 })), '/flow');
    expectWireInvalidAt(validate('capabilities', continueCaps({ remainingContinuations: 0 })), '/flow');
    expectWireInvalidAt(
      validate('capabilities', continueCaps({ remainingContinuations: -1, continuationCount: 0 })),
      '/flow/remainingContinuations',
    );
    expectWireInvalidAt(
      validate('capabilities', continueCaps({ remainingContinuations: 0, continuationCount: -1 })),
      '/flow/continuationCount',
    );
  });

  test('stop is independent of continuation counts', () => {
    expectWireValid(validate('capabilities', { effects: ['flow'], flow: { operations: ['stop'] } }));
    expectWireValid(validate('capabilities:tool.before', { effects: ['flow'], flow: { operations: ['stop'] } }));
  });

  test('a capability family requires its detail object; effects [] is fine', () => {
    expectWireValid(validate('capabilities', { effects: [] }));
    for (const family of ['flow', 'inject', 'modify']) {
      expectWireInvalidAt(validate('capabilities', { effects: [family] }), '', 'schema.required');
    }
    // And a detail object without its effect name is not an advertisement either.
    expectWireInvalidAt(validate('capabilities', { effects: [], flow: { operations: ['stop'] } }), '/effects');
    expectWireValid(
      validate('capabilities', { effects: ['inject'], inject: { context: { append: true, deliverAt: ['now'] } } }),
    );
  });

  test('observation-only events cannot be intercepted', () => {
    for (const type of ['task.change.after', 'turn.end', 'model.error']) {
      expectWireValid(validate('observe-notification', observeOf(sample(type))));
      expectWireInvalidAt(validate('intercept-request', interceptOf(sample(type), { effects: [] })), '/params/event');
      expect(
        KINDS.some((k) => k.kind === `capabilities:${type}`),
        type,
      ).toBe(false);
      expectWireInvalidAt(
        validate(
          'manifest',
          manifest({ events: [{ event: type, modes: ['intercept'], capabilities: { effects: [] } }] }),
        ),
        '/events/0',
      );
      expectWireInvalidAt(validate('registration', registration({ sub: { events: [type] } })), SUB);
    }
  });

  test('a supplied tool-error completion is valid, relabelled as tool.error it is not', () => {
    const supplied = sample('tool.after', {
      outcome: 'error',
      execution: { status: 'skipped', reason: 'supplied_result' },
      error: { message: 'no such file', class: 'operation' },
      items: [],
    });
    expectWireValid(validate('event:tool.after', supplied));
    expectWireValid(validate('observe-notification', observeOf(supplied)));
    const relabelled = { ...supplied, type: 'tool.error' };
    expectWireInvalidAt(validate('event', relabelled), '/type');
    expectWireInvalidAt(validate('observe-notification', observeOf(relabelled)), '/params/event/type');
  });

  test('content selection requires default; unknown categories use the same modes', () => {
    expectWireValid(validate('content-selection', { default: 'omit' }));
    expectWireValid(
      validate('content-selection', {
        default: 'metadata',
        text: 'body',
        'vendor.telemetry': 'omit',
        holograms: 'metadata',
      }),
    );
    expectWireInvalidAt(validate('content-selection', { text: 'body' }), '', 'schema.required');
    expectWireInvalidAt(validate('content-selection', { default: 'full' }), '/default');
    expectWireInvalidAt(validate('content-selection', { default: 'body', holograms: 'all' }), '/holograms');
  });

  test('hooks/capabilities discovery takes no session', () => {
    const request = {
      jsonrpc: '2.0',
      id: 'disc-1',
      method: 'hooks/capabilities',
      params: { protocolVersion: 'draft' },
    };
    expectWireValid(validate('capabilities-request', request));
    const withSession = copy(request);
    (withSession.params as Obj).session = { id: 'sess-1' };
    expectWireInvalidAt(validate('capabilities-request', withSession), '/params/session');
  });

  test('one invalid effect rejects the whole response', () => {
    expectWireValid(
      validate('intercept-response', interceptResultOf([{ type: 'allow' }, { type: 'message', text: 'ok' }])),
    );
    expectWireInvalidAt(
      validate('intercept-response', interceptResultOf([{ type: 'allow' }, { type: 'deny' }])),
      '/result/effects/1',
    );
  });

  test('every event sample is valid, and dropping any required non-envelope member makes it invalid', () => {
    expect(Object.keys(EVENT_BODIES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const ev = sample(type);
      expectWireValid(validate(`event:${type}`, ev));
      expectWireValid(validate('event', ev));
      expectWireValid(validate('observe-notification', observeOf(ev)));
      for (const key of REQUIRED[type] ?? []) {
        const findings = validate(`event:${type}`, without(ev, key));
        expect(
          findings.some(
            (f) =>
              f.layer === 'wire' && f.path === '' && f.code === 'schema.required' && f.message.includes(`"${key}"`),
          ),
          `${type} without ${key}: ${JSON.stringify(findings)}`,
        ).toBe(true);
        expectWireInvalidAt(validate('event', without(ev, key)), '');
        expectWireInvalidAt(
          validate('observe-notification', observeOf(without(ev, key))),
          '/params/event',
          'schema.required',
        );
      }
    }
  });

  test('the envelope members id, source, type and time are required too', () => {
    for (const key of ['id', 'source', 'type', 'time']) {
      expectWireInvalidAt(validate('event:turn.end', without(sample('turn.end'), key)), '');
      expectWireInvalidAt(
        validate('observe-notification', observeOf(without(sample('turn.end'), key))),
        '/params/event',
      );
    }
  });

  test('no subscriptionId or disposition member appears in our schemas', () => {
    const text = JSON.stringify(wireSchemas());
    expect(text).not.toContain('subscriptionId');
    expect(text).not.toContain('disposition');
  });

  test('upload configuration: endpoint URI without file:, timeoutMs >= 1, maxBytes >= 0', () => {
    expectWireValid(validate('content-upload', upload()));
    expectWireValid(validate('content-upload', upload({ maxBytes: 0, timeoutMs: 1 })));
    expectWireInvalidAt(validate('content-upload', upload({ endpoint: 'file:///var/uploads' })), '/endpoint');
    expectWireInvalidAt(validate('content-upload', upload({ endpoint: 'not a uri' })), '/endpoint');
    expectWireInvalidAt(validate('content-upload', upload({ timeoutMs: 0 })), '/timeoutMs');
    expectWireInvalidAt(validate('content-upload', upload({ maxBytes: -1 })), '/maxBytes');
    for (const key of ['endpoint', 'timeoutMs', 'maxBytes']) {
      expectWireInvalidAt(validate('content-upload', without(upload(), key)), '', 'schema.required');
    }
  });

  test('attachment body, metadata, size and hash rules', () => {
    const attachment = (over: Obj): Obj => ({ id: 'att-1', kind: 'attachment', mediaType: 'image/png', ...over });
    expectWireValid(validate('content-part', attachment({ selection: 'body', body: { ref: 'upload-1' } })));
    expectWireValid(validate('content-part', attachment({ selection: 'metadata', size: 10, sha256: SHA })));
    expectWireValid(validate('content-part', attachment({ selection: 'omit' })));
    expectWireInvalidAt(
      validate('content-part', attachment({ selection: 'body', body: { ref: 'upload-1' }, size: 10 })),
      '/size',
    );
    expectWireInvalidAt(validate('content-part', attachment({ selection: 'body', body: { text: 'inline' } })), '/body');
    expectWireInvalidAt(
      validate('content-part', attachment({ selection: 'metadata', body: { ref: 'upload-1' } })),
      '/body',
    );
    expectWireInvalidAt(validate('content-part', attachment({ selection: 'metadata', size: -1 })), '/size');
    expectWireInvalidAt(
      validate('content-part', attachment({ selection: 'metadata', sha256: SHA.toUpperCase() })),
      '/sha256',
    );
    expectWireInvalidAt(
      validate('content-part', attachment({ mediaType: 'text/plain', selection: 'omit' })),
      '/mediaType',
    );
    expectWireInvalidAt(
      validate('content-part', attachment({ mediaType: 'application/json', selection: 'omit' })),
      '/mediaType',
    );
    expectWireInvalidAt(validate('content-part', { ...textBody('x'), kind: 'json' }), '/kind');
    expectWireInvalidAt(validate('content-part', { ...textBody('x'), selection: 'metadata' }), '/text');
    expectWireInvalidAt(validate('content-part', without(textBody('x'), 'text')), '', 'schema.required');
  });

  test('manifest coverage fields are required; task.change.after is not interceptable; managed policy shape', () => {
    expectWireValid(validate('manifest', manifest()));
    for (const key of ['toolPaths', 'limits', 'managedPolicy', 'correlationIdentityFields']) {
      const findings = validate('manifest', without(manifest(), key));
      expectWireInvalidAt(findings, '', 'schema.required');
      expect(
        findings.some((f) => f.message.includes(`"${key}"`)),
        key,
      ).toBe(true);
    }
    expectWireValid(
      validate(
        'manifest',
        manifest({ events: [{ event: 'task.change.after', modes: ['observe'], capabilities: { effects: [] } }] }),
      ),
    );
    expectWireInvalidAt(
      validate(
        'manifest',
        manifest({ events: [{ event: 'task.change.after', modes: ['intercept'], capabilities: { effects: [] } }] }),
      ),
      '/events/0',
    );
    expectWireValid(
      validate('manifest', manifest({ managedPolicy: { scopes: ['managed', 'user'], disableable: false } })),
    );
    expectWireInvalidAt(
      validate('manifest', manifest({ managedPolicy: { scopes: ['managed'], disableable: true } })),
      '/managedPolicy/disableable',
    );
    expectWireInvalidAt(
      validate('manifest', manifest({ managedPolicy: { scopes: ['user'] } })),
      '/managedPolicy',
      'schema.required',
    );
    expectWireInvalidAt(
      validate('manifest', manifest({ managedPolicy: { scopes: ['tenant'], disableable: true } })),
      '/managedPolicy/scopes/0',
    );
  });

  test('attempt usage enums are enforced', () => {
    expectWireValid(validate('event:model.response.after', sample('model.response.after', { usage: attemptUsage() })));
    expectWireValid(
      validate(
        'event:model.response.after',
        sample('model.response.after', { usage: attemptUsage({ provenance: 'estimate', completeness: 'partial' }) }),
      ),
    );
    const bad: [Obj, string][] = [
      [{ kind: 'total' }, '/usage/kind'],
      [{ scope: 'turn' }, '/usage/scope'],
      [{ provenance: 'mixed' }, '/usage/provenance'],
      [{ completeness: 'most' }, '/usage/completeness'],
    ];
    for (const [over, path] of bad) {
      expectWireInvalidAt(
        validate('event:model.response.after', sample('model.response.after', { usage: attemptUsage(over) })),
        path,
      );
    }
  });

  test('a supplied model result cannot carry provider usage', () => {
    const supplied = { execution: { status: 'skipped', reason: 'supplied_result' } };
    expectWireValid(validate('event:model.response.after', sample('model.response.after', supplied)));
    const withUsage = sample('model.response.after', { ...supplied, usage: attemptUsage() });
    expectWireInvalidAt(validate('event:model.response.after', withUsage), '');
    expectWireInvalidAt(validate('observe-notification', observeOf(withUsage)), '/params/event');
  });

  test('a workspace change is not a file notification; file.changed requires agentCaused', () => {
    const fileList = [{ path: '/work/a.txt', operation: 'update', agentCaused: false }];
    expectWireInvalidAt(
      validate('event:workspace.change.after', makeEvent('workspace.change.after', { changes: fileList })),
      '',
      'schema.required',
    );
    expectWireInvalidAt(
      validate('event:file.changed', makeEvent('file.changed', { workspace: { kind: 'cwd', change: { cwd: '/w' } } })),
      '',
      'schema.required',
    );
    expectWireValid(validate('event:file.changed', sample('file.changed', { changes: fileList })));
    const noCause = sample('file.changed', { changes: [{ path: '/work/a.txt', operation: 'update' }] });
    expectWireInvalidAt(validate('event:file.changed', noCause), '/changes/0', 'schema.required');
    expectWireInvalidAt(
      validate(
        'event:file.changed',
        sample('file.changed', { changes: [{ path: '/a', operation: 'update', agentCaused: 'yes' }] }),
      ),
      '/changes/0/agentCaused',
    );
  });

  // "Review regression fixtures match expectedValid" is about upstream fixture files; not a message shape.

  test('a subscription needs an explicit content default', () => {
    expectWireValid(validate('registration', registration()));
    expectWireInvalidAt(validate('registration', registration({ sub: { content: {} } })), SUB);
    expectWireInvalidAt(validate('registration', registration({ sub: { content: { text: 'body' } } })), SUB);
    const noContent = registration();
    delete ((noContent.hooks as Obj[])[0]!.subscriptions as Obj[])[0]!.content;
    expectWireInvalidAt(validate('registration', noContent), SUB);
  });

  test('URI table (event source)', () => {
    const valid = [
      'urn:example:event',
      'https://example.com/a%20b?x=1#fragment',
      'file:///tmp/a',
      'https://[::1]:3000/a',
      'https://[v1.host]/',
      'mailto:user@example.com',
      'custom:opaque/path',
    ];
    const invalid = [
      'relative/path',
      'https://bad host/%zz',
      'https://example.com/%',
      'https://[not-ip]/',
      'https://example.com/\n',
      'https://éxample.com/',
      'https://example.com:bad/',
      'https://example.com/[]',
    ];
    for (const source of valid) expectWireValid(validate('event:turn.end', sample('turn.end', { source })));
    for (const source of invalid) {
      expectWireInvalidAt(validate('event:turn.end', sample('turn.end', { source })), '/source', 'schema.format');
      expectWireInvalidAt(
        validate('observe-notification', observeOf(sample('turn.end', { source }))),
        '/params/event/source',
      );
    }
  });

  test('RFC 3339 table (event time)', () => {
    const valid = [
      '2026-09-15T12:00:00Z',
      '2026-09-15t12:00:00.123z',
      '2024-02-29T23:59:59-00:00',
      '2026-09-15T12:00:00+05:30',
    ];
    const invalid = [
      '20260915T120000+0000',
      '2026-09-15 12:00:00Z',
      '2026-09-15T12:00:00',
      '2026-09-15T12:00:00+0000',
      '2026-02-29T12:00:00Z',
      '2026-09-15T12:00:00+00:60',
      '2026-09-15T12:00:00Z\n',
    ];
    for (const time of valid) expectWireValid(validate('event:turn.end', sample('turn.end', { time })));
    for (const time of invalid) {
      expectWireInvalidAt(validate('event:turn.end', sample('turn.end', { time })), '/time', 'schema.format');
    }
  });

  test('integer typing: 1.0 is an integer, 1.5 and true are not', () => {
    const raw = (n: string) => JSON.stringify(sample('model.response.after')).replace('"number":1', `"number":${n}`);
    expect(raw('1.0')).toContain('"number":1.0');
    const ok = validateRaw('event:model.response.after', raw('1.0'));
    expectWireValid(ok.findings);
    expectWireValid(validateRaw('event:model.response.after', raw('2.00')).findings);
    expectWireInvalidAt(
      validateRaw('event:model.response.after', raw('1.5')).findings,
      '/attempt/number',
      'schema.type',
    );
    expectWireInvalidAt(
      validateRaw('event:model.response.after', raw('true')).findings,
      '/attempt/number',
      'schema.type',
    );
    // Counts behave the same way.
    expectWireInvalidAt(
      validate(
        'event:model.response.after',
        sample('model.response.after', { usage: attemptUsage({ inputTokens: 0.5 }) }),
      ),
      '/usage/inputTokens',
    );
  });

  test('request and manifest capabilities share semantics (six event/capability cases)', () => {
    const cases: [string, Obj, boolean, string][] = [
      ['model.response.after', modifyCaps('response'), true, ''],
      ['model.response.after', modifyCaps('input'), false, '/modify'],
      ['task.change.before', { effects: ['return'] }, false, '/effects'],
      ['task.change.before', { effects: ['deny', 'message'] }, true, ''],
      ['tool.before', continueCaps({ remainingContinuations: 1, continuationCount: 0 }), false, '/flow/operations'],
      ['tool.after', continueCaps({ remainingContinuations: 1, continuationCount: 0 }), true, ''],
    ];
    const events: Record<string, Obj> = {
      'model.response.after': sample('model.response.after'),
      'task.change.before': sample('task.change.before'),
      'tool.before': sample('tool.before'),
      'tool.after': sample('tool.after'),
    };
    for (const [type, caps, ok, at] of cases) {
      const label = `${type} ${JSON.stringify(caps)}`;
      const direct = validate(`capabilities:${type}`, caps);
      const request = validate('intercept-request', interceptOf(events[type] as Obj, caps));
      const inManifest = validate(
        'manifest',
        manifest({ events: [{ event: type, modes: ['intercept'], capabilities: caps }] }),
      );
      expect([isWireValid(direct), isWireValid(request), isWireValid(inManifest)], label).toEqual([ok, ok, ok]);
      if (!ok) {
        expectWireInvalidAt(direct, at);
        expectWireInvalidAt(request, `/params/capabilities${at}`);
        expectWireInvalidAt(inManifest, `/events/0/capabilities${at}`);
      }
    }
  });

  test('generic parts and messages have different role contracts', () => {
    // Generic part lists (tool.before items) carry no role.
    expectWireValid(validate('event:tool.before', sample('tool.before', { items: [textBody('file text')] })));
    expectWireInvalidAt(
      validate('event:tool.before', sample('tool.before', { items: [{ ...textBody('x'), role: 'user' }] })),
      '/items/0',
    );
    expectWireInvalidAt(validate('content-part', { ...textBody('x'), parentItemId: 'msg-1' }), '/parentItemId');
    // Message lists (model items) require a known role, and their parts still carry none.
    expectWireValid(validate('content-messages', [messageOf('user'), messageOf('assistant', undefined, 'msg-2')]));
    expectWireInvalidAt(validate('content-messages', [without(messageOf('user'), 'role')]), '/0', 'schema.required');
    expectWireInvalidAt(validate('content-messages', [messageOf('vendor-role')]), '/0/role');
    expectWireInvalidAt(
      validate('content-messages', [messageOf('user', [{ ...textBody('x'), role: 'user' }])]),
      '/0/parts/0',
    );
    expectWireInvalidAt(
      validate(
        'event:model.request.before',
        sample('model.request.before', { items: [without(messageOf('user'), 'role')] }),
      ),
      '/items/0',
    );
  });

  // "Normalising execution-reason literals keeps verdicts" concerns upstream fixture rewriting; nothing to port here.
});

// ------------------------------------------------------------------ 4.6

test.describe('4.6 contract consistency', () => {
  test('registration uses a flat content selection, not nested categories', () => {
    expectWireValid(
      validate(
        'registration',
        registration({ sub: { content: { default: 'metadata', text: 'body', 'vendor.x': 'omit' } } }),
      ),
    );
    expectWireInvalidAt(
      validate(
        'registration',
        registration({ sub: { content: { default: 'metadata', categories: { text: 'body' } } } }),
      ),
      `${SUB}/content/categories`,
    );
  });

  test('upload auth: bearer with tokenEnv xor tokenRef, oauth with resource, https issuer, clientId and flow', () => {
    const withAuth = (auth: Obj) => validate('content-upload', upload({ auth }));
    expectWireValid(withAuth({ type: 'bearer', tokenEnv: 'UPLOAD_TOKEN' }));
    expectWireValid(withAuth({ type: 'bearer', tokenRef: 'vault://uploads/token' }));
    expectWireInvalidAt(withAuth({ type: 'bearer', tokenEnv: 'UPLOAD_TOKEN', tokenRef: 'vault://x' }), '/auth');
    expectWireInvalidAt(withAuth({ type: 'bearer' }), '/auth');
    for (const tokenEnv of ['1TOKEN', 'UPLOAD-TOKEN', 'upload token', '']) {
      expectWireInvalidAt(withAuth({ type: 'bearer', tokenEnv }), '/auth');
    }
    expectWireValid(withAuth({ type: 'bearer', tokenEnv: '_lower_case_ok9' }));
    const oauth = {
      type: 'oauth',
      resource: 'https://uploads.example.com',
      issuer: 'https://id.example.com',
      clientId: 'uploader',
      flow: 'client_credentials',
    };
    expectWireValid(withAuth(oauth));
    expectWireValid(withAuth({ ...oauth, flow: 'authorization_code_pkce', scopes: ['upload'] }));
    expectWireInvalidAt(withAuth({ ...oauth, issuer: 'http://id.example.com' }), '/auth');
    for (const key of ['resource', 'issuer', 'clientId', 'flow'])
      expectWireInvalidAt(withAuth(without(oauth, key)), '/auth');
    expectWireInvalidAt(withAuth({ ...oauth, flow: 'password' }), '/auth');
    // The same rules hold for a backend's own authentication.
    expectWireInvalidAt(
      validate(
        'registration',
        registration({ hook: { authentication: { type: 'bearer', tokenEnv: 'A', tokenRef: 'b' } } }),
      ),
      '/hooks/0',
    );
  });

  test('remote upload endpoints must be https; plain http only for loopback', () => {
    const accepted = [
      'https://uploads.example.com/v1',
      'https://10.0.0.1/u',
      'http://localhost',
      'http://localhost:8080/u',
      'http://127.0.0.1',
      'http://127.0.0.1:9000/u',
      'http://[::1]',
      'http://[::1]:3000/u',
    ];
    const rejected = [
      'http://localhost.evil.com',
      'http://localhost.evil.com/u',
      'http://10.0.0.1',
      'http://example.com/u',
      'file:///x',
      'ftp://uploads.example.com/',
      'http://127.0.0.1.evil.com/',
    ];
    for (const endpoint of accepted) {
      expectWireValid(validate('content-upload', upload({ endpoint })));
      expectWireValid(validate('registration', registration({ sub: { upload: upload({ endpoint }) } })));
    }
    for (const endpoint of rejected) {
      expectWireInvalidAt(validate('content-upload', upload({ endpoint })), '/endpoint');
      expectWireInvalidAt(validate('registration', registration({ sub: { upload: upload({ endpoint }) } })), SUB);
    }
  });

  test('a shared continue advertisement requires non-negative counts', () => {
    expectWireValid(validate('capabilities', continueCaps({ remainingContinuations: 0, continuationCount: 3 })));
    expectWireInvalidAt(validate('capabilities', continueCaps({})), '/flow', 'schema.required');
    expectWireInvalidAt(
      validate('capabilities', continueCaps({ remainingContinuations: -1, continuationCount: 0 })),
      '/flow/remainingContinuations',
    );
    expectWireInvalidAt(
      validate('capabilities', continueCaps({ remainingContinuations: 1, continuationCount: -2 })),
      '/flow/continuationCount',
    );
  });

  test('the continue instruction is optional but non-empty when present', () => {
    expectWireValid(validate('effect', { type: 'flow', operation: 'continue' }));
    expectWireValid(validate('effect', { type: 'flow', operation: 'continue', instruction: 'keep going' }));
    expectWireInvalidAt(validate('effect', { type: 'flow', operation: 'continue', instruction: '' }), '/instruction');
    expectWireInvalidAt(
      validate('intercept-response', interceptResultOf([{ type: 'flow', operation: 'continue', instruction: '' }])),
      '/result/effects/0/instruction',
    );
  });

  test('the capabilities object accepts unknown fields', () => {
    expectWireValid(validate('capabilities', { effects: ['deny'], futureFlag: true, 'vendor.extra': { a: 1 } }));
    expectWireValid(validate('capabilities:tool.before', { effects: ['deny'], futureFlag: true }));
  });

  test('configuration and registration accept unknown fields', () => {
    const extended = registration({
      top: { futureTop: 1 },
      hook: { futureHook: 'x' },
      sub: { futureSub: [], upload: upload({ futureUpload: true }) },
    });
    expectWireValid(validate('registration', extended));
    expectWireValid(validate('content-upload', upload({ futureUpload: { nested: true } })));
  });

  test('effects reject unknown fields and unknown types; the nine shapes are valid', () => {
    const shapes = validEffects();
    expect(shapes).toHaveLength(9);
    for (const effect of shapes) expectWireValid(validate('effect', effect));
    expectWireValid(validate('effects', shapes));
    expectWireValid(validate('intercept-response', interceptResultOf(shapes)));
    expectWireInvalidAt(validate('effect', { type: 'allow', reason: 'extra' }), '/reason');
    expectWireInvalidAt(validate('effect', { type: 'escalate' }), '/type');
    expectWireInvalidAt(validate('effects', [{ type: 'allow' }, { type: 'escalate' }]), '/1/type');
  });
});

// ------------------------------------------------------------------ 4.7

test.describe('4.7 accepted decisions', () => {
  test('observations carry no id; intercept requests do', () => {
    const observed = observeOf(sample('tool.before'));
    expectWireValid(validate('observe-notification', observed));
    expectWireInvalidAt(validate('observe-notification', { ...observed, id: 'evt-1' }), '', 'schema.forbidden-member');
    const request = interceptOf(sample('tool.before'), { effects: ['deny'] });
    expectWireValid(validate('intercept-request', request));
    expectWireInvalidAt(validate('intercept-request', without(request, 'id')), '', 'schema.required');
  });

  test('the JSON-RPC id of an intercept request equals params.event.id', () => {
    const request = interceptOf(sample('tool.before'), { effects: ['deny'] });
    const mismatch = { ...request, id: 'other-id' };
    expectWireInvalidAt(validate('intercept-request', mismatch), '/id', 'intercept.id-mismatch');
    expectWireInvalidAt(validate('ahp', mismatch), '/id', 'intercept.id-mismatch');
    // Same text, different JSON type: not equal.
    const numeric = interceptOf(sample('tool.before', { id: '7' }), { effects: ['deny'] });
    expectWireInvalidAt(validate('intercept-request', { ...numeric, id: 7 }), '/id', 'intercept.id-mismatch');
    expectWireValid(validate('ahp', request));
  });

  test('no schema defines subscriptionId', () => {
    for (const [name, doc] of Object.entries(wireSchemas())) {
      expect(JSON.stringify(doc), name).not.toContain('subscriptionId');
    }
  });

  test('a supplied execution needs no subscription', () => {
    const supplied = sample('model.response.after', { execution: { status: 'skipped', reason: 'supplied_result' } });
    expectWireValid(validate('observe-notification', observeOf(supplied)));
    expectWireValid(
      validate('intercept-request', interceptOf(supplied, { effects: ['flow'], flow: { operations: ['stop'] } })),
    );
  });

  test('registration ignores unknown fields but validates known ones', () => {
    expectWireValid(validate('registration', registration({ top: { 'vendor.note': 'x' }, sub: { priority: 3 } })));
    expectWireInvalidAt(
      validate('registration', registration({ hook: { authentication: { type: 'bearer', tokenEnv: 42 } } })),
      '/hooks/0',
    );
    expectWireInvalidAt(validate('registration', registration({ sub: { timeoutMs: 0 } })), SUB);
  });

  test('registration hook ids are unique', () => {
    const doc = registration();
    const hooks = doc.hooks as Obj[];
    hooks.push({ ...copy(hooks[0] as Obj) });
    expectWireInvalidAt(validate('registration', doc), '/hooks/1/id', 'registration.duplicate-hook-id');
    (hooks[1] as Obj).id = 'com.example.other';
    expectWireValid(validate('registration', doc));
  });

  test('upload configuration is forward-compatible but maxBytes -1 is invalid', () => {
    expectWireValid(validate('content-upload', upload({ compression: 'zstd' })));
    expectWireInvalidAt(validate('content-upload', upload({ compression: 'zstd', maxBytes: -1 })), '/maxBytes');
  });

  test('capabilities ignore unknown fields but reject a non-boolean replace and unknown flow operations', () => {
    expectWireValid(validate('capabilities', { ...modifyCaps('input'), laterField: {} }));
    expectWireInvalidAt(
      validate('capabilities', { effects: ['modify'], modify: { input: { replace: 'yes', merge: true } } }),
      '/modify/input/replace',
    );
    expectWireInvalidAt(
      validate('capabilities', { effects: ['flow'], flow: { operations: ['pause'] } }),
      '/flow/operations/0',
    );
  });

  test('intercept state stays open, but a known flow value is validated', () => {
    const ev = sample('tool.before');
    const withState = (state: Obj) => validate('intercept-request', interceptOf(ev, { effects: ['deny'] }, { state }));
    expectWireValid(withState({ permission: 'none', candidate: null }));
    expectWireValid(
      withState({
        permission: 'allow',
        candidate: { value: 1 },
        flow: 'stop',
        'vendor.trace': { hop: 2 },
        futureKey: true,
      }),
    );
    expectWireInvalidAt(withState({ permission: 'none', candidate: null, flow: 'pause' }), '/params/state/flow');
    expectWireInvalidAt(withState({ permission: 'maybe', candidate: null }), '/params/state/permission');
  });

  test('the canonical upload receipt is {ref, size, sha256}, all required', () => {
    const receipt = { ref: 'upload-1', size: 0, sha256: SHA };
    expectWireValid(validate('upload-receipt', receipt));
    for (const key of ['ref', 'size', 'sha256'])
      expectWireInvalidAt(validate('upload-receipt', without(receipt, key)), '', 'schema.required');
    expectWireInvalidAt(validate('upload-receipt', { ...receipt, ref: '' }), '/ref');
    expectWireInvalidAt(validate('upload-receipt', { ...receipt, size: -1 }), '/size');
    expectWireInvalidAt(validate('upload-receipt', { ...receipt, sha256: 'ab' }), '/sha256');
    expectWireInvalidAt(validate('upload-receipt', { ...receipt, sha256: `${SHA.slice(0, 63)}g` }), '/sha256');
  });

  test('an unknown effect, unknown operation or extra field rejects the whole intercept response', () => {
    const good = validEffects();
    const spoilers: [string, Obj][] = [
      ['unknown effect', { type: 'escalate' }],
      ['unknown modify operation', { type: 'modify', target: 'input', operation: 'patch', value: {} }],
      ['unknown flow operation', { type: 'flow', operation: 'pause', reason: 'x' }],
      ['extra field on a known effect', { type: 'message', text: 'hi', priority: 1 }],
    ];
    for (const [label, spoiler] of spoilers) {
      const findings = validate('intercept-response', interceptResultOf([...good, spoiler]));
      expect(isWireValid(findings), label).toBe(false);
      expectWireInvalidAt(findings, `/result/effects/${good.length}`);
    }
  });
});
