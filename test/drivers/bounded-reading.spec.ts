// Bounded reading against hostile implementations (issue 9, item 5): whatever a backend
// writes on stdout, or an HTTP server sends, a read ends by its deadline with a clear
// outcome, in bounded memory. Assertions are on outcomes ("it ended, with X"), never on
// how fast; the generous bounds only catch a read that does not end.
import { test, expect } from '@playwright/test';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { MAX_RESPONSE_BYTES, postJson } from '../../drivers/http.js';
import { StdioProcess } from '../../drivers/stdio.js';
import { ByteTail } from '../../drivers/tail.js';
import { Transcript } from '../../drivers/transcript.js';
import type { ParseJson } from '../../drivers/channel.js';
import { MAX_SEARCH_LINES, readPerEvent, readReply } from '../../drivers/stdio-framing.js';
import { parseJsonStrict } from '../../src/protocol/json.js';
import { childEnv, NODE } from './helpers.js';

/** The protocol's strict parser, as the conformance session gives it to the readers. */
const strict: ParseJson = (text) => {
  const p = parseJsonStrict(text);
  return p.ok ? p : { ok: false, message: p.findings.map((f) => f.message).join('; ') };
};

let running: StdioProcess[] = [];
let servers: NetServer[] = [];
let sockets: Socket[] = [];

test.afterEach(async () => {
  await Promise.all(running.map((p) => p.stop()));
  running = [];
  for (const s of sockets) s.destroy();
  sockets = [];
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

function launch(js: string): { p: StdioProcess; tr: Transcript } {
  const tr = new Transcript();
  const p = StdioProcess.start({
    command: NODE,
    args: ['-e', js],
    cwd: process.cwd(),
    env: childEnv(),
    transcript: tr,
  });
  running.push(p);
  return { p, tr };
}

/** The promise's value, or a failure if it has not settled within `ms` (a read that never ends). */
async function within<T>(p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`did not end within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Run `f` while sampling the resident set size; resolves with f's value and the peak growth in bytes. */
async function peakRssGrowth<T>(f: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const value = await f();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growth: peak - base };
  } finally {
    clearInterval(sampler);
  }
}

const MB = 1024 * 1024;
/** Writes `chunk` as fast as the pipe takes it, forever. */
const flood = (chunk: string): string =>
  `const b = Buffer.from(${JSON.stringify(chunk)}.repeat(1000)); const w = () => { while (process.stdout.write(b)) {} process.stdout.once('drain', w); }; process.stdout.on('error', () => {}); w();`;
const IDLE = 'setInterval(() => {}, 1000);';

test.describe('stdout: the reply search', () => {
  test('an endless stream of short lines: none after the line bound, well before the deadline', async () => {
    const { p, tr } = launch(flood('not a reply\n'));
    const { value: r, growth } = await peakRssGrowth(() => within(readReply(p, 30_000, tr, strict)));
    expect(r.kind).toBe('none');
    if (r.kind !== 'none') return;
    expect(r.why).toMatch(
      new RegExp(
        `^more than ${MAX_SEARCH_LINES} stdout lines without a reply; ${MAX_SEARCH_LINES + 1} stdout line\\(s\\) that are not a JSON object: not a reply \\| not a reply`,
      ),
    );
    expect(r.why.length).toBeLessThan(500);
    expect(r.skipped).toHaveLength(MAX_SEARCH_LINES + 1); // the bounded sample kept as evidence
    expect(
      tr
        .entries()
        .some((e) => e.note === `stopped reading: more than ${MAX_SEARCH_LINES} stdout lines without a reply`),
    ).toBe(true);
    expect(growth).toBeLessThan(200 * MB);
  });

  test('lines that keep coming, slower: none at the deadline', async () => {
    const { p, tr } = launch(`setInterval(() => process.stdout.write('tick\\n'), 2);`);
    const r = await within(readReply(p, 300, tr, strict));
    expect(r.kind === 'none' && r.why).toMatch(
      /^no reply within 300 ms; \d+ stdout line\(s\) that are not a JSON object: tick \| tick/,
    );
  });

  test('per_event: an endless stream of short lines ends with none, and the process not exited', async () => {
    const { p, tr } = launch(flood('log line\n'));
    const r = await within(readPerEvent(p, 3000, tr, strict)); // the exit is waited for until the deadline
    expect(r.kind).toBe('none');
    if (r.kind !== 'none') return;
    expect(r.why).toMatch(new RegExp(`^more than ${MAX_SEARCH_LINES} stdout lines without a reply`));
    expect(r.exit).toBe('timeout');
  });

  test('3000 lines of "{": none after the line bound, long before the deadline', async () => {
    // The old search parsed every start line with every end line: 200 such lines took 83 s.
    const { p, tr } = launch(`process.stdout.write('{\\n'.repeat(3000)); ${IDLE}`);
    const started = Date.now();
    const r = await within(readReply(p, 60_000, tr, strict), 30_000);
    expect(Date.now() - started).toBeLessThan(30_000); // ended by the bound, not the 60 s deadline
    expect(r.kind === 'none' && r.why).toMatch(
      new RegExp(
        `^more than ${MAX_SEARCH_LINES} stdout lines without a reply; ${MAX_SEARCH_LINES + 1} stdout line\\(s\\) that are not a JSON object: \\{ \\| \\{`,
      ),
    );
  });

  test('900 lines of "{" then silence: none at the deadline (the search itself is cheap)', async () => {
    const { p, tr } = launch(`process.stdout.write('{\\n'.repeat(900)); ${IDLE}`);
    const r = await within(readReply(p, 300, tr, strict));
    expect(r.kind === 'none' && r.why).toMatch(
      /^no reply within 300 ms; 900 stdout line\(s\) that are not a JSON object/,
    );
  });

  test('per_event: 3000 lines of "{" and exit: none after the line bound, with the exit status', async () => {
    const { p, tr } = launch(`process.stdout.write('{\\n'.repeat(3000), () => process.exit(0));`);
    const r = await within(readPerEvent(p, 60_000, tr, strict), 30_000);
    expect(r.kind).toBe('none');
    if (r.kind !== 'none') return;
    expect(r.why).toMatch(new RegExp(`^more than ${MAX_SEARCH_LINES} stdout lines without a reply`));
    expect(r.exit).toEqual({ code: 0, signal: null });
  });

  test('a reply after some noise is still found, and a pretty-printed one too', async () => {
    const { p, tr } = launch(
      `process.stdout.write('banner\\n' + JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }, null, 2) + '\\n'); ${IDLE}`,
    );
    const r = await within(readReply(p, 5000, tr, strict));
    expect(r.kind).toBe('reply');
    if (r.kind !== 'reply') return;
    expect(r.value).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(r.framing).toEqual({ skipped: ['banner'], multiLine: true, oversize: 0 });
  });

  test('an endless line without a newline: none at the deadline, memory bounded', async () => {
    const { p, tr } = launch(flood('x'.repeat(64)));
    const { value: r, growth } = await peakRssGrowth(() => within(readReply(p, 300, tr, strict)));
    expect(r).toEqual({
      kind: 'none',
      transport: 'stdio',
      lifecycle: 'persistent',
      why: 'no reply within 300 ms',
      skipped: [],
      oversize: 0,
      timedOut: true,
    });
    expect(p.pendingBytes()).toBeGreaterThan(1024 * 1024); // it did write: over the line bound, discarded
    expect(growth).toBeLessThan(200 * MB);
  });

  test('per_event: an endless line without a newline: none, saying how many bytes came', async () => {
    const { p, tr } = launch(flood('x'.repeat(64)));
    const r = await within(readPerEvent(p, 300, tr, strict));
    expect(r.kind === 'none' && r.why).toMatch(/^\d+ bytes without a final newline$/);
    expect(r.kind === 'none' && r.exit).toBe('timeout');
  });
});

test.describe('stderr and output tails (ByteTail)', () => {
  test('keeps exactly the last bytes, whatever the chunk sizes', () => {
    let seed = 7;
    const rand = (n: number): number => (seed = (seed * 48271) % 0x7fffffff) % n;
    for (const max of [1, 5, 64, 1000]) {
      const tail = new ByteTail(max);
      let all = Buffer.alloc(0);
      for (let i = 0; i < 300; i++) {
        const chunk = Buffer.from(
          Array.from({ length: rand(3) === 0 ? rand(3 * max + 2) : rand(8) }, () => 97 + rand(26)),
        );
        tail.push(chunk);
        all = Buffer.concat([all, chunk]);
        expect(tail.bytes().equals(all.subarray(Math.max(0, all.length - max))), `max ${max}, push ${i}`).toBe(true);
      }
      expect(tail.truncated).toBe(all.length > max);
    }
  });

  test('a million one-byte chunks: bounded, and the end kept', () => {
    const tail = new ByteTail(64 * 1024);
    const one = Buffer.from('a');
    for (let i = 0; i < 1_000_000; i++) tail.push(one);
    tail.push(Buffer.from('END\n'));
    const text = tail.text();
    expect(text.length).toBe(64 * 1024);
    expect(text.endsWith('aaaEND\n')).toBe(true);
  });

  test('a UTF-8 sequence cut by the bound is dropped from the text', () => {
    const tail = new ByteTail(4);
    tail.push(Buffer.from('xé€'));
    expect(tail.text()).toBe('€'); // the last 4 bytes are the tail byte of é and €
  });
});

/** A raw TCP server on a free loopback port: `onRequest` gets the socket once the request has arrived. */
async function rawServer(onRequest: (socket: Socket) => void, opts: { read?: boolean } = {}): Promise<string> {
  const server = createNetServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    if (opts.read === false) return;
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(seen)?.[1] ?? 0);
      if (seen.length - end - 4 < length) return;
      socket.off('data', onData);
      onRequest(socket);
    };
    socket.on('data', onData);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/ahp`;
}

/** Write `chunk` until the socket closes or `limit` bytes are out; resolves with the bytes written. */
function pump(socket: Socket, chunk: Buffer, limit: number): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    const go = (): void => {
      while (!socket.destroyed && written < limit) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', go);
      }
      if (!socket.destroyed) socket.end();
    };
    socket.once('close', () => resolve(written));
    go();
  });
}

const HEAD = (extra: string): string => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extra}\r\n`;

test.describe('HTTP: every reply ends by its deadline, in bounded memory', () => {
  test('a gzip bomb is not decompressed: the body is the compressed bytes', async () => {
    // 16 gzip members of 64 MiB of zeros each: 1 GiB once decompressed.
    const member = gzipSync(Buffer.alloc(64 * MB));
    const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
    const url = await rawServer((s) =>
      s.end(Buffer.concat([Buffer.from(HEAD(`content-encoding: gzip\r\ncontent-length: ${bomb.length}\r\n`)), bomb])),
    );
    const { value: out, growth } = await peakRssGrowth(() =>
      within(postJson(url, '{}', { timeoutMs: 5000, transcript: new Transcript() })),
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.reply.headers['content-encoding']).toBe('gzip');
    expect(Buffer.from(out.reply.body).equals(bomb)).toBe(true);
    expect(growth).toBeLessThan(200 * MB);
  });

  test('an endless chunked body: the first 4 MiB, then the connection is dropped, not drained', async () => {
    let written: Promise<number> | undefined;
    const frame = Buffer.concat([Buffer.from(`10000\r\n`), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);
    const url = await rawServer((s) => {
      s.write(HEAD('transfer-encoding: chunked\r\n'));
      written = pump(s, frame, 1024 * MB);
    });
    const { value: out, growth } = await peakRssGrowth(() =>
      within(postJson(url, '{}', { timeoutMs: 30_000, transcript: new Transcript() })),
    );
    expect(out.ok && out.reply.truncated).toBe(true);
    expect(out.ok && out.reply.body.byteLength).toBe(MAX_RESPONSE_BYTES);
    expect(await within(written!)).toBeLessThan(256 * MB); // the server saw the connection close early
    expect(growth).toBeLessThan(200 * MB);
  });

  test('a 10 GB Content-Length sent fast: the first 4 MiB, then the connection is dropped', async () => {
    let written: Promise<number> | undefined;
    const url = await rawServer((s) => {
      s.write(HEAD('content-length: 10000000000\r\n'));
      written = pump(s, Buffer.alloc(0x10000, 0x62), 1024 * MB);
    });
    const { value: out, growth } = await peakRssGrowth(() =>
      within(postJson(url, '{}', { timeoutMs: 30_000, transcript: new Transcript() })),
    );
    expect(out.ok && out.reply.truncated).toBe(true);
    expect(out.ok && out.reply.body.byteLength).toBe(MAX_RESPONSE_BYTES);
    expect(await within(written!)).toBeLessThan(256 * MB);
    expect(growth).toBeLessThan(200 * MB);
  });

  test('a 10 GB Content-Length sent slowly: a timeout at the deadline, saying what came', async () => {
    const url = await rawServer((s) => {
      s.write(HEAD('content-length: 10000000000\r\n'));
      const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write('x')), 20);
    });
    const tr = new Transcript();
    const out = await within(postJson(url, '{}', { timeoutMs: 300, transcript: tr }));
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toBe('timeout');
    expect(out.message).toMatch(/^no complete reply within 300 ms \(got HTTP 200 and \d+ of 10000000000 body bytes\)$/);
    expect(out.partial?.status).toBe(200);
    expect(out.partial!.body.byteLength).toBeGreaterThan(0);
    expect(tr.entries().some((e) => e.dir === 'recv' && e.note?.includes('incomplete body'))).toBe(true);
  });

  test('headers trickled a byte at a time: a timeout at the deadline', async () => {
    const head = HEAD('content-length: 2\r\n');
    const url = await rawServer((s) => {
      let i = 0;
      const t = setInterval(() => (s.destroyed || i >= head.length ? clearInterval(t) : s.write(head[i++]!)), 100);
    });
    const out = await within(postJson(url, '{}', { timeoutMs: 300, transcript: new Transcript() }));
    expect(out).toEqual({ ok: false, error: 'timeout', message: 'no complete reply within 300 ms' });
  });

  test('a connection accepted and never answered (nor read): a timeout at the deadline', async () => {
    const url = await rawServer(() => {}, { read: false });
    const out = await within(postJson(url, '{}', { timeoutMs: 300, transcript: new Transcript() }));
    expect(out).toEqual({ ok: false, error: 'timeout', message: 'no complete reply within 300 ms' });
  });

  test('a body cut mid-way: incomplete, with the bytes that came', async () => {
    const url = await rawServer((s) => s.end(HEAD('content-length: 1000\r\n') + 'y'.repeat(500)));
    const tr = new Transcript();
    const out = await within(postJson(url, '{}', { timeoutMs: 5000, transcript: tr }));
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toBe('incomplete');
    expect(out.message).toMatch(
      /^the reply ended early: the connection closed after HTTP 200 and 500 of 1000 body bytes \(/,
    );
    expect(out.message).not.toContain('\n');
    expect(Buffer.from(out.partial!.body).toString()).toBe('y'.repeat(500));
    const recv = tr.entries().find((e) => e.dir === 'recv')!;
    expect(recv.text).toBe('y'.repeat(500));
    expect(recv.note).toContain('incomplete body: 500 bytes received');
  });

  test('an HTTP server that answers with a huge header block: an error, not unbounded buffering', async () => {
    const url = await rawServer((s) => {
      s.write('HTTP/1.1 200 OK\r\n');
      void pump(s, Buffer.from(`x-pad: ${'p'.repeat(1000)}\r\n`), 64 * MB);
    });
    const out = await within(postJson(url, '{}', { timeoutMs: 5000, transcript: new Transcript() }));
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).not.toContain('\n');
  });
});
