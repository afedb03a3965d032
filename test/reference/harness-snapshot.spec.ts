// The reference harness under each snapshot (--snapshot): the rules that differ
// (src/protocol/snapshots.ts) as its reply and configuration judgement apply them.
import { FaultProbe } from '../../reference/fault-probe.js';
import { test, expect } from '@playwright/test';
import { parseHarnessArgs } from '../../reference/harness/args.js';
import { judgeConfiguration } from '../../reference/harness/configuration.js';
import { judgeReply } from '../../reference/harness/reply.js';
import type { JsonObject, JsonValue } from '../../src/protocol/json.js';

const SUB = {
  events: ['tool.before'],
  mode: 'intercept',
  timeoutMs: 500,
  failurePolicy: 'fail-open',
  content: { default: 'body' },
};
const reply = (result: JsonValue, id = 'c1'): JsonObject => ({ jsonrpc: '2.0', id, result });

test('--snapshot: default 2b5da580, a known snapshot by prefix or plain draft, anything else refused', () => {
  expect(parseHarnessArgs(['--config', 'c.json'], {})).toMatchObject({ ok: true, snapshot: 'draft@2b5da580' });
  expect(parseHarnessArgs(['--config', 'c.json', '--snapshot', 'draft@1d98c19'], {})).toMatchObject({
    ok: true,
    snapshot: 'draft@1d98c19',
  });
  expect(parseHarnessArgs(['--config', 'c.json', '--snapshot', 'draft'], {})).toMatchObject({
    ok: true,
    snapshot: 'draft@1d98c19',
  });
  expect(parseHarnessArgs(['--config', 'c.json', '--snapshot', 'draft@ffffffff'], {}).ok).toBe(false);
});

test('a result without effects: no effect when the snapshot allows it, else an operational failure', () => {
  const noEffects = { jsonrpc: '2.0', id: 'e1', result: { protocolVersion: 'draft' } };
  expect(judgeReply(noEffects, 'e1', {}, undefined, 'draft@1d98c19')).toEqual({
    ok: true,
    decision: { kind: 'no-effect' },
  });
  expect(judgeReply(noEffects, 'e1', {}, undefined, 'draft@2b5da580').ok).toBe(false);
  expect(judgeReply(noEffects, 'e1', {}, new FaultProbe('effects-required'), 'draft@1d98c19').ok).toBe(false);
});

test('a configuration reply is used only when valid; the lenient fault keeps what parses', () => {
  expect(
    judgeConfiguration(reply({ protocolVersion: 'draft', configuration: { subscriptions: [SUB] } }), 'c1'),
  ).toEqual({
    ok: true,
    subscriptions: [
      { events: ['tool.before'], mode: 'intercept', timeoutMs: 500, failurePolicy: 'fail-open', view: 'body' },
    ],
  });
  const lacking = { events: ['tool.before'], mode: 'intercept', content: { default: 'body' } };
  for (const bad of <JsonObject[]>[
    reply({ protocolVersion: 'draft', configuration: { subscriptions: [lacking] } }),
    reply({ protocolVersion: 'draft', configuration: { subscriptions: [SUB] }, effects: [] }),
    reply({ protocolVersion: 'draft', configuration: { subscriptions: [] } }),
    reply({ protocolVersion: '0.1', configuration: { subscriptions: [SUB] } }),
    reply({ protocolVersion: 'draft', configuration: { subscriptions: [SUB] } }, 'other'),
    { jsonrpc: '2.0', id: 'c1', error: { code: -32601, message: 'Method not found' } },
  ])
    expect(judgeConfiguration(bad, 'c1').ok, JSON.stringify(bad)).toBe(false);
  expect(
    judgeConfiguration(reply({ protocolVersion: 'draft', configuration: { subscriptions: [lacking] } }), 'c1', true),
  ).toMatchObject({ ok: true, subscriptions: [{ events: ['tool.before'], mode: 'intercept' }] });
});
