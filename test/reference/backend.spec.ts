// The reference backend (reference/backend): the handler's conforming replies rule by
// rule, every fault mode changing exactly the replies it is meant to change, and the
// compiled program over stdio and HTTP. Build first: `npm run build`.
import { test, expect } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { respond, handle, RPC_CODES, type HandlerContext, type Reply } from '../../reference/backend/handler.js';
import {
  FAULTS,
  FAULT_MODES,
  faultMismatch,
  type BackendFaultSpec,
  type FaultMode,
} from '../../reference/backend/faults.js';
import { DEFAULT_POLICY, parsePolicy } from '../../reference/backend/policy.js';
import { parseBackendArgs } from '../../reference/backend/args.js';
import { consultedModes, FaultProbe } from '../../reference/fault-probe.js';
import { holdMs, ReplyHold } from '../../reference/backend/hold.js';
import { configurationOf } from '../../reference/backend/configuration.js';
import { CHECKS, checkSpec } from '../../src/checks/catalogue.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { contentProbe } from '../../suites/support/content-events.js';
import { AuthorizationServer } from '../../drivers/auth/authorization-server.js';
import { createRunCa } from '../../drivers/auth/ca.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');

type Obj = Record<string, unknown>;

// ------------------------------------------------------------------ message builders

const TIME = '2026-01-01T00:00:00Z';
const SOURCE = 'urn:example:harness';
const HARNESS = { name: 'ref-test', version: '0.0.1' };

function toolBefore(id: string, toolName: string, input: Obj = { path: 'notes.md' }, extra: Obj = {}): Obj {
  return {
    id,
    source: SOURCE,
    type: 'tool.before',
    time: TIME,
    harness: { ...HARNESS },
    session: { id: 'sess-1' },
    call: { id: `call-${id}` },
    tool: { name: toolName, input, origin: 'native' },
    path: 'native',
    ...extra,
  };
}
function sessionEnd(id: string): Obj {
  return {
    id,
    source: SOURCE,
    type: 'session.end',
    time: TIME,
    harness: { ...HARNESS },
    session: { id: 'sess-1' },
    outcome: 'completed',
    reason: 'user_exit',
  };
}
function turnStart(id: string): Obj {
  return {
    id,
    source: SOURCE,
    type: 'turn.start',
    time: TIME,
    harness: { ...HARNESS },
    turn: { id: 'turn-1' },
    trigger: 'user',
    items: [
      {
        id: 'msg-1',
        role: 'user',
        parts: [{ id: 'part-1', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'hi' }],
      },
    ],
  };
}
const DENY_CAPS: Obj = { effects: ['deny'] };
const modifyCaps = (replace: boolean, merge: boolean): Obj => ({
  effects: ['deny', 'modify'],
  modify: { input: { replace, merge } },
});

function intercept(event: Obj, capabilities: Obj = DENY_CAPS, params: Obj = {}): Obj {
  return {
    jsonrpc: '2.0',
    id: event.id,
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities, ...params },
  };
}
function observe(event: Obj, version = 'draft'): Obj {
  return { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: version, event } };
}
function withoutId(msg: Obj): Obj {
  const { id: _id, ...rest } = msg;
  return rest;
}
function withVersion(msg: Obj, version: string): Obj {
  return { ...msg, params: { ...(msg.params as Obj), protocolVersion: version } };
}
/**
 * rm_rf with unknown members at the top, in params, event, session and capabilities (the
 * open objects; `tool` and `call` are closed in the draft schemas).
 */
function withUnknownFields(id: string): Obj {
  const ev = toolBefore(id, 'rm_rf', { path: '/' }, { futureEventField: { a: 1 } });
  (ev.session as Obj).futureSessionField = true;
  return { ...intercept(ev, { effects: ['deny'], futureCapability: {} }, { futureParam: 1 }), futureTopLevel: 'y' };
}

const ctxOf = (fault?: FaultMode, extra: Partial<HandlerContext> = {}): HandlerContext => ({
  policy: DEFAULT_POLICY,
  fault: new FaultProbe(fault),
  seen: new Set<string>(),
  decisions: new Map(),
  ...extra,
});
const send = (msg: Obj | string | Uint8Array, ctx: HandlerContext = ctxOf()): Reply | null =>
  respond(typeof msg === 'string' || msg instanceof Uint8Array ? msg : JSON.stringify(msg), ctx);

function resultOf(reply: Reply | null): Obj {
  expect(reply, 'a reply').not.toBeNull();
  expect(reply).toHaveProperty('result');
  return reply!.result as Obj;
}
function expectError(reply: Reply | null, code: number, id: unknown): void {
  expect(reply, 'an error reply').not.toBeNull();
  expect(reply!.jsonrpc).toBe('2.0');
  expect(reply!.id).toEqual(id);
  expect((reply!.error as Obj).code).toBe(code);
  expect(reply).not.toHaveProperty('result');
  expect(isWireValid(validate('error-response', reply, { wireOnly: true })), JSON.stringify(reply)).toBe(true);
}
function expectSuccess(reply: Reply | null, id: unknown, effects: unknown[]): void {
  expect(reply, 'a success reply').not.toBeNull();
  expect(reply).toEqual({ jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects } });
  expect(isWireValid(validate('intercept-response', reply, { wireOnly: true })), JSON.stringify(reply)).toBe(true);
}

const RM_DENY = { type: 'deny', reason: 'rm_rf is never allowed', code: 'com.example.reference.dangerous_delete' };

// ------------------------------------------------------------------ handler: conforming

test.describe('handler: JSON and JSON-RPC envelope', () => {
  test('unparseable input gets -32700 with id null', () => {
    for (const text of ['{"jsonrpc":', 'not json', '', '{"a":1,"a":2}'])
      expectError(send(text), RPC_CODES.parseError, null);
    expectError(send(new Uint8Array([0x7b, 0xff, 0x7d])), RPC_CODES.parseError, null);
  });

  test('non-objects are not answered (no id to answer to)', () => {
    for (const v of ['[]', '[{"jsonrpc":"2.0","id":"a","method":"hooks/intercept"}]', '42', '"x"', 'null'])
      expect(send(v)).toBeNull();
  });

  test('an invalid request with an id gets -32600 with that id; without an id nothing', () => {
    expectError(send({ id: 'x1', method: 'hooks/intercept', params: {} }), RPC_CODES.invalidRequest, 'x1');
    expectError(send({ jsonrpc: '1.0', id: 7, method: 'hooks/intercept' }), RPC_CODES.invalidRequest, 7);
    expectError(send({ jsonrpc: '2.0', id: 'x2', method: 42 }), RPC_CODES.invalidRequest, 'x2');
    expectError(send({ jsonrpc: '2.0', id: 'x3' }), RPC_CODES.invalidRequest, 'x3');
    expectError(send({ jsonrpc: '2.0', id: 1.5, method: 'hooks/intercept' }), RPC_CODES.invalidRequest, null);
    expect(send({ method: 'hooks/intercept', params: {} })).toBeNull();
    expect(send({ jsonrpc: '2.0', method: 42 })).toBeNull();
  });

  test('handle() returns the reply as one line of JSON, or null', () => {
    const text = handle(JSON.stringify(intercept(toolBefore('e-h', 'rm_rf'))), ctxOf());
    expect(text).not.toBeNull();
    expect(text).not.toContain('\n');
    expect(JSON.parse(text!)).toEqual({
      jsonrpc: '2.0',
      id: 'e-h',
      result: { protocolVersion: 'draft', effects: [RM_DENY] },
    });
    expect(handle(JSON.stringify(observe(sessionEnd('o-h'))), ctxOf())).toBeNull();
  });
});

test.describe('handler: notifications are never answered', () => {
  const notifications: [string, Obj][] = [
    ['valid observe', observe(sessionEnd('o1'))],
    ['valid observe of tool.before', observe(toolBefore('o2', 'rm_rf'))],
    ['unsupported version', observe(sessionEnd('o3'), '1999-01-01')],
    ['unknown event', observe({ ...sessionEnd('o4'), type: 'tool.exploded' })],
    ['unknown method', { jsonrpc: '2.0', method: 'hooks/bogus', params: {} }],
    ['hooks/capabilities', { jsonrpc: '2.0', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }],
    ['garbage params', { jsonrpc: '2.0', method: 'hooks/observe', params: 42 }],
    ['no params', { jsonrpc: '2.0', method: 'hooks/observe' }],
    [
      'event not an object',
      { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event: 'x' } },
    ],
    ['intercept without id', withoutId(intercept(toolBefore('o5', 'rm_rf')))],
    ['intercept without id, bad version', withoutId(withVersion(intercept(toolBefore('o6', 'rm_rf')), '1999-01-01'))],
  ];
  for (const [name, msg] of notifications) {
    test(name, () => expect(send(msg)).toBeNull());
  }
});

test.describe('handler: hooks/intercept', () => {
  test('rm_rf is denied with the configured reason and a reverse-DNS code', () => {
    const reply = send(intercept(toolBefore('e-1', 'rm_rf', { path: '/' })));
    expectSuccess(reply, 'e-1', [RM_DENY]);
    expect(isWireValid(validate('intercept-deny-response', reply, { wireOnly: true }))).toBe(true);
  });

  test('numeric-looking string ids are echoed with their type', () => {
    expectSuccess(send(intercept(toolBefore('7', 'read_file'))), '7', []);
  });

  test('other tools and other interceptable events get no effects', () => {
    expectSuccess(send(intercept(toolBefore('e-2', 'read_file'))), 'e-2', []);
    expectSuccess(send(intercept(turnStart('e-3'))), 'e-3', []);
  });

  test('write_file: merge when advertised, else replace, else nothing', () => {
    const input = { path: 'a.txt', content: 'x' };
    expectSuccess(send(intercept(toolBefore('w-1', 'write_file', input), modifyCaps(true, true))), 'w-1', [
      { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } },
    ]);
    expectSuccess(send(intercept(toolBefore('w-2', 'write_file', input), modifyCaps(false, true))), 'w-2', [
      { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } },
    ]);
    expectSuccess(send(intercept(toolBefore('w-3', 'write_file', input), modifyCaps(true, false))), 'w-3', [
      { type: 'modify', target: 'input', operation: 'replace', value: { path: 'a.txt', content: 'x', mode: '0644' } },
    ]);
    expectSuccess(send(intercept(toolBefore('w-4', 'write_file', input), DENY_CAPS)), 'w-4', []);
  });

  test('only advertised effects: rm_rf with no deny advertised gets []', () => {
    expectSuccess(send(intercept(toolBefore('e-4', 'rm_rf'), { effects: [] })), 'e-4', []);
    expectSuccess(send(intercept(toolBefore('e-5', 'rm_rf'), { effects: ['allow'] })), 'e-5', []);
  });

  test('unknown fields in open objects do not change the result', () => {
    const clean = resultOf(send(intercept(toolBefore('e-u', 'rm_rf', { path: '/' }))));
    const dirty = resultOf(send(withUnknownFields('e-u')));
    expect(dirty).toEqual(clean);
  });

  test('params are checked by hand for the structure the backend relies on: -32602 names the place', () => {
    // Full schema validation is the harness's job; answering invalid params with an error is a SHOULD.
    const ev = toolBefore('e-c', 'rm_rf');
    delete (ev as Obj).call;
    const reply = send(intercept(ev));
    expectError(reply, RPC_CODES.invalidParams, 'e-c');
    expect((reply!.error as Obj).data).toEqual({ path: '/params/event/call' });
  });

  test('a duplicate delivery gets the same reply', () => {
    const ctx = ctxOf();
    const msg = intercept(toolBefore('e-dup', 'rm_rf'));
    const first = send(msg, ctx);
    expect(send(msg, ctx)).toEqual(first);
    expect(send(msg, ctx)).toEqual(first);
  });

  test('an unsupported protocolVersion gets -32001 with supported ["draft"]', () => {
    for (const v of ['1999-01-01', '0.1', '', 42, null]) {
      const reply = send(withVersion(intercept(toolBefore('e-v', 'rm_rf')), v as string));
      expectError(reply, RPC_CODES.unsupportedProtocolVersion, 'e-v');
      expect(reply!.error).toEqual({
        code: -32001,
        message: 'unsupported protocol version',
        data: { supported: ['draft'] },
      });
    }
    const missing = intercept(toolBefore('e-v2', 'rm_rf'));
    delete (missing.params as Obj).protocolVersion;
    expectError(send(missing), RPC_CODES.unsupportedProtocolVersion, 'e-v2');
  });

  test('unknown, missing and observe-only event types get -32002', () => {
    expectError(
      send(intercept({ ...toolBefore('e-x', 'rm_rf'), type: 'tool.exploded' })),
      RPC_CODES.unsupportedEvent,
      'e-x',
    );
    const noType = toolBefore('e-y', 'rm_rf');
    delete noType.type;
    expectError(send(intercept(noType)), RPC_CODES.unsupportedEvent, 'e-y');
    expectError(send(intercept(sessionEnd('e-z'))), RPC_CODES.unsupportedEvent, 'e-z');
    const reply = send(intercept({ ...toolBefore('e-w', 'rm_rf'), type: 42 }));
    expectError(reply, RPC_CODES.unsupportedEvent, 'e-w');
    expect((reply!.error as Obj).message).toBe('unsupported event');
  });

  test('an unsupported version is judged before the event type', () => {
    const msg = withVersion(intercept({ ...toolBefore('e-o', 'rm_rf'), type: 'tool.exploded' }), '1999-01-01');
    expectError(send(msg), RPC_CODES.unsupportedProtocolVersion, 'e-o');
  });

  test('missing or invalid params get -32602', () => {
    expectError(send({ jsonrpc: '2.0', id: 'p-1', method: 'hooks/intercept' }), RPC_CODES.invalidParams, 'p-1');
    expectError(
      send({ jsonrpc: '2.0', id: 'p-2', method: 'hooks/intercept', params: [] }),
      RPC_CODES.invalidParams,
      'p-2',
    );
    expectError(
      send({
        jsonrpc: '2.0',
        id: 'p-3',
        method: 'hooks/intercept',
        params: { protocolVersion: 'draft', capabilities: DENY_CAPS },
      }),
      RPC_CODES.invalidParams,
      'p-3',
    );
    const noCaps = intercept(toolBefore('p-4', 'rm_rf'));
    delete (noCaps.params as Obj).capabilities;
    expectError(send(noCaps), RPC_CODES.invalidParams, 'p-4');
    const noCall = toolBefore('p-5', 'rm_rf');
    delete noCall.call;
    expectError(send(intercept(noCall)), RPC_CODES.invalidParams, 'p-5');
    expectError(send({ ...intercept(toolBefore('p-6', 'rm_rf')), id: 'other' }), RPC_CODES.invalidParams, 'other');
    expectError(
      send(intercept(toolBefore('p-7', 'rm_rf', 'rm -rf /' as unknown as Obj))),
      RPC_CODES.invalidParams,
      'p-7',
    );
  });

  test('an invalid-params error does not quote request values', () => {
    const secret = 'sk-canary-0123456789';
    const ev = toolBefore('p-8', 'rm_rf', { token: secret });
    (ev as Obj).path = ''; // invalid, next to a canary in the input
    const reply = send(intercept(ev));
    expectError(reply, RPC_CODES.invalidParams, 'p-8');
    expect(JSON.stringify(reply)).not.toContain(secret);
  });

  test('a canary secret in a valid event never reaches the reply', () => {
    const secret = 'sk-canary-9876543210';
    const reply = send(
      intercept(toolBefore('s-1', 'rm_rf', { token: secret }, { extensions: { 'com.example.canary': secret } })),
    );
    expectSuccess(reply, 's-1', [RM_DENY]);
    expect(JSON.stringify(reply)).not.toContain(secret);
    const withAuth = send(
      intercept(toolBefore('s-2', 'read_file')),
      ctxOf(undefined, { authorization: `Bearer ${secret}` }),
    );
    expect(JSON.stringify(withAuth)).not.toContain(secret);
  });

  test('every other method gets -32601, hooks/capabilities and hooks/observe requests included', () => {
    expectError(
      send({ jsonrpc: '2.0', id: 'm-1', method: 'hooks/bogus', params: {} }),
      RPC_CODES.methodNotFound,
      'm-1',
    );
    expectError(
      send({ jsonrpc: '2.0', id: 2, method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }),
      RPC_CODES.methodNotFound,
      2,
    );
    expectError(send({ ...observe(sessionEnd('m-3')), id: 'm-3' }), RPC_CODES.methodNotFound, 'm-3');
    expectError(send({ jsonrpc: '2.0', id: 'm-4', method: 'initialize' }), RPC_CODES.methodNotFound, 'm-4');
  });
});

test.describe('policy', () => {
  test('a custom policy replaces the default one', () => {
    const parsed = parsePolicy({
      rules: [
        { event: 'tool.before', tool: 'git_push', deny: { reason: 'no pushing', code: 'com.example.git.push' } },
        { event: 'tool.before', mergeInput: { dryRun: true } },
      ],
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const ctx: HandlerContext = { policy: parsed.policy, fault: new FaultProbe<FaultMode>(undefined) };
    expectSuccess(send(intercept(toolBefore('c-1', 'git_push')), ctx), 'c-1', [
      { type: 'deny', reason: 'no pushing', code: 'com.example.git.push' },
    ]);
    expectSuccess(send(intercept(toolBefore('c-2', 'rm_rf')), ctx), 'c-2', []);
    expectSuccess(send(intercept(toolBefore('c-3', 'ls'), modifyCaps(true, true)), ctx), 'c-3', [
      { type: 'modify', target: 'input', operation: 'merge', value: { dryRun: true } },
    ]);
  });

  test('invalid policies are refused with one message', () => {
    const bad: unknown[] = [
      [],
      {},
      { rules: {} },
      { rules: [], extra: 1 },
      { rules: [{ event: 'tool.exploded', deny: { reason: 'x' } }] },
      { rules: [{ event: 'session.end', deny: { reason: 'x' } }] },
      { rules: [{ event: 'tool.before', deny: { reason: '' } }] },
      { rules: [{ event: 'tool.before', deny: { reason: 'x', code: 'no_namespace' } }] },
      { rules: [{ event: 'tool.before', deny: { reason: 'x' }, mergeInput: {} }] },
      { rules: [{ event: 'tool.before' }] },
      { rules: [{ event: 'turn.start', mergeInput: {} }] },
      { rules: [{ event: 'tool.before', tool: 3, deny: { reason: 'x' } }] },
      { rules: [{ event: 'tool.before', deny: { reason: 'x', severity: 'high' } }] },
    ];
    for (const doc of bad) {
      const r = parsePolicy(doc);
      expect(r.ok, JSON.stringify(doc)).toBe(false);
      if (!r.ok) expect(r.error).not.toContain('\n');
    }
  });
});

// ------------------------------------------------------------------ fault table

test.describe('fault table', () => {
  test('every target is a check id, and each backend check has at least one fault', () => {
    const targeted = new Map<string, string[]>();
    for (const mode of FAULT_MODES) {
      const spec: BackendFaultSpec = FAULTS[mode];
      // A mode fails its targets, or (breaking no rule) names the checks it must pass.
      expect(spec.targets.length > 0 !== (spec.passes?.length ?? 0) > 0, mode).toBe(true);
      for (const id of spec.passes ?? []) expect(() => checkSpec(id), `${mode} → ${id}`).not.toThrow();
      expect(spec.description.length, mode).toBeGreaterThan(0);
      for (const id of spec.targets) {
        expect(() => checkSpec(id), `${mode} → ${id}`).not.toThrow();
        targeted.set(id, [...(targeted.get(id) ?? []), mode]);
      }
    }
    for (const c of CHECKS.filter((c) => c.roles.includes('backend'))) {
      // Several modes may target one check: one per class of fault the check judges.
      expect(targeted.get(c.id)?.length ?? 0, c.id).toBeGreaterThan(0);
    }
  });

  test('binding-specific faults name a binding that the check runs on', () => {
    for (const mode of FAULT_MODES) {
      const spec: { transport?: 'stdio' | 'http'; lifecycle?: string; targets: readonly string[] } = FAULTS[mode];
      for (const id of spec.targets) {
        const check = checkSpec(id);
        if (spec.transport) expect(check.transports, mode).toContain(spec.transport);
      }
      if (spec.transport === 'http') expect(faultMismatch(mode, 'stdio', 'persistent'), mode).toBeDefined();
      if (spec.lifecycle === 'per_event') expect(faultMismatch(mode, 'stdio', 'persistent'), mode).toBeDefined();
      // With hooks/configuration served as the mode needs it (only draft@1d98c19 has the method).
      const serves = { configuration: (FAULTS[mode] as BackendFaultSpec).configuration !== 'not-served' };
      if (!spec.transport) expect(faultMismatch(mode, 'http', undefined, serves), mode).toBeUndefined();
      if ((FAULTS[mode] as BackendFaultSpec).configuration)
        expect(faultMismatch(mode, 'http', undefined, { configuration: !serves.configuration }), mode).toBeDefined();
    }
  });
});

// ------------------------------------------------------------------ faults: only where described

const AUTH = 'Bearer s3cret-token-value';

/** A corpus touching every rule; run in order (the duplicate relies on it) with a fresh context per fault. */
const CORPUS: [string, string | Uint8Array | Obj][] = [
  ['not-json', '{"jsonrpc":'],
  ['bad-utf8', new Uint8Array([0x7b, 0xff, 0x7d])],
  ['batch', '[]'],
  ['no-jsonrpc-with-id', { id: 'x1', method: 'hooks/intercept', params: {} }],
  ['observe-valid', observe(sessionEnd('o1'))],
  ['observe-bad-version', observe(sessionEnd('o2'), '1999-01-01')],
  ['observe-unknown-event', observe({ ...sessionEnd('o3'), type: 'tool.exploded' })],
  ['notification-unknown-method', { jsonrpc: '2.0', method: 'hooks/bogus', params: {} }],
  ['observe-garbage-params', { jsonrpc: '2.0', method: 'hooks/observe', params: 42 }],
  ['intercept-notification-bad-version', withoutId(withVersion(intercept(toolBefore('o4', 'rm_rf')), '1999-01-01'))],
  ['rm_rf', intercept(toolBefore('e-rm', 'rm_rf', { path: '/' }))],
  ['rm_rf-again', intercept(toolBefore('e-rm', 'rm_rf', { path: '/' }))],
  ['rm_rf-unadvertised', intercept(toolBefore('e-rm0', 'rm_rf'), { effects: [] })],
  ['write-merge', intercept(toolBefore('e-wm', 'write_file', { path: 'a' }), modifyCaps(true, true))],
  ['write-replace', intercept(toolBefore('e-wr', 'write_file', { path: 'a' }), modifyCaps(true, false))],
  ['write-deny-only', intercept(toolBefore('e-wd', 'write_file', { path: 'a' }))],
  ['other-tool', intercept(toolBefore('e-ot', 'read_file'))],
  ['unknown-fields', withUnknownFields('e-uf')],
  ['bad-version', withVersion(intercept(toolBefore('e-bv', 'read_file')), '1999-01-01')],
  ['unknown-event', intercept({ ...toolBefore('e-ue', 'rm_rf'), type: 'tool.exploded' })],
  ['observe-only-event', intercept(sessionEnd('e-oo'))],
  ['unknown-method', { jsonrpc: '2.0', id: 'e-um', method: 'hooks/bogus', params: {} }],
  ['integer-id', { jsonrpc: '2.0', id: 7, method: 'hooks/bogus', params: {} }],
  [
    'capabilities-method',
    { jsonrpc: '2.0', id: 'e-cm', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } },
  ],
  ['observe-as-request', { ...observe(sessionEnd('e-or')), id: 'e-or' }],
  ['no-params', { jsonrpc: '2.0', id: 'e-np', method: 'hooks/intercept' }],
  [
    'no-event',
    {
      jsonrpc: '2.0',
      id: 'e-ne',
      method: 'hooks/intercept',
      params: { protocolVersion: 'draft', capabilities: DENY_CAPS },
    },
  ],
  ['id-mismatch', { ...intercept(toolBefore('e-mm', 'rm_rf')), id: 'e-other' }],
  ['turn-start', intercept(turnStart('e-ts'))],
  // Content boundaries (reference/backend/content.ts): shown inline with both operations,
  // hidden (metadata view), and with modify not advertised.
  ['content-body', contentProbe({ event: 'user.message.inbound' }).request],
  ['content-hidden', contentProbe({ event: 'context.compact.after' }, { view: 'metadata' }).request],
  ['content-unadvertised', contentProbe({ event: 'workspace.change.before' }, { advertised: 'none' }).request],
];

function runCorpus(fault: FaultMode | undefined): Map<string, Reply | null> {
  const ctx = ctxOf(fault, { authorization: AUTH });
  return new Map(CORPUS.map(([name, msg]) => [name, send(msg, ctx)]));
}
const CONFORMING = runCorpus(undefined);
const REPLIED = [...CONFORMING].filter(([, r]) => r !== null).map(([n]) => n);
const SUCCEEDED = [...CONFORMING].filter(([, r]) => r !== null && 'result' in r).map(([n]) => n);

type Check = (faulty: Reply | null, conforming: Reply | null, name: string) => void;
const effectsOf = (r: Reply | null): unknown => (r?.result as Obj | undefined)?.effects;

/** For each fault: the corpus entries whose reply changes, and what each change must look like. */
const FAULT_EXPECTATIONS: Record<FaultMode, { changes: readonly string[]; check?: Check }> = {
  'no-jsonrpc-member': {
    changes: REPLIED,
    check: (f, c) => {
      const { jsonrpc: _j, ...rest } = c!;
      expect(f).toEqual(rest);
    },
  },
  'no-result-version': {
    changes: SUCCEEDED,
    check: (f, c) => {
      expect(f).toEqual({ ...c, result: { effects: effectsOf(c) } });
    },
  },
  'accept-any-version': {
    changes: ['bad-version'],
    check: (f) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: 'e-bv', result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  'reject-unknown-fields': {
    changes: ['unknown-fields'],
    check: (f) => expectError(f, RPC_CODES.invalidParams, 'e-uf'),
  },
  'unknown-event-wrong-code': {
    changes: ['unknown-event', 'observe-only-event'],
    check: (f, c) => expectError(f, RPC_CODES.invalidRequest, c!.id),
  },
  'deny-code-not-reverse-dns': {
    changes: ['rm_rf', 'rm_rf-again', 'unknown-fields'],
    check: (f) => {
      expect(effectsOf(f)).toEqual([{ ...RM_DENY, code: 'dangerous_delete' }]);
    },
  },
  'unknown-method-result': {
    changes: ['unknown-method', 'integer-id', 'capabilities-method', 'observe-as-request'],
    check: (f, c) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: c!.id, result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  'reply-to-bad-notifications': {
    changes: [
      'observe-bad-version',
      'observe-unknown-event',
      'notification-unknown-method',
      'intercept-notification-bad-version',
    ],
    check: (f, c, name) => {
      expect(c).toBeNull();
      const code = {
        'observe-bad-version': -32001,
        'observe-unknown-event': -32002,
        'notification-unknown-method': -32601,
        'intercept-notification-bad-version': -32001,
      }[name];
      expectError(f, code!, null);
    },
  },
  'lenient-params': {
    changes: ['no-params', 'no-event', 'id-mismatch'],
    check: (f, c) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: c!.id, result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  'parse-error-with-id': {
    changes: ['not-json', 'bad-utf8'],
    check: (f) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: 0, error: { code: -32700, message: 'parse error' } });
    },
  },
  'echo-authorization': {
    changes: SUCCEEDED,
    check: (f, c) => {
      expect(f).toEqual({
        ...c,
        result: { ...(c!.result as Obj), extensions: { 'com.example.debug': { authorization: AUTH } } },
      });
    },
  },
  'effects-not-array': {
    changes: ['rm_rf-unadvertised', 'write-deny-only', 'other-tool'],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([]);
      expect(effectsOf(f)).toEqual({});
    },
  },
  'wrong-id': {
    changes: SUCCEEDED,
    check: (f, c) => {
      expect(f).toEqual({ ...c, id: `${c!.id}-reply` });
    },
  },
  'ignore-capabilities': {
    changes: ['rm_rf-unadvertised', 'write-deny-only'],
    check: (f, c, name) => {
      expect(effectsOf(c)).toEqual([]);
      expect(effectsOf(f)).toEqual(
        name === 'rm_rf-unadvertised'
          ? [RM_DENY]
          : [{ type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } }],
      );
    },
  },
  'deny-empty-reason': {
    changes: ['rm_rf', 'rm_rf-again', 'unknown-fields'],
    check: (f) => {
      expect(effectsOf(f)).toEqual([{ ...RM_DENY, reason: '' }]);
    },
  },
  'deny-wrong-version': {
    changes: ['rm_rf', 'rm_rf-again', 'unknown-fields'],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([RM_DENY]);
      expect(f).toEqual({ ...c, result: { ...(c!.result as Obj), protocolVersion: '1999-01-01' } });
    },
  },
  'modify-bad-jsonrpc': {
    changes: ['write-merge', 'write-replace', 'content-body'],
    check: (f, c) => {
      expect((effectsOf(c) as Obj[]).some((e) => e.type === 'modify')).toBe(true);
      expect(f).toEqual({ ...c, jsonrpc: '1.0' });
    },
  },
  'modify-wrong-shape': {
    changes: ['write-merge', 'write-replace'],
    check: (f, c) => {
      const [effect] = effectsOf(c) as Obj[];
      expect(effectsOf(f)).toEqual([{ ...effect, value: 'mode=0644' }]);
    },
  },
  'flaky-duplicates': {
    changes: ['rm_rf-again'],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([RM_DENY]);
      expect(f).toEqual({ ...c, result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  'ack-observe': {
    changes: ['observe-valid'],
    check: (f) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: null, result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  'reject-unknown-nested': {
    changes: ['unknown-fields'],
    check: (f) => expectError(f, RPC_CODES.invalidParams, 'e-uf'),
  },
  'family-fallback': {
    changes: ['unknown-event'],
    check: (f) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: 'e-ue', result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  'error-no-message': {
    changes: ['unknown-method', 'integer-id', 'capabilities-method', 'observe-as-request'],
    check: (f, c) => {
      expect(f).toEqual({ jsonrpc: '2.0', id: c!.id, error: { code: RPC_CODES.methodNotFound } });
    },
  },
  'integer-id-as-string': {
    changes: ['integer-id'],
    check: (f, c) => {
      expect(f).toEqual({ ...c, id: '7' });
    },
  },
  'reply-to-malformed-notifications': {
    changes: ['observe-garbage-params'],
    check: (f, c) => {
      expect(c).toBeNull();
      expectError(f, RPC_CODES.invalidParams, null);
    },
  },
  'duplicate-error': {
    changes: ['rm_rf-again'],
    check: (f) => expectError(f, RPC_CODES.invalidRequest, 'e-rm'),
  },
  'silent-on-errors': {
    // Every request refused with -32601, -32001 or -32002 (notifications get no reply anyway).
    changes: [...CONFORMING]
      .filter(([, r]) => [-32601, -32001, -32002].includes((r?.error as Obj | undefined)?.code as number))
      .map(([n]) => n),
    check: (f) => {
      expect(f).toBeNull();
    },
  },
  // The handler's replies do not change: the transports hold them (the process tests below).
  'slow-reverse-refusals': { changes: [] },
  'duplicate-silent': {
    changes: ['rm_rf-again'],
    check: (f) => {
      expect(f).toBeNull();
    },
  },
  'deny-once': {
    // The corpus asks about rm_rf {path: "/"} again in a later event (with unknown members).
    changes: ['unknown-fields'],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([RM_DENY]);
      expect(f).toEqual({ ...c, result: { protocolVersion: 'draft', effects: [] } });
    },
  },
  // Fewer than 20 success replies in the corpus: wrong-id-late is shown by its own test below.
  'wrong-id-late': { changes: [] },
  // Binding faults live in the transports: the handler's replies do not change.
  'log-errors-on-stdout': { changes: [] },
  'pretty-print': { changes: [] },
  'stdout-banner': { changes: [] },
  'exit-after-first': { changes: [] },
  'per-event-exit-1': { changes: [] },
  // The auth modes break the HTTP layer's refusal, before the handler (the http process tests).
  'auth-anonymous': { changes: [] },
  'auth-no-challenge': { changes: [] },
  'auth-any-token': { changes: [] },
  'auth-echo-token': { changes: [] },
  // The OAuth modes too (reference/backend/oauth.ts; test/reference/backend-oauth.spec.ts).
  'oauth-no-metadata': { changes: [] },
  'oauth-any-audience': { changes: [] },
  'oauth-any-typ': { changes: [] },
  'oauth-no-aud-accepted': { changes: [] },
  'oauth-trust-jwk': { changes: [] },
  'oauth-trust-jku': { changes: [] },
  'oauth-trust-x5c': { changes: [] },
  // write_file {path: "a"} was merged first: the replace-only and deny-only requests get that merge again.
  'replay-decision': {
    changes: ['write-replace', 'write-deny-only'],
    check: (f, c) => {
      expect(effectsOf(c)).not.toEqual(effectsOf(CONFORMING.get('write-merge')!));
      expect(f).toEqual({
        ...c,
        result: { ...(c!.result as Obj), effects: effectsOf(CONFORMING.get('write-merge')!) },
      });
    },
  },
  'text-content-type': { changes: [] },
  'observe-200-body': { changes: [] },
  'error-status-400': { changes: [] },
  // The upload receiver (reference/backend/upload.ts) is beside the handler: test/reference/backend-upload.spec.ts.
  'upload-lenient-receiver': { changes: [] },
  'upload-receipt-mismatch': { changes: [] },
  'upload-receiver-anonymous': { changes: [] },
  'upload-receiver-event-token': { changes: [] },
  // The corpus runs under draft@2b5da580, where nothing serves hooks/configuration: see the 1d98c19 tests.
  'configuration-empty': { changes: [] },
  'configuration-with-effects': { changes: [] },
  'configuration-unoffered-wrong-code': { changes: [] },
  'omit-effects': {
    changes: [
      'rm_rf-unadvertised',
      'write-deny-only',
      'other-tool',
      'turn-start',
      'content-hidden',
      'content-unadvertised',
    ],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([]);
      expect(f).toEqual({ ...c, result: { protocolVersion: 'draft' } });
    },
  },
  'noncanonical-modify': {
    changes: ['content-body'],
    check: (f, c) => {
      expect(effectsOf(c)).toMatchObject([{ type: 'modify', target: 'prompt', operation: 'merge' }]);
      // Bare parts repeating the role where messages belong.
      expect(effectsOf(f)).toMatchObject([
        { type: 'modify', target: 'prompt', operation: 'merge', value: [{ kind: 'text', role: 'user' }] },
      ]);
    },
  },
  'edit-hidden': {
    changes: ['content-hidden'],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([]);
      expect(effectsOf(f)).toMatchObject([{ type: 'modify', target: 'summary', operation: 'merge' }]);
    },
  },
  'unadvertised-modify': {
    changes: ['content-unadvertised'],
    check: (f, c) => {
      expect(effectsOf(c)).toEqual([]);
      expect(effectsOf(f)).toEqual([
        { type: 'modify', target: 'workspace', operation: 'merge', value: { cwd: '/work/project' } },
      ]);
    },
  },
  'result-configuration': {
    changes: SUCCEEDED,
    check: (f, c) => {
      expect(f).toEqual({ ...c, result: { ...(c!.result as Obj), configuration: configurationOf(DEFAULT_POLICY) } });
    },
  },
};

test.describe('draft@1d98c19: hooks/configuration and harness on every event', () => {
  const NEW = { snapshot: 'draft@1d98c19' } as const;
  const configure = (id: string | number = 'cfg-1', params: unknown = { protocolVersion: 'draft' }): Obj => ({
    jsonrpc: '2.0',
    id,
    method: 'hooks/configuration',
    params,
  });

  test('served: the policy’s subscriptions, valid against the snapshot’s configuration-response', () => {
    const reply = send(configure(), ctxOf(undefined, NEW));
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'cfg-1',
      result: { protocolVersion: 'draft', configuration: configurationOf(DEFAULT_POLICY) },
    });
    expect(isWireValid(validate('configuration-response', reply, { wireOnly: true, snapshot: 'draft@1d98c19' }))).toBe(
      true,
    );
    expect(send(configure(7, { protocolVersion: '1999-01-01' }), ctxOf(undefined, NEW))?.error).toMatchObject({
      code: RPC_CODES.unsupportedProtocolVersion,
    });
    expect(send(configure(8, 'x'), ctxOf(undefined, NEW))?.error).toMatchObject({ code: RPC_CODES.invalidParams });
    // A notification is never answered.
    expect(send(withoutId(configure()), ctxOf(undefined, NEW))).toBeNull();
  });

  test('not served (--no-configuration, or a snapshot without the method): method not found', () => {
    expectError(
      send(configure(), ctxOf(undefined, { ...NEW, configuration: false })),
      RPC_CODES.methodNotFound,
      'cfg-1',
    );
    expectError(send(configure(), ctxOf()), RPC_CODES.methodNotFound, 'cfg-1');
  });

  test('configuration faults', () => {
    const empty = send(configure(), ctxOf('configuration-empty', NEW));
    expect((empty?.result as Obj).configuration).toEqual({ subscriptions: [] });
    expect(isWireValid(validate('configuration-response', empty, { wireOnly: true, snapshot: 'draft@1d98c19' }))).toBe(
      false,
    );
    const withEffects = send(configure(), ctxOf('configuration-with-effects', NEW));
    expect((withEffects?.result as Obj).effects).toEqual([]);
    expect(
      isWireValid(validate('configuration-response', withEffects, { wireOnly: true, snapshot: 'draft@1d98c19' })),
    ).toBe(false);
    const wrong = send(configure(), ctxOf('configuration-unoffered-wrong-code', { ...NEW, configuration: false }));
    expectError(wrong, RPC_CODES.invalidRequest, 'cfg-1');
  });

  test('omit-effects is valid under draft@1d98c19 only; result-configuration invalid there', () => {
    const req = intercept(toolBefore('e-other', 'read_file'));
    const omitted = send(req, ctxOf('omit-effects', NEW));
    expect(omitted?.result).toEqual({ protocolVersion: 'draft' });
    const valid = (v: unknown, snapshot: 'draft@2b5da580' | 'draft@1d98c19'): boolean =>
      isWireValid(validate('intercept-response', v, { wireOnly: true, snapshot }));
    expect(valid(omitted, 'draft@1d98c19')).toBe(true);
    expect(valid(omitted, 'draft@2b5da580')).toBe(false);
    const carrying = send(req, ctxOf('result-configuration', NEW));
    expect(valid(carrying, 'draft@1d98c19')).toBe(false);
  });

  test('an event without harness is invalid params under draft@1d98c19, accepted under draft@2b5da580', () => {
    const { harness: _h, ...bare } = toolBefore('e-bare', 'read_file');
    expectError(send(intercept(bare), ctxOf(undefined, NEW)), RPC_CODES.invalidParams, 'e-bare');
    expect(resultOf(send(intercept(bare), ctxOf()))).toEqual({ protocolVersion: 'draft', effects: [] });
  });
});

// The fault matrix runs a mode only on the checks whose conforming run asked the probe about
// it (reference/fault-probe.ts). Sound only if a mode changes nothing where it was not asked;
// tight only if the asks stay where a mode can act.
test.describe('the fault probe', () => {
  /** The conforming corpus, each entry with its own traced probe (the state shared as in runCorpus). */
  function tracedCorpus(): Map<string, { reply: Reply | null; asked: Set<string> }> {
    const shared = ctxOf(undefined, { authorization: AUTH });
    return new Map(
      CORPUS.map(([name, msg]) => {
        let told = '';
        const fault = new FaultProbe<FaultMode>(undefined, true, (line) => void (told += line));
        const reply = send(msg, { ...shared, fault });
        return [name, { reply, asked: consultedModes(told) }];
      }),
    );
  }
  const TRACED = tracedCorpus();

  test('tracing leaves the conforming replies alone', () => {
    for (const [name, { reply }] of TRACED) expect(reply, name).toEqual(CONFORMING.get(name));
  });

  test('a mode changes only the replies whose conforming run asked about it', () => {
    for (const mode of FAULT_MODES) {
      const faulty = runCorpus(mode);
      for (const [name] of CORPUS) {
        if (JSON.stringify(faulty.get(name)) === JSON.stringify(CONFORMING.get(name))) continue;
        expect([...TRACED.get(name)!.asked], `${mode} changed ${name}`).toContain(mode);
      }
    }
  });

  test('asks stay where a mode can act', () => {
    const asked = (name: string): string[] => [...TRACED.get(name)!.asked].sort();
    // A plain deny asks the reply-wide modes and the deny ones, not the repeat, version, leniency or unknown-member ones.
    expect(asked('rm_rf')).toEqual(
      [
        'deny-code-not-reverse-dns',
        'deny-empty-reason',
        'deny-wrong-version',
        'echo-authorization',
        'no-jsonrpc-member',
        'no-result-version',
        'result-configuration',
        'wrong-id',
      ].sort(),
    );
    // Its repeat delivery is where the duplicate modes can act (deny-once answers a repeat alike).
    expect(asked('rm_rf-again')).toEqual(
      expect.arrayContaining(['duplicate-error', 'duplicate-silent', 'flaky-duplicates']),
    );
    expect(asked('rm_rf-again')).not.toContain('deny-once');
    expect(asked('unknown-fields')).toEqual(expect.arrayContaining(['reject-unknown-fields', 'reject-unknown-nested']));
    // A valid observation is asked about by ack-observe only.
    expect(asked('observe-valid')).toEqual(['ack-observe']);
  });
});

test.describe('faults that carry state across requests', () => {
  test('wrong-id-late: from the 20th success reply of a process on, the id is wrong', () => {
    const ctx = ctxOf('wrong-id-late', { counts: { successes: 0 } });
    for (let i = 1; i <= 25; i++) {
      const reply = send(intercept(toolBefore(`e-${i}`, 'read_file')), ctx);
      expect(reply?.id, `reply ${i}`).toBe(i < 20 ? `e-${i}` : `e-${i}-late`);
    }
  });

  test('deny-once: a duplicate of the denied event is denied again, a new event for the same call is not', () => {
    const ctx = ctxOf('deny-once');
    expect(effectsOf(send(intercept(toolBefore('e-1', 'rm_rf', { path: '/' })), ctx))).toEqual([RM_DENY]);
    expect(effectsOf(send(intercept(toolBefore('e-1', 'rm_rf', { path: '/' })), ctx))).toEqual([RM_DENY]);
    expect(effectsOf(send(intercept(toolBefore('e-2', 'rm_rf', { path: '/' })), ctx))).toEqual([]);
    expect(effectsOf(send(intercept(toolBefore('e-3', 'rm_rf', { path: '/tmp' })), ctx))).toEqual([RM_DENY]);
  });
});

test.describe('faults change exactly the replies they describe', () => {
  test('the conforming corpus replies are what the rules say', () => {
    expect(REPLIED).toEqual(expect.arrayContaining(['not-json', 'rm_rf', 'no-params']));
    for (const n of [
      'batch',
      'observe-valid',
      'observe-bad-version',
      'observe-unknown-event',
      'notification-unknown-method',
      'observe-garbage-params',
      'intercept-notification-bad-version',
    ]) {
      expect(CONFORMING.get(n), n).toBeNull();
    }
    expect(SUCCEEDED).toEqual([
      'rm_rf',
      'rm_rf-again',
      'rm_rf-unadvertised',
      'write-merge',
      'write-replace',
      'write-deny-only',
      'other-tool',
      'unknown-fields',
      'turn-start',
      'content-body',
      'content-hidden',
      'content-unadvertised',
    ]);
    for (const n of SUCCEEDED) {
      expect(isWireValid(validate('intercept-response', CONFORMING.get(n), { wireOnly: true })), n).toBe(true);
    }
  });

  for (const mode of FAULT_MODES) {
    test(mode, () => {
      const faulty = runCorpus(mode);
      const changed = CORPUS.map(([n]) => n).filter(
        (n) => JSON.stringify(faulty.get(n)) !== JSON.stringify(CONFORMING.get(n)),
      );
      const want = FAULT_EXPECTATIONS[mode];
      expect(changed).toEqual([...want.changes]);
      for (const n of changed) want.check?.(faulty.get(n) ?? null, CONFORMING.get(n) ?? null, n);
    });
  }
});

// ------------------------------------------------------------------ command line

const OLDEST = { snapshot: 'draft@2b5da580', configuration: false } as const;

test.describe('command line', () => {
  test('valid argument sets', () => {
    expect(parseBackendArgs(['--transport', 'stdio', '--lifecycle', 'persistent'])).toEqual({
      ok: true,
      options: { ...OLDEST, transport: 'stdio', lifecycle: 'persistent', policy: DEFAULT_POLICY },
    });
    expect(parseBackendArgs(['--transport', 'http', '--port', '8080'])).toEqual({
      ok: true,
      options: { ...OLDEST, transport: 'http', port: 8080, host: '127.0.0.1', path: '/hooks', policy: DEFAULT_POLICY },
    });
    const full = parseBackendArgs([
      '--transport',
      'http',
      '--port',
      '0',
      '--host',
      '::1',
      '--path',
      '/x/y',
      '--token-env',
      'AHP_TOKEN',
      '--fault',
      'wrong-id',
    ]);
    expect(full).toEqual({
      ok: true,
      options: {
        ...OLDEST,
        transport: 'http',
        port: 0,
        host: '::1',
        path: '/x/y',
        tokenEnv: 'AHP_TOKEN',
        fault: 'wrong-id',
        policy: DEFAULT_POLICY,
      },
    });
    expect(
      parseBackendArgs(['--transport', 'stdio', '--lifecycle', 'per_event', '--fault', 'per-event-exit-1']).ok,
    ).toBe(true);
    // The lifecycle defaults to persistent, which also serves a per_event exchange.
    expect(parseBackendArgs(['--transport', 'stdio'])).toEqual({
      ok: true,
      options: { ...OLDEST, transport: 'stdio', lifecycle: 'persistent', policy: DEFAULT_POLICY },
    });
    expect(parseBackendArgs(['--transport', 'stdio', '--fault', 'exit-after-first']).ok).toBe(true);
    // A snapshot with hooks/configuration serves it unless told not to.
    expect(parseBackendArgs(['--transport', 'stdio', '--snapshot', 'draft@1d98c19'])).toEqual({
      ok: true,
      options: {
        snapshot: 'draft@1d98c19',
        configuration: true,
        transport: 'stdio',
        lifecycle: 'persistent',
        policy: DEFAULT_POLICY,
      },
    });
    const off = parseBackendArgs(['--transport', 'stdio', '--snapshot', 'draft@1d98c19', '--no-configuration']);
    expect(off.ok && off.options.configuration).toBe(false);
    // A slow mode is told the claim's timeoutMs.
    expect(
      parseBackendArgs(['--transport', 'stdio', '--fault', 'slow-reverse-refusals', '--timeout-ms', '2000']),
    ).toEqual({
      ok: true,
      options: {
        ...OLDEST,
        timeoutMs: 2000,
        transport: 'stdio',
        lifecycle: 'persistent',
        fault: 'slow-reverse-refusals',
        policy: DEFAULT_POLICY,
      },
    });
    for (const argv of [
      ['--snapshot', 'draft@1d98c19', '--fault', 'configuration-empty'],
      ['--snapshot', 'draft@1d98c19', '--no-configuration', '--fault', 'configuration-unoffered-wrong-code'],
      ['--fault', 'omit-effects'],
      ['--snapshot', 'draft@1d98c19', '--fault', 'omit-effects'],
    ])
      expect(parseBackendArgs(['--transport', 'stdio', ...argv]).ok, argv.join(' ')).toBe(true);
  });

  test('bad argument sets give one line', () => {
    const bad = [
      [],
      ['--transport', 'ftp'],
      ['--transport', 'stdio', '--lifecycle', 'forever'],
      ['--transport', 'stdio', '--fault', 'per-event-exit-1'],
      ['--transport', 'stdio', '--lifecycle', 'persistent', '--port', '1'],
      ['--transport', 'http'],
      ['--transport', 'http', '--port', '70000'],
      ['--transport', 'http', '--port', 'x'],
      ['--transport', 'http', '--port', '1', '--lifecycle', 'persistent'],
      ['--transport', 'http', '--port', '1', '--path', 'hooks'],
      ['--transport', 'http', '--port', '1', '--token-env', 'NOT-A-NAME'],
      ['--transport', 'http', '--port', '1', '--upload-token-env', 'NOT-A-NAME'],
      ['--transport', 'http', '--port', '1', '--token-env', 'SAME', '--upload-token-env', 'SAME'],
      ['--transport', 'stdio', '--upload-token-env', 'AHP_UPLOAD'],
      ['--bogus'],
      ['--transport', 'stdio', 'extra'],
      ['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'nope'],
      ['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'text-content-type'],
      ['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'per-event-exit-1'],
      ['--transport', 'http', '--port', '1', '--fault', 'pretty-print'],
      ['--transport', 'stdio', '--lifecycle', 'persistent', '--policy', '/nonexistent/policy.json'],
      ['--transport', 'stdio', '--snapshot', 'draft@0000000'],
      ['--transport', 'stdio', '--no-configuration'],
      ['--transport', 'stdio', '--fault', 'configuration-empty'],
      ['--transport', 'stdio', '--snapshot', 'draft@1d98c19', '--no-configuration', '--fault', 'configuration-empty'],
      ['--transport', 'stdio', '--snapshot', 'draft@1d98c19', '--fault', 'configuration-unoffered-wrong-code'],
      ['--transport', 'stdio', '--fault', 'slow-reverse-refusals'],
      ['--transport', 'stdio', '--timeout-ms', '2000'],
      ['--transport', 'http', '--port', '1', '--fault', 'wrong-id', '--timeout-ms', '2000'],
      ['--transport', 'stdio', '--fault', 'slow-reverse-refusals', '--timeout-ms', '0'],
      ['--transport', 'stdio', '--fault', 'slow-reverse-refusals', '--timeout-ms', '2s'],
    ];
    for (const argv of bad) {
      const r = parseBackendArgs(argv);
      expect(r.ok, argv.join(' ')).toBe(false);
      if (!r.ok) expect(r.error, argv.join(' ')).not.toContain('\n');
    }
  });
});

// ------------------------------------------------------------------ processes

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  expect(existsSync(MAIN), `${MAIN} is missing: run npm run build first`).toBe(true);
  return spawn(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

function stop(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function collect(child: ChildProcess): { out: () => string; err: () => string; exit: Promise<Exit> } {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exit = new Promise<Exit>((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
  return { out: () => stdout, err: () => stderr, exit };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Run to completion with this stdin. */
async function run(args: string[], input: string, env: NodeJS.ProcessEnv = {}): Promise<Exit> {
  const child = start(args, env);
  try {
    const c = collect(child);
    child.stdin!.on('error', () => {
      /* the process may exit before reading everything */
    });
    child.stdin!.end(input);
    return await within(c.exit, 20_000, args.join(' '));
  } finally {
    stop(child);
  }
}

const line = (msg: Obj): string => JSON.stringify(msg) + '\n';
const lines = (text: string): string[] => text.split('\n');

test.describe('stdio process', () => {
  test('persistent: answers each request line in order, nothing for notifications, exit 0 on EOF', async () => {
    const input =
      line(intercept(toolBefore('p-1', 'rm_rf'))) +
      line(observe(sessionEnd('p-obs'))) +
      line(intercept(toolBefore('p-2', 'read_file'))) +
      line({ jsonrpc: '2.0', id: 'p-3', method: 'hooks/bogus' });
    const r = await run(['--transport', 'stdio', '--lifecycle', 'persistent'], input);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(4);
    expect(out[3]).toBe('');
    const replies = out.slice(0, 3).map((l) => JSON.parse(l) as Obj);
    expect(replies.map((x) => x.id)).toEqual(['p-1', 'p-2', 'p-3']);
    expect(effectsOf(replies[0] as Reply)).toEqual([RM_DENY]);
    expect(effectsOf(replies[1] as Reply)).toEqual([]);
    expect((replies[2]!.error as Obj).code).toBe(-32601);
  });

  test('persistent: replies before end of input, one exchange at a time', async () => {
    const child = start(['--transport', 'stdio', '--lifecycle', 'persistent']);
    try {
      const c = collect(child);
      for (const id of ['i-1', 'i-2', 'i-3']) {
        const before = c.out().length;
        child.stdin!.write(line(intercept(toolBefore(id, 'rm_rf'))));
        await expect.poll(() => c.out().slice(before).endsWith('\n'), { timeout: 15_000 }).toBe(true);
        expect(JSON.parse(c.out().slice(before)).id).toBe(id);
      }
      child.stdin!.end();
      const r = await within(c.exit, 10_000, 'exit on EOF');
      expect(r.code).toBe(0);
      expect(lines(r.stdout)).toHaveLength(4);
    } finally {
      stop(child);
    }
  });

  test('per_event: one request, one reply line, exit 0', async () => {
    const r = await run(
      ['--transport', 'stdio', '--lifecycle', 'per_event'],
      line(intercept(toolBefore('pe-1', 'rm_rf'))),
    );
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(2);
    expect(JSON.parse(lines(r.stdout)[0]!)).toEqual({
      jsonrpc: '2.0',
      id: 'pe-1',
      result: { protocolVersion: 'draft', effects: [RM_DENY] },
    });
  });

  test('without --lifecycle (persistent) a per_event-style exchange still gets one line and exit 0', async () => {
    const r = await run(['--transport', 'stdio'], line(intercept(toolBefore('pe-0', 'read_file'))));
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(2);
    expect(JSON.parse(lines(r.stdout)[0]!).id).toBe('pe-0');
  });

  test('per_event: a notification gets no output, exit 0', async () => {
    const r = await run(['--transport', 'stdio', '--lifecycle', 'per_event'], line(observe(sessionEnd('pe-2'))));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  test('per_event: a custom policy file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ahp-ref-'));
    try {
      const file = join(dir, 'policy.json');
      writeFileSync(
        file,
        JSON.stringify({ rules: [{ event: 'tool.before', tool: 'curl', deny: { reason: 'no network' } }] }),
      );
      const r = await run(
        ['--transport', 'stdio', '--lifecycle', 'per_event', '--policy', file],
        line(intercept(toolBefore('pe-3', 'curl'))),
      );
      expect(r.code).toBe(0);
      expect(effectsOf(JSON.parse(r.stdout) as Reply)).toEqual([{ type: 'deny', reason: 'no network' }]);
      writeFileSync(file, '{"rules": [');
      const bad = await run(['--transport', 'stdio', '--lifecycle', 'per_event', '--policy', file], '');
      expect(bad.code).toBe(2);
      expect(lines(bad.stderr.trimEnd())).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad arguments and an unknown fault: one stderr line, exit 2, nothing on stdout', async () => {
    for (const args of [
      ['--transport', 'pigeon'],
      ['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'nope'],
    ]) {
      const r = await run(args, '');
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr.trimEnd())).toHaveLength(1);
    }
  });

  test('slow-reverse-refusals: refusals held and released newest first, overtaken by the other replies', async () => {
    const slow = ['--transport', 'stdio', '--fault', 'slow-reverse-refusals'];
    const child = start([...slow, '--timeout-ms', '1000']);
    try {
      const c = collect(child);
      // One write: the two refusals wait through the start-up with the intercept after them.
      child.stdin!.write(
        line({ jsonrpc: '2.0', id: 's-1', method: 'hooks/bogus' }) +
          line(withVersion(intercept(toolBefore('s-2', 'read_file')), '1999-01-01')) +
          line(intercept(toolBefore('s-3', 'rm_rf'))),
      );
      await expect.poll(() => lines(c.out()).length, { timeout: 15_000 }).toBe(4);
      const replies = lines(c.out())
        .slice(0, 3)
        .map((l) => JSON.parse(l) as Obj);
      expect(replies.map((r) => r.id)).toEqual(['s-3', 's-2', 's-1']);
      expect(replies.map((r) => (r.error as Obj | undefined)?.code)).toEqual([undefined, -32001, -32601]);
      child.stdin!.end();
      expect((await within(c.exit, 10_000, 'exit on EOF')).code).toBe(0);
    } finally {
      stop(child);
    }
    // End of input releases what is held at once (a hold of 5 min would outlast the test).
    const eof = await run([...slow, '--timeout-ms', '600000'], line({ jsonrpc: '2.0', id: 's-4', method: 'hooks/x' }));
    expect(eof.code).toBe(0);
    expect(JSON.parse(lines(eof.stdout)[0]!).id).toBe('s-4');
    // per_event: the one refusal is held (only late: there is nothing to overtake it), then the exit.
    const one = await run(
      ['--transport', 'stdio', '--lifecycle', 'per_event', '--fault', 'slow-reverse-refusals', '--timeout-ms', '1000'],
      line({ jsonrpc: '2.0', id: 's-5', method: 'hooks/x' }),
    );
    expect(one.code).toBe(0);
    expect(JSON.parse(lines(one.stdout)[0]!).id).toBe('s-5');
  });

  test('a reply hold: released together at the first deadline, newest first', async () => {
    const out: string[] = [];
    const hold = new ReplyHold<string>((r) => out.push(r));
    hold.add('a', Date.now() + 600_000);
    hold.add('b', Date.now());
    hold.add('c', Date.now() + 600_000);
    await expect.poll(() => out.length, { timeout: 10_000 }).toBe(3);
    expect(out).toEqual(['c', 'b', 'a']);
    expect(hold.size).toBe(0);
    hold.add('d', Date.now() + 600_000);
    hold.flush();
    expect(out).toEqual(['c', 'b', 'a', 'd']);
    expect(holdMs(2000)).toBe(500);
  });

  test('faults: pretty-print, stdout-banner, exit-after-first, per-event-exit-1', async () => {
    const two = line(intercept(toolBefore('f-1', 'rm_rf'))) + line(intercept(toolBefore('f-2', 'rm_rf')));
    const pretty = await run(['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'pretty-print'], two);
    expect(pretty.code).toBe(0);
    expect(lines(pretty.stdout).length).toBeGreaterThan(3);
    expect(pretty.stdout).toContain('\n  "jsonrpc": "2.0"');

    const banner = await run(['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'stdout-banner'], two);
    expect(banner.code).toBe(0);
    expect(lines(banner.stdout)[0]).toBe('reference backend ready');
    expect(lines(banner.stdout)).toHaveLength(4);

    const first = await run(['--transport', 'stdio', '--lifecycle', 'persistent', '--fault', 'exit-after-first'], two);
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toHaveLength(2);
    expect(JSON.parse(lines(first.stdout)[0]!).id).toBe('f-1');

    const exit1 = await run(
      ['--transport', 'stdio', '--lifecycle', 'per_event', '--fault', 'per-event-exit-1'],
      line(intercept(toolBefore('f-3', 'rm_rf'))),
    );
    expect(exit1.code).toBe(1);
    expect(JSON.parse(exit1.stdout).id).toBe('f-3');
  });
});

interface HttpBackend {
  base: string;
  child: ChildProcess;
  exit: Promise<Exit>;
}

async function startHttp(extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpBackend> {
  const port = await getPort({ host: '127.0.0.1' });
  const child = start(['--transport', 'http', '--port', String(port), ...extra], env);
  const c = collect(child);
  try {
    await expect
      .poll(() => c.err().includes('listening on') || child.exitCode !== null, { timeout: 15_000 })
      .toBe(true);
    expect(c.err()).toContain(`listening on http://127.0.0.1:${port}/`);
  } catch (e) {
    stop(child);
    throw e;
  }
  return { base: `http://127.0.0.1:${port}`, child, exit: c.exit };
}

const post = (url: string, body: string | Obj, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

test.describe('http process', () => {
  test('intercept 200 JSON, observe 204 empty, errors 200, wrong path 404, wrong method 405, SIGTERM exits 0', async () => {
    let b: HttpBackend | undefined;
    try {
      b = await startHttp();
      const r1 = await post(`${b.base}/hooks`, intercept(toolBefore('h-1', 'rm_rf')));
      expect(r1.status).toBe(200);
      expect(r1.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await r1.json()).toEqual({
        jsonrpc: '2.0',
        id: 'h-1',
        result: { protocolVersion: 'draft', effects: [RM_DENY] },
      });

      const r2 = await post(`${b.base}/hooks`, observe(sessionEnd('h-2')));
      expect(r2.status).toBe(204);
      expect(await r2.text()).toBe('');

      const r3 = await post(`${b.base}/hooks`, 'not json');
      expect(r3.status).toBe(200);
      expect(((await r3.json()) as Obj).error).toEqual({ code: -32700, message: 'parse error' });

      const r4 = await post(`${b.base}/other`, intercept(toolBefore('h-4', 'rm_rf')));
      expect(r4.status).toBe(404);
      await r4.text();
      const r5 = await fetch(`${b.base}/hooks`);
      expect(r5.status).toBe(405);
      await r5.text();
      const r6 = await post(`${b.base}/hooks`, 'x'.repeat(1024 * 1024 + 1));
      expect(r6.status).toBe(413);
      await r6.text();

      b.child.kill('SIGTERM');
      const exit = await within(b.exit, 10_000, 'SIGTERM');
      expect(exit.code).toBe(0);
      expect(exit.stdout).toBe('');
    } finally {
      stop(b?.child);
    }
  });

  test('slow-reverse-refusals: refusals held, the other requests answered at once', async () => {
    let b: HttpBackend | undefined;
    try {
      b = await startHttp(['--fault', 'slow-reverse-refusals', '--timeout-ms', '10000']);
      const url = `${b.base}/hooks`;
      const done: string[] = [];
      const timed = (id: string, p: Promise<Response>): Promise<Obj> =>
        p.then(async (r) => {
          done.push(id);
          expect(r.status).toBe(200);
          return (await r.json()) as Obj;
        });
      const refused = [
        timed('r-1', post(url, { jsonrpc: '2.0', id: 'r-1', method: 'hooks/bogus' })),
        timed('r-2', post(url, withVersion(intercept(toolBefore('r-2', 'rm_rf')), '1999-01-01'))),
      ];
      // Held for 2.5 s: this one, sent after them, comes back first.
      const ok = await timed('r-3', post(url, intercept(toolBefore('r-3', 'rm_rf'))));
      expect(ok.id).toBe('r-3');
      expect(done).toEqual(['r-3']);
      const [one, two] = await Promise.all(refused);
      expect([one!.id, (one!.error as Obj).code, two!.id, (two!.error as Obj).code]).toEqual([
        'r-1',
        -32601,
        'r-2',
        -32001,
      ]);
    } finally {
      stop(b?.child);
    }
  });

  test('--token-env: the bearer token is required when the variable is set', async () => {
    const token = 'tok-' + Math.random().toString(36).slice(2);
    let b: HttpBackend | undefined;
    try {
      b = await startHttp(['--token-env', 'AHP_REF_TEST_TOKEN', '--path', '/v1/hooks'], { AHP_REF_TEST_TOKEN: token });
      const url = `${b.base}/v1/hooks`;
      const none = await post(url, intercept(toolBefore('t-1', 'rm_rf')));
      expect(none.status).toBe(401);
      expect(await none.text()).not.toContain('jsonrpc');
      const wrong = await post(url, intercept(toolBefore('t-2', 'rm_rf')), { Authorization: 'Bearer nope' });
      expect(wrong.status).toBe(401);
      await wrong.text();
      const ok = await post(url, intercept(toolBefore('t-3', 'rm_rf')), { Authorization: `Bearer ${token}` });
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(JSON.parse(text).id).toBe('t-3');
      expect(text).not.toContain(token);
    } finally {
      stop(b?.child);
    }
  });

  test('--auth bearer: challenges on 401, 400 for a token in two places, fails closed without the token', async () => {
    const token = 'tok-' + Math.random().toString(36).slice(2);
    let b: HttpBackend | undefined;
    try {
      b = await startHttp(['--auth', 'bearer', '--token-env', 'AHP_REF_TEST_TOKEN'], { AHP_REF_TEST_TOKEN: token });
      const url = `${b.base}/hooks`;
      const none = await post(url, intercept(toolBefore('a-1', 'rm_rf')));
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="/);
      await none.text();
      const wrong = await post(url, intercept(toolBefore('a-2', 'rm_rf')), { Authorization: 'Bearer nope' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await wrong.text()).not.toContain('nope');
      const query = await post(`${url}?access_token=${token}`, intercept(toolBefore('a-3', 'rm_rf')), {
        Authorization: `Bearer ${token}`,
      });
      expect(query.status).toBe(400);
      expect(await query.text()).not.toContain('jsonrpc');
      const ok = await post(url, intercept(toolBefore('a-4', 'rm_rf')), { Authorization: `Bearer ${token}` });
      expect(ok.status).toBe(200);
      await ok.text();
    } finally {
      stop(b?.child);
    }
    const port = await getPort({ host: '127.0.0.1' });
    const unset = start(
      ['--transport', 'http', '--port', String(port), '--auth', 'bearer', '--token-env', 'AHP_REF_TEST_UNSET_TOKEN'],
      { AHP_REF_TEST_UNSET_TOKEN: undefined },
    );
    const exit = await within(collect(unset).exit, 10_000, 'exit without the token');
    expect(exit.code).toBe(2);
  });

  test('--upload-token-env with the variable unset: fails closed (exit 2)', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const unset = start(
      ['--transport', 'http', '--port', String(port), '--upload-token-env', 'AHP_REF_TEST_UNSET_UP'],
      {
        AHP_REF_TEST_UNSET_UP: undefined,
      },
    );
    const exit = await within(collect(unset).exit, 10_000, 'exit without the upload token');
    expect(exit.code).toBe(2);
  });

  test('--auth oauth: metadata, challenges, tokens bound to the resource, scope 403, fails closed without the issuer', async () => {
    const ca = await createRunCa();
    const as = await AuthorizationServer.start({ ca, clientId: 'c', clientSecret: 's' });
    const dir = mkdtempSync(join(tmpdir(), 'ahp-ref-oauth-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, ca.certPem);
    const args = [
      '--auth',
      'oauth',
      '--issuer-env',
      'AHP_REF_ISSUER',
      '--ca-file-env',
      'AHP_REF_CA',
      '--scopes',
      'a,b',
    ];
    let b: HttpBackend | undefined;
    try {
      b = await startHttp(args, { AHP_REF_ISSUER: as.issuer, AHP_REF_CA: caFile });
      const url = `${b.base}/hooks`;
      const metadataUrl = `${b.base}/.well-known/oauth-protected-resource/hooks`;
      const none = await post(url, intercept(toolBefore('o-1', 'rm_rf')));
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
      await none.text();
      const meta = await fetch(metadataUrl);
      expect(meta.status).toBe(200);
      expect(await meta.json()).toMatchObject({ resource: url, authorization_servers: [as.issuer] });
      const send = async (token: string): Promise<Response> =>
        post(url, intercept(toolBefore('o-2', 'rm_rf')), { Authorization: `Bearer ${token}` });
      const good = await send(await as.mint({ aud: url, scope: 'b a' }));
      expect(good.status).toBe(200);
      expect((await good.json()).result).toBeDefined();
      const nowS = Math.floor(Date.now() / 1000);
      for (const token of [
        await as.mint({ aud: `${url}-other`, scope: 'a b' }),
        await as.mint({ aud: url, scope: 'a b', expS: nowS - 3600 }),
        await as.mint({ aud: url, scope: 'a b', iss: `${as.issuer}/other` }),
        await as.forge({ aud: url, scope: 'a b' }),
        // RFC 9068 4 and RFC 8725 3.10: another typ, no aud, a key the token carries itself.
        await as.mint({ aud: url, scope: 'a b', typ: 'JWT' }),
        await as.mint({ aud: null, scope: 'a b' }),
        await as.forgeWithOwnKey('jwk', { aud: url, scope: 'a b' }),
        await as.forgeWithOwnKey('jku', { aud: url, scope: 'a b' }),
        await as.forgeWithOwnKey('x5c', { aud: url, scope: 'a b' }),
      ]) {
        const r = await send(token);
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(await r.text()).not.toContain('jsonrpc');
      }
      // typ is a media type: the long form, in any case, is the same type.
      const longTyp = await send(await as.mint({ aud: url, scope: 'a b', typ: 'application/AT+JWT' }));
      expect(longTyp.status).toBe(200);
      await longTyp.text();
      const narrow = await send(await as.mint({ aud: url, scope: 'a' }));
      expect(narrow.status).toBe(403);
      expect(narrow.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      await narrow.text();
    } finally {
      stop(b?.child);
    }
    try {
      // Faults: no metadata (and a realm, not resource_metadata); any audience.
      b = await startHttp([...args, '--fault', 'oauth-no-metadata'], { AHP_REF_ISSUER: as.issuer, AHP_REF_CA: caFile });
      const none = await post(`${b.base}/hooks`, intercept(toolBefore('o-3', 'rm_rf')));
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="/);
      await none.text();
      expect((await fetch(`${b.base}/.well-known/oauth-protected-resource/hooks`)).status).toBe(404);
      stop(b.child);
      b = await startHttp([...args, '--fault', 'oauth-any-audience'], {
        AHP_REF_ISSUER: as.issuer,
        AHP_REF_CA: caFile,
      });
      const other = await post(`${b.base}/hooks`, intercept(toolBefore('o-4', 'rm_rf')), {
        Authorization: `Bearer ${await as.mint({ aud: 'https://elsewhere.invalid/', scope: 'a b' })}`,
      });
      expect(other.status).toBe(200);
      await other.text();
      const forged = await post(`${b.base}/hooks`, intercept(toolBefore('o-5', 'rm_rf')), {
        Authorization: `Bearer ${await as.forge({ aud: `${b.base}/hooks`, scope: 'a b' })}`,
      });
      expect(forged.status).toBe(401);
      await forged.text();
      stop(b.child);
      b = undefined;
      // Each issue-24 mode takes its own token and still refuses the others' (the forged ones
      // stay refused by the typ and aud modes, the typ and aud ones by the key modes).
      const tokens = {
        'oauth-any-typ': (u: string) => as.mint({ aud: u, scope: 'a b', typ: 'JWT' }),
        'oauth-no-aud-accepted': () => as.mint({ aud: null, scope: 'a b' }),
        'oauth-trust-jwk': (u: string) => as.forgeWithOwnKey('jwk', { aud: u, scope: 'a b' }),
        'oauth-trust-jku': (u: string) => as.forgeWithOwnKey('jku', { aud: u, scope: 'a b' }),
        'oauth-trust-x5c': (u: string) => as.forgeWithOwnKey('x5c', { aud: u, scope: 'a b' }),
      } as const;
      for (const mode of Object.keys(tokens) as (keyof typeof tokens)[]) {
        b = await startHttp([...args, '--fault', mode], { AHP_REF_ISSUER: as.issuer, AHP_REF_CA: caFile });
        const url = `${b.base}/hooks`;
        for (const [other, mint] of Object.entries(tokens)) {
          const r = await post(url, intercept(toolBefore(`o-${other}`, 'rm_rf')), {
            Authorization: `Bearer ${await mint(url)}`,
          });
          expect(r.status, `${mode} given the token of ${other}`).toBe(other === mode ? 200 : 401);
          await r.text();
        }
        const elsewhere = await post(url, intercept(toolBefore('o-6', 'rm_rf')), {
          Authorization: `Bearer ${await as.mint({ aud: `${url}-other`, scope: 'a b' })}`,
        });
        expect(elsewhere.status, `${mode}: another audience`).toBe(401);
        await elsewhere.text();
        stop(b.child);
        b = undefined;
      }
    } finally {
      stop(b?.child);
    }
    // Fails closed: no issuer variable, and an issuer whose certificate is not of the CA given.
    const stranger = await AuthorizationServer.start({
      ca,
      clientId: 'c',
      clientSecret: 's',
      misbehaviour: 'untrusted-certificate',
    });
    try {
      for (const env of [
        { AHP_REF_ISSUER: undefined, AHP_REF_CA: caFile },
        { AHP_REF_ISSUER: stranger.issuer, AHP_REF_CA: caFile },
      ]) {
        const port = await getPort({ host: '127.0.0.1' });
        const child = start(['--transport', 'http', '--port', String(port), ...args], env);
        const exit = await within(collect(child).exit, 15_000, 'exit without a usable issuer');
        expect(exit.code).toBe(2);
      }
    } finally {
      await stranger.close();
      await as.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--token-env with the variable unset: no authentication', async () => {
    let b: HttpBackend | undefined;
    try {
      b = await startHttp(['--token-env', 'AHP_REF_TEST_UNSET_TOKEN'], { AHP_REF_TEST_UNSET_TOKEN: undefined });
      const r = await post(`${b.base}/hooks`, intercept(toolBefore('t-4', 'read_file')));
      expect(r.status).toBe(200);
      await r.text();
    } finally {
      stop(b?.child);
    }
  });

  test('faults: text-content-type, observe-200-body, error-status-400, echo-authorization', async () => {
    const backends: HttpBackend[] = [];
    try {
      const started = await Promise.allSettled(
        ['text-content-type', 'observe-200-body', 'error-status-400', 'echo-authorization'].map((f) =>
          startHttp(['--fault', f]),
        ),
      );
      for (const s of started) if (s.status === 'fulfilled') backends.push(s.value);
      expect(backends).toHaveLength(4);
      const [text, obs, err, echo] = backends;

      const r1 = await post(`${text!.base}/hooks`, intercept(toolBefore('hf-1', 'rm_rf')));
      expect(r1.status).toBe(200);
      expect(r1.headers.get('content-type')).toBe('text/plain');
      await r1.text();

      const r2 = await post(`${obs!.base}/hooks`, observe(sessionEnd('hf-2')));
      expect(r2.status).toBe(200);
      expect(await r2.text()).toBe('{}');

      const r3 = await post(`${err!.base}/hooks`, { jsonrpc: '2.0', id: 'hf-3', method: 'hooks/bogus' });
      expect(r3.status).toBe(400);
      expect(((await r3.json()) as Obj).error).toEqual({ code: -32601, message: 'method not found' });
      const r3b = await post(`${err!.base}/hooks`, intercept(toolBefore('hf-3b', 'rm_rf')));
      expect(r3b.status).toBe(200);
      await r3b.text();

      const r4 = await post(`${echo!.base}/hooks`, intercept(toolBefore('hf-4', 'read_file')), {
        Authorization: 'Bearer leak-me',
      });
      expect(r4.status).toBe(200);
      expect(((await r4.json()) as Obj).result).toEqual({
        protocolVersion: 'draft',
        effects: [],
        extensions: { 'com.example.debug': { authorization: 'Bearer leak-me' } },
      });
    } finally {
      for (const b of backends) stop(b.child);
    }
  });
});
