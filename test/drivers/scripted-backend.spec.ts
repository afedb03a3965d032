// The scripted backend (the runner's side when it certifies a harness): it answers as
// its script says and records what it received, framing faults included.
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { Agent, request } from 'undici';
import type { BackendScript } from '../../drivers/scripted-backend/script.js';
import { WireCollector, type RunLog } from '../../drivers/scripted-backend/collector.js';
import { ScriptedHttpBackend } from '../../drivers/scripted-backend/http-server.js';
import { createRunCa } from '../../drivers/auth/ca.js';
import { AuthorizationServer } from '../../drivers/auth/authorization-server.js';
import { ROOT } from '../support/paths.js';

const MAIN = resolve(ROOT, 'dist', 'drivers', 'scripted-backend', 'stdio-main.js');
const DENY = { type: 'deny', reason: 'no' };
const req = (id: string, probe = 'p'): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'hooks/intercept',
  params: {
    protocolVersion: 'draft',
    event: { id, type: 'tool.before', tool: { name: 't', input: { probe } } },
    capabilities: { effects: ['deny'] },
  },
});

let collector: WireCollector;
test.beforeAll(async () => {
  collector = await WireCollector.start();
});
test.afterAll(async () => {
  await collector.close();
});

async function talk(log: RunLog, lifecycle: string, input: string): Promise<{ out: string; code: number | null }> {
  const args = [
    MAIN,
    '--collector',
    collector.address,
    '--key',
    log.key,
    '--hook',
    'a',
    '--lifecycle',
    lifecycle,
    '--x',
    '$HOME;*',
  ];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stdin.end(input);
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { out, code };
}

test('stdio persistent: answers per step and attempt, records frames, lines and argv literally', async () => {
  const log = collector.open({
    hooks: { a: { byStep: { s1: [{ effects: [DENY] }], s2: [{ framing: 'pretty', effects: [] }] } } },
  });
  try {
    const input = `${JSON.stringify(req('1', 's1'))}\n${JSON.stringify(req('2', 's2'), null, 2)}\n`;
    const { out, code } = await talk(log, 'persistent', input);
    expect(code).toBe(0);
    const lines = out.split('\n').filter(Boolean);
    expect(JSON.parse(lines[0]!)).toEqual({
      jsonrpc: '2.0',
      id: '1',
      result: { protocolVersion: 'draft', effects: [DENY] },
    });
    expect(lines.length).toBeGreaterThan(2); // the second reply is pretty-printed on purpose
    const records = log.records;
    const frames = records.filter((r) => r.kind === 'frame');
    expect(frames.map((f) => [f.step, f.attempt, f.lines === 1])).toEqual([
      ['s1', 0, true],
      ['s2', 0, false],
    ]);
    expect(records.find((r) => r.kind === 'start')!.argv).toContain('$HOME;*');
    expect(records.some((r) => r.kind === 'eof')).toBe(true);
    expect(records.at(-1)!.kind).toBe('exit');
  } finally {
    collector.forget(log);
  }
});

test('stdio per_event: one reply, then exit with the scripted status after end of input', async () => {
  const log = collector.open({ hooks: { a: { intercept: [{ effects: [], exit: 3 }] } } });
  try {
    const { out, code } = await talk(log, 'per_event', `${JSON.stringify(req('9'))}\n`);
    expect(JSON.parse(out).id).toBe('9');
    expect(code).toBe(3);
    const kinds = log.records.map((r) => r.kind);
    // End of input may come before or after the reply (the harness closed stdin at once).
    expect(kinds.slice(0, 3)).toEqual(['start', 'line', 'frame']);
    expect([...kinds.slice(3, 5)].sort()).toEqual(['eof', 'reply']);
    expect(kinds.at(-1)).toBe('exit');
  } finally {
    collector.forget(log);
  }
});

test('the collector keeps only records from connections with the run key; frames are read from their text', async () => {
  const log = collector.open({ hooks: {} });
  try {
    const [host, port] = [collector.address.split(':')[0]!, Number(collector.address.split(':')[1])];
    const send = (lines: string[]): Promise<string> =>
      new Promise((done) => {
        const s = connect({ host, port });
        let got = '';
        s.setEncoding('utf8');
        s.on('data', (c: string) => {
          got += c;
        });
        s.on('close', () => done(got));
        s.on('error', () => undefined);
        s.write(lines.map((l) => `${l}\n`).join(''));
        setTimeout(() => s.end(), 200);
      });
    // A stray writer without the key: refused, nothing kept.
    await send([
      JSON.stringify({ hello: { key: 'guess', hook: 'a' } }),
      JSON.stringify({ seq: 1, record: { kind: 'reply', text: 'forged' } }),
    ]);
    expect(log.records).toEqual([]);
    expect(log.refused).toBe(1);
    // With the key, a frame's claims about itself are replaced by what its text says.
    await send([
      JSON.stringify({ hello: { key: log.key, hook: 'a' } }),
      JSON.stringify({
        seq: 1,
        record: { kind: 'frame', text: JSON.stringify(req('7', 'sx')), method: 'lie', hook: 'other', pid: 1 },
      }),
    ]);
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({
      kind: 'frame',
      hook: 'a',
      method: 'hooks/intercept',
      step: 'sx',
      ordinal: 0,
      attempt: 0,
    });
    expect(log.records[0]!.pid).not.toBe(1);
  } finally {
    collector.forget(log);
  }
});

test('http: exact URL, token counted and redacted, scripted status and redirect', async () => {
  const script: BackendScript = {
    hooks: { a: { intercept: [{ effects: [DENY] }, { none: true, http: { status: 307, location: '{redirect}' } }] } },
  };
  const token = 'secret-token-123';
  const log = collector.open(script);
  const server = await ScriptedHttpBackend.start(() => log, token);
  try {
    const body = JSON.stringify({ ...req('1'), leaked: token });
    const first = await request(server.url('a'), {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    expect(first.statusCode).toBe(200);
    expect(((await first.body.json()) as { result: unknown }).result).toEqual({
      protocolVersion: 'draft',
      effects: [DENY],
    });
    const second = await request(server.url('a'), {
      method: 'POST',
      body: JSON.stringify(req('2')),
      headers: { 'content-type': 'text/plain' },
    });
    expect(second.statusCode).toBe(307);
    expect(second.headers.location).toBe(server.redirectUrl('a'));
    await second.body.dump();
    const frames = log.records.filter((r) => r.kind === 'frame');
    expect(frames[0]!.http).toMatchObject({
      method: 'POST',
      url: '/hooks/a?via=ahp-conformance',
      authorization: { count: 1, matches: true },
    });
    expect(frames[0]!.secretSeen).toBe(true);
    expect(JSON.stringify(frames)).not.toContain(token);
    expect(frames[1]!.http).toMatchObject({ contentType: 'text/plain', authorization: { count: 0, matches: false } });
  } finally {
    await server.close();
    collector.forget(log);
  }
});

test('http, OAuth-protected hook: 401 challenge without a valid token (event not answered), RFC 9728 metadata, a valid token accepted', async () => {
  const ca = await createRunCa();
  const as = await AuthorizationServer.start({ ca, clientId: 'c', clientSecret: 's' });
  const log = collector.open({ hooks: { a: { intercept: [{ effects: [DENY] }] } } });
  const protection = { issuer: as.issuer, jwk: as.publicJwk, scopes: ['s1'], issued: () => as.issuedIds() };
  const server = await ScriptedHttpBackend.start(() => log, undefined, { hooks: new Set(['a']), protection });
  const agent = new Agent({ connect: { ca: ca.certPem } });
  try {
    const bare = await request(server.url('a'), {
      method: 'POST',
      body: JSON.stringify(req('1')),
      headers: { 'content-type': 'application/json' },
    });
    expect(bare.statusCode).toBe(401);
    expect(bare.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${server.origin}/.well-known/oauth-protected-resource/hooks/a", scope="s1"`,
    );
    await bare.body.dump();
    const meta = await request(`${server.origin}/.well-known/oauth-protected-resource/hooks/a`);
    expect(await meta.body.json()).toMatchObject({
      resource: server.resource('a'),
      authorization_servers: [as.issuer],
    });
    const tokenRes = await request(`${as.issuer}/token`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'c',
        client_secret: 's',
        resource: server.resource('a'),
        scope: 's1',
      }).toString(),
    });
    const token = String(((await tokenRes.body.json()) as { access_token: string }).access_token);
    const good = await request(server.url('a'), {
      method: 'POST',
      body: JSON.stringify(req('2')),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    expect(good.statusCode).toBe(200);
    await good.body.dump();
    const frames = log.records.filter((r) => r.kind === 'frame');
    expect(frames.map((f) => f.http?.authorization?.bearer?.kind)).toEqual(['none', 'issued']);
    expect(log.records.some((r) => r.kind === 'metadata' && r.http?.status === 200)).toBe(true);
    expect(log.records.filter((r) => r.kind === 'reply').map((r) => r.http?.status)).toEqual([401, 200]);
  } finally {
    await agent.close();
    await server.close();
    await as.close();
    collector.forget(log);
  }
});
