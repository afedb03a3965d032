// The scripted backend (the runner's side when it certifies a harness): it answers as
// its script says and records what it received, framing faults included.
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { SCRIPT_FILE, WIRE_LOG, type BackendScript } from '../../drivers/scripted-backend/script.js';
import { readRecords } from '../../drivers/scripted-backend/wire-log.js';
import { ScriptedHttpBackend } from '../../drivers/scripted-backend/http-server.js';
import { ROOT } from '../support/paths.js';

const MAIN = resolve(ROOT, 'dist', 'drivers', 'scripted-backend', 'stdio-main.js');
const DENY = { type: 'deny', reason: 'no' };
const req = (id: string, probe = 'p'): Record<string, unknown> => ({
  jsonrpc: '2.0', id, method: 'hooks/intercept',
  params: { protocolVersion: 'draft', event: { id, type: 'tool.before', tool: { name: 't', input: { probe } } }, capabilities: { effects: ['deny'] } },
});

function runDir(script: BackendScript): string {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-scripted-'));
  writeFileSync(join(dir, SCRIPT_FILE), JSON.stringify(script));
  writeFileSync(join(dir, WIRE_LOG), '');
  return dir;
}

async function talk(dir: string, lifecycle: string, input: string): Promise<{ out: string; code: number | null }> {
  const child = spawn(process.execPath, [MAIN, '--run', dir, '--hook', 'a', '--lifecycle', lifecycle, '--x', '$HOME;*'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stdin.end(input);
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { out, code };
}

test('stdio persistent: answers per step and attempt, records frames, lines and argv literally', async () => {
  const dir = runDir({ hooks: { a: { byStep: { s1: [{ effects: [DENY] }], s2: [{ framing: 'pretty', effects: [] }] } } } });
  try {
    const input = `${JSON.stringify(req('1', 's1'))}\n${JSON.stringify(req('2', 's2'), null, 2)}\n`;
    const { out, code } = await talk(dir, 'persistent', input);
    expect(code).toBe(0);
    const lines = out.split('\n').filter(Boolean);
    expect(JSON.parse(lines[0]!)).toEqual({ jsonrpc: '2.0', id: '1', result: { protocolVersion: 'draft', effects: [DENY] } });
    expect(lines.length).toBeGreaterThan(2); // the second reply is pretty-printed on purpose
    const records = readRecords(join(dir, WIRE_LOG));
    const frames = records.filter((r) => r.kind === 'frame');
    expect(frames.map((f) => [f.step, f.attempt, f.lines === 1])).toEqual([['s1', 0, true], ['s2', 0, false]]);
    expect(records.find((r) => r.kind === 'start')!.argv).toContain('$HOME;*');
    expect(records.some((r) => r.kind === 'eof')).toBe(true);
    expect(records.at(-1)!.kind).toBe('exit');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stdio per_event: one reply, then exit with the scripted status after end of input', async () => {
  const dir = runDir({ hooks: { a: { intercept: [{ effects: [], exit: 3 }] } } });
  try {
    const { out, code } = await talk(dir, 'per_event', `${JSON.stringify(req('9'))}\n`);
    expect(JSON.parse(out).id).toBe('9');
    expect(code).toBe(3);
    const kinds = readRecords(join(dir, WIRE_LOG)).map((r) => r.kind);
    expect(kinds).toEqual(['start', 'line', 'frame', 'reply', 'eof', 'exit']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('http: exact URL, token counted and redacted, scripted status and redirect', async () => {
  const dir = runDir({ hooks: {} });
  const script: BackendScript = { hooks: { a: { intercept: [{ effects: [DENY] }, { none: true, http: { status: 307, location: '{redirect}' } }] } } };
  const token = 'secret-token-123';
  const server = await ScriptedHttpBackend.start(() => ({ log: join(dir, WIRE_LOG), script }), token);
  try {
    const body = JSON.stringify({ ...req('1'), leaked: token });
    const first = await request(server.url('a'), { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
    expect(first.statusCode).toBe(200);
    expect(((await first.body.json()) as { result: unknown }).result).toEqual({ protocolVersion: 'draft', effects: [DENY] });
    const second = await request(server.url('a'), { method: 'POST', body: JSON.stringify(req('2')), headers: { 'content-type': 'text/plain' } });
    expect(second.statusCode).toBe(307);
    expect(second.headers.location).toBe(server.redirectUrl('a'));
    await second.body.dump();
    const frames = readRecords(join(dir, WIRE_LOG)).filter((r) => r.kind === 'frame');
    expect(frames[0]!.http).toMatchObject({ method: 'POST', url: '/hooks/a?via=ahp-conformance', authorization: { count: 1, matches: true } });
    expect(frames[0]!.secretSeen).toBe(true);
    expect(JSON.stringify(frames)).not.toContain(token);
    expect(frames[1]!.http).toMatchObject({ contentType: 'text/plain', authorization: { count: 0, matches: false } });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
