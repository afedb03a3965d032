// The reference harness under each snapshot (--snapshot): the rules that differ
// (src/protocol/snapshots.ts) as its reply and configuration judgement apply them.
import { FaultProbe } from '../../reference/fault-probe.js';
import { test, expect } from '@playwright/test';
import { parseHarnessArgs } from '../../reference/harness/args.js';
import { judgeConfiguration } from '../../reference/harness/configuration.js';
import { judgeReply } from '../../reference/harness/reply.js';
import type { JsonObject, JsonValue } from '../../src/protocol/json.js';
import { loadConfig } from '../../reference/harness/config.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';

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

test('without --snapshot the harness follows the config snapshot, which the runner sets to the claim’s', () => {
  test.setTimeout(120_000);
  // A 1d98c19 claim whose harness is started without --snapshot: ti.no-effects-result (a
  // 1d98c19 rule: a result without effects is no effect) passes only if the harness took the
  // snapshot from its adapter config (docs/harness-adapter.md section 2).
  const dir = mkdtempSync(join(tmpdir(), 'ahp-harness-snapshot-'));
  try {
    const claim = join(dir, 'claim.yaml');
    writeFileSync(
      claim,
      [
        'implementation: { name: snapshot-from-config, version: 0.0.0 }',
        'snapshot: draft@1d98c19',
        'role: harness',
        'transports: [http]',
        'profiles: [tool-interception]',
        'harness:',
        `  command: ${JSON.stringify(process.execPath)}`,
        `  args: [${JSON.stringify(join(ROOT, 'dist', 'reference', 'harness', 'main.js'))}, --config, "{config}"]`,
        '',
      ].join('\n'),
    );
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, 'bin', 'ahp-conformance.js'),
        'run',
        claim,
        '--reports',
        join(dir, 'r'),
        '--grep',
        '^ti\\.no-effects-result:',
      ],
      { cwd: dir, encoding: 'utf8', timeout: 110_000, env: { ...process.env, AHP_PROGRESS: 'line' } },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /snapshot-from-config 0\.0\.0: partial: ran 1 of \d+ checks the claim needs \(1 passed, 0 failed/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the adapter config’s snapshot: a known one is used, anything else refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-harness-config-'));
  try {
    const write = (snapshot: unknown): string => {
      const file = join(dir, 'config.json');
      writeFileSync(
        file,
        JSON.stringify({
          adapterContract: 1,
          ...(snapshot === undefined ? {} : { snapshot }),
          registration: {},
          sentinel: { tool: 'ahp_sentinel' },
          scenario: { session: { id: 's' }, steps: [] },
          report: join(dir, 'report.json'),
        }),
      );
      return file;
    };
    expect(loadConfig(write('draft@1d98c19'))).toMatchObject({ ok: true, config: { snapshot: 'draft@1d98c19' } });
    const without = loadConfig(write(undefined));
    expect(without.ok && without.config.snapshot).toBeUndefined();
    expect(loadConfig(write('draft')).ok).toBe(false);
    expect(loadConfig(write('draft@ffffffff')).ok).toBe(false);
    expect(loadConfig(write(7)).ok).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
