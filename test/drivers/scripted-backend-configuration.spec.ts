// The scripted backend answers hooks/configuration (draft@1d98c19) from its script, on stdio
// (persistent and per_event) and HTTP, and records each request in the wire log in arrival
// order with the hook's events, so a check can tell whether it was asked before any event.
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { request } from 'undici';
import type { BackendScript } from '../../drivers/scripted-backend/script.js';
import { WireCollector, type RunLog } from '../../drivers/scripted-backend/collector.js';
import { ScriptedHttpBackend } from '../../drivers/scripted-backend/http-server.js';
import { ROOT } from '../support/paths.js';

const MAIN = resolve(ROOT, 'dist', 'drivers', 'scripted-backend', 'stdio-main.js');
const SUBSCRIPTIONS = [{ events: ['tool.after'], mode: 'observe', content: { default: 'metadata' } }];
const ask = (id: string): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'hooks/configuration',
  params: { protocolVersion: 'draft' },
});
const observation = {
  jsonrpc: '2.0',
  method: 'hooks/observe',
  params: { protocolVersion: 'draft', event: { id: 'e1', type: 'tool.after' } },
};

let collector: WireCollector;
test.beforeAll(async () => {
  collector = await WireCollector.start();
});
test.afterAll(async () => {
  await collector.close();
});

async function talk(log: RunLog, lifecycle: string, input: string): Promise<string> {
  const args = [MAIN, '--collector', collector.address, '--key', log.key, '--hook', 'a', '--lifecycle', lifecycle];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stdin.end(input);
  await new Promise((r) => child.once('close', r));
  return out;
}

const script: BackendScript = {
  hooks: {
    a: {
      configuration: [
        { configuration: { subscriptions: SUBSCRIPTIONS } },
        { configuration: { subscriptions: SUBSCRIPTIONS }, effects: [] },
      ],
    },
  },
};

test('stdio persistent: configuration answers by ordinal, recorded before the events that follow', async () => {
  const log = collector.open(script);
  try {
    const out = await talk(
      log,
      'persistent',
      [ask('c1'), ask('c2'), observation].map((m) => JSON.stringify(m)).join('\n') + '\n',
    );
    const replies = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; result: unknown });
    expect(replies).toEqual([
      {
        jsonrpc: '2.0',
        id: 'c1',
        result: { protocolVersion: 'draft', configuration: { subscriptions: SUBSCRIPTIONS } },
      },
      {
        jsonrpc: '2.0',
        id: 'c2',
        result: { protocolVersion: 'draft', configuration: { subscriptions: SUBSCRIPTIONS }, effects: [] },
      },
    ]);
    const methods = log.records.filter((r) => r.kind === 'frame').map((r) => r.method);
    expect(methods).toEqual(['hooks/configuration', 'hooks/configuration', 'hooks/observe']);
  } finally {
    collector.forget(log);
  }
});

test('stdio per_event: one configuration reply after end of input; unscripted: method not found', async () => {
  const log = collector.open(script);
  const bare = collector.open({ hooks: {} });
  try {
    const out = await talk(log, 'per_event', `${JSON.stringify(ask('c1'))}\n`);
    expect(JSON.parse(out)).toMatchObject({ id: 'c1', result: { configuration: { subscriptions: SUBSCRIPTIONS } } });
    const none = await talk(bare, 'per_event', `${JSON.stringify(ask('c9'))}\n`);
    expect(JSON.parse(none)).toEqual({
      jsonrpc: '2.0',
      id: 'c9',
      error: { code: -32601, message: 'Method not found' },
    });
  } finally {
    collector.forget(log);
    collector.forget(bare);
  }
});

test('http: a configuration request is answered 200 with the scripted configuration', async () => {
  const log = collector.open(script);
  const server = await ScriptedHttpBackend.start(() => log);
  try {
    const r = await request(server.url('a'), {
      method: 'POST',
      body: JSON.stringify(ask('c1')),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.statusCode).toBe(200);
    expect(((await r.body.json()) as { result: unknown }).result).toEqual({
      protocolVersion: 'draft',
      configuration: { subscriptions: SUBSCRIPTIONS },
    });
    expect(log.records.find((x) => x.kind === 'frame')?.method).toBe('hooks/configuration');
  } finally {
    await server.close();
    collector.forget(log);
  }
});
