import { test, expect } from '@playwright/test';
import { Transcript } from '../../drivers/transcript.js';

test.describe('Transcript', () => {
  test('records entries with relative and wall-clock times, in order', async () => {
    const tr = new Transcript();
    tr.record({ dir: 'send', channel: 'stdio', text: '{"jsonrpc":"2.0","id":1,"method":"x"}\n' });
    await new Promise((r) => setTimeout(r, 5));
    tr.record({
      dir: 'recv',
      channel: 'stdio',
      bytes: new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}'),
    });
    tr.record({ dir: 'exit', channel: 'stdio', note: 'exit code 1' });
    const es = tr.entries();
    expect(es).toHaveLength(3);
    expect(es[0]!.t).toBeGreaterThanOrEqual(0);
    expect(es[1]!.t).toBeGreaterThanOrEqual(es[0]!.t + 4);
    expect(Number.isInteger(Math.round(es[1]!.t * 10))).toBe(true);
    expect(Math.abs(es[1]!.t * 10 - Math.round(es[1]!.t * 10))).toBeLessThan(1e-6);
    expect(new Date(es[0]!.at).toISOString()).toBe(es[0]!.at);
    expect(es[1]!.text).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(es[1]!.base64).toBeUndefined();
    expect(es[2]!).toMatchObject({ dir: 'exit', text: '', note: 'exit code 1' });
  });

  test('toJsonl is one JSON object per line; toText uses direction markers', () => {
    const tr = new Transcript();
    tr.record({ dir: 'send', channel: 'stdio', text: '{"a":1}\n' });
    tr.record({ dir: 'recv', channel: 'stdio', text: '{"b":2}\r' });
    tr.record({ dir: 'stderr', channel: 'stdio', text: 'warn: one\nwarn: two\n' });
    tr.record({ dir: 'note', channel: 'stdio', note: 'probe is malformed on purpose: not JSON' });
    tr.record({
      dir: 'send',
      channel: 'http',
      text: '{}',
      http: { method: 'POST', url: 'http://127.0.0.1:1/ahp', headers: { 'content-type': 'application/json' } },
    });
    tr.record({
      dir: 'recv',
      channel: 'http',
      text: '{"ok":true}',
      http: { status: 200, headers: { 'content-type': 'application/json' } },
    });

    const lines = tr.toJsonl().split('\n');
    expect(lines.at(-1)).toBe('');
    const objs = lines.slice(0, -1).map((l) => JSON.parse(l));
    expect(objs).toHaveLength(6);
    expect(objs.map((o) => o.dir)).toEqual(['send', 'recv', 'stderr', 'note', 'send', 'recv']);

    const text = tr.toText().split('\n');
    expect(text[0]).toMatch(/^\+\d+\.\dms\s+>> stdio\s+\{"a":1\}$/);
    expect(text[1]).toMatch(/<< stdio\s+\{"b":2\}\\r$/); // the CR is made visible
    expect(text[2]).toMatch(/!! stdio\s+warn: one$/);
    expect(text[3]).toMatch(/^\s+warn: two$/); // continuation line indented
    expect(text[4]).toMatch(/-- stdio\s+probe is malformed on purpose: not JSON$/);
    expect(text[5]).toContain('>> http   POST http://127.0.0.1:1/ahp  {content-type: application/json}  {}');
    expect(text[6]).toContain('<< http   200  {content-type: application/json}  {"ok":true}');
  });

  test('bytes that are not valid UTF-8 keep their exact value in base64', () => {
    const tr = new Transcript();
    const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
    tr.record({ dir: 'recv', channel: 'stdio', bytes });
    const e = tr.entries()[0]!;
    expect(e.text).toBe('{\uFFFD\uFFFD}');
    expect(Buffer.from(e.base64!, 'base64')).toEqual(Buffer.from(bytes));
    expect(tr.toText()).toContain('base64: ' + Buffer.from(bytes).toString('base64'));
  });

  test('secrets are redacted in text, headers, notes, urls and base64', () => {
    const tr = new Transcript({ secrets: ['s3cr3t-token'] });
    tr.record({
      dir: 'send',
      channel: 'http',
      text: '{"echo":"s3cr3t-token"}',
      http: {
        method: 'POST',
        url: 'http://127.0.0.1:9/?t=s3cr3t-token',
        headers: { 'x-token': 'abc s3cr3t-token', Authorization: 'Bearer s3cr3t-token' },
      },
      note: 'sent s3cr3t-token',
    });
    tr.record({
      dir: 'recv',
      channel: 'stdio',
      bytes: Buffer.concat([Buffer.from([0xff]), Buffer.from('s3cr3t-token')]),
    });
    const all = tr.toJsonl() + tr.toText();
    expect(all).not.toContain('s3cr3t-token');
    const [e0, e1] = tr.entries();
    expect(e0!.text).toBe('{"echo":"[redacted]"}');
    expect(e0!.http!.headers).toEqual({ 'x-token': 'abc [redacted]', Authorization: 'Bearer [redacted]' });
    expect(e0!.http!.url).toBe('http://127.0.0.1:9/?t=[redacted]');
    expect(e0!.note).toBe('sent [redacted]');
    expect(Buffer.from(e1!.base64!, 'base64').toString('latin1')).toBe('\xff[redacted]');
  });

  test('the Authorization header is always redacted, even without a registered secret', () => {
    const tr = new Transcript();
    tr.record({
      dir: 'send',
      channel: 'http',
      text: '',
      http: { headers: { authorization: 'bearer abc', 'proxy-authorization': 'Basic dXNlcjpwYXNz' } },
    });
    tr.record({ dir: 'send', channel: 'http', text: '', http: { headers: { AUTHORIZATION: 'Basic dXNlcjpwYXNz' } } });
    expect(tr.entries()[0]!.http!.headers).toEqual({
      authorization: 'Bearer [redacted]',
      'proxy-authorization': '[redacted]',
    });
    expect(tr.entries()[1]!.http!.headers).toEqual({ AUTHORIZATION: '[redacted]' });
    expect(tr.toJsonl()).not.toContain('dXNlcjpwYXNz');
    // Two header lines, joined: both shown, both redacted.
    tr.record({ dir: 'send', channel: 'http', text: '', http: { headers: { authorization: 'Bearer a, Bearer b' } } });
    expect(tr.entries()[2]!.http!.headers).toEqual({ authorization: 'Bearer [redacted], Bearer [redacted]' });
  });

  test('a secret added later is also removed from earlier entries; empty secrets are ignored', () => {
    const tr = new Transcript();
    tr.addSecret('');
    tr.record({ dir: 'recv', channel: 'stdio', text: 'token=abcdef' });
    tr.addSecret('abcdef');
    tr.record({ dir: 'recv', channel: 'stdio', text: 'again abcdef' });
    expect(tr.entries().map((e) => e.text)).toEqual(['token=[redacted]', 'again [redacted]']);
  });

  test('oversized entries are truncated on a UTF-8 boundary, and say so', () => {
    const tr = new Transcript({ maxBytesPerEntry: 20 });
    tr.record({ dir: 'recv', channel: 'stdio', text: 'é'.repeat(30), note: 'big' }); // 60 bytes
    const e = tr.entries()[0]!;
    expect(e.text).toBe('é'.repeat(10));
    expect(e.base64).toBeUndefined();
    expect(e.note).toBe('big; truncated: kept 20 of 60 bytes');
    tr.record({ dir: 'recv', channel: 'stdio', bytes: new Uint8Array(100).fill(0xff) });
    const e2 = tr.entries()[1]!;
    expect(Buffer.from(e2.base64!, 'base64')).toHaveLength(20);
    expect(e2.note).toBe('truncated: kept 20 of 100 bytes');
  });

  test('the entry count is bounded: the first and the latest entries are kept around a gap note', () => {
    const tr = new Transcript({ maxEntries: 10 });
    for (let i = 0; i < 100; i++) tr.record({ dir: 'recv', channel: 'stdio', text: String(i) });
    const es = tr.entries();
    expect(es).toHaveLength(10);
    expect(es.slice(0, 5).map((e) => e.text)).toEqual(['0', '1', '2', '3', '4']);
    expect(es[5]!.dir).toBe('note');
    expect(es[5]!.note).toContain('91 entries dropped');
    expect(es.slice(6).map((e) => e.text)).toEqual(['96', '97', '98', '99']);
  });
  test('the bytes kept are bounded too: a stderr flood keeps its start and its end, about maxBytes in all', () => {
    const tr = new Transcript({ maxBytes: 1024 * 1024 });
    const chunk = 'e'.repeat(64 * 1024);
    for (let i = 0; i < 2000; i++) tr.record({ dir: 'stderr', channel: 'stdio', text: `${i}:${chunk}` });
    const es = tr.entries();
    const kept = es.reduce((n, e) => n + e.text.length, 0);
    expect(kept).toBeLessThanOrEqual(1024 * 1024);
    expect(kept).toBeGreaterThan(512 * 1024);
    expect(es[0]!.text.startsWith('0:')).toBe(true);
    expect(es[es.length - 1]!.text.startsWith('1999:')).toBe(true);
    const gap = es.find((e) => e.dir === 'note')!;
    expect(gap.note).toMatch(/^transcript limit of 2000 entries or 1048576 bytes reached: \d+ entries dropped here$/);
    expect(es.length - 1 + Number(/(\d+) entries dropped/.exec(gap.note!)![1])).toBe(2000);
  });
});
