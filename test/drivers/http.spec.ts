import { test, expect } from '@playwright/test';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import getPort from 'get-port';
import {
  checkUrl,
  HttpServerProcess,
  isLoopbackHost,
  LaunchError,
  MAX_RESPONSE_BYTES,
  postJson,
} from '../../drivers/http.js';
import { Transcript } from '../../drivers/transcript.js';
import { childEnv, killQuietly, NODE, sleep, waitGone } from './helpers.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let servers: Server[] = [];
let launched: HttpServerProcess[] = [];
let strayPids: number[] = [];

/** An in-process HTTP server on a free loopback port that records what it receives. */
async function serve(
  handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  servers.push(server);
  const port = await getPort({ host: '127.0.0.1' });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}/ahp`, seen, server };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), r(true)));
    s.once('error', () => r(false));
  });
}

test.afterEach(async () => {
  await Promise.all(launched.map((p) => p.stop()));
  launched = [];
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  for (const pid of strayPids) killQuietly(pid);
  strayPids = [];
});

test.describe('URL policy', () => {
  test('isLoopbackHost', () => {
    for (const h of [
      '127.0.0.1',
      '127.255.0.9',
      'localhost',
      'LOCALHOST',
      'localhost.',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
    for (const h of [
      '10.255.255.1',
      '128.0.0.1',
      '0.0.0.0',
      '::',
      '::2',
      'example.com',
      'localhost.example.com',
      '127.0.0.1.nip.io',
      '::ffff:10.0.0.1',
      '',
    ]) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });

  test('checkUrl: http only to loopback, https anywhere, other schemes refused', () => {
    expect(checkUrl('http://127.0.0.1:8080/ahp')).toEqual({ ok: true });
    expect(checkUrl('http://[::1]:8080/')).toEqual({ ok: true });
    expect(checkUrl('http://localhost/')).toEqual({ ok: true });
    expect(checkUrl('http://127.1/')).toEqual({ ok: true }); // normalised by the URL parser to 127.0.0.1
    expect(checkUrl('https://example.com/ahp')).toEqual({ ok: true });
    for (const u of [
      'http://10.255.255.1/',
      'http://example.com/',
      'http://0x7f000001.example/',
      'ftp://127.0.0.1/',
      'file:///etc/passwd',
      'not a url',
    ]) {
      const r = checkUrl(u);
      expect(r.ok, u).toBe(false);
      if (!r.ok) expect(r.message).not.toContain('\n');
    }
  });

  test('a non-loopback http URL is refused at once, without any connection attempt', async () => {
    const tr = new Transcript();
    const start = Date.now();
    const out = await postJson('http://10.255.255.1/', '{}', {
      timeoutMs: 30_000,
      token: 'tok-refused',
      transcript: tr,
    });
    expect(Date.now() - start).toBeLessThan(5000); // far below the 30 s deadline: no connection was tried
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toBe('refused-url');
    expect(tr.entries().some((e) => e.dir === 'send')).toBe(false);
    expect(tr.entries()[0]!.note).toContain('not sent');
  });
});

test.describe('postJson', () => {
  test('200 JSON: exact body sent, reply and both directions recorded', async () => {
    const { url, seen } = await serve((_req, body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { got: body.toString() } }));
    });
    const tr = new Transcript();
    const out = await postJson(url, '{"jsonrpc":"2.0","id":1,"method":"ping"}', { timeoutMs: 5000, transcript: tr });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.reply.status).toBe(200);
    expect(out.reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(out.reply.text)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { got: '{"jsonrpc":"2.0","id":1,"method":"ping"}' },
    });
    expect(Buffer.from(out.reply.body).toString()).toBe(out.reply.text);
    expect(out.reply.ms).toBeGreaterThan(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/ahp');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers.authorization).toBeUndefined();
    const [send, recv] = tr.entries();
    expect(send).toMatchObject({
      dir: 'send',
      channel: 'http',
      text: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      http: { method: 'POST', url },
    });
    expect(recv).toMatchObject({ dir: 'recv', channel: 'http', http: { status: 200 } });
    expect(recv!.http!.headers!['content-type']).toBe('application/json');
    expect(tr.toText()).toMatch(/>> http\s+POST http:\/\/127\.0\.0\.1:\d+\/ahp/);
    expect(tr.toText()).toMatch(/<< http\s+http:\/\/127\.0\.0\.1:\d+\/ahp 200/);
  });

  test('bytes are sent exactly (even invalid UTF-8); content type and note are configurable', async () => {
    const { url, seen } = await serve((_req, _body, res) => res.writeHead(204).end());
    const tr = new Transcript();
    const bytes = Uint8Array.from([0x7b, 0xff, 0x7d]);
    const out = await postJson(url, bytes, {
      timeoutMs: 5000,
      transcript: tr,
      contentType: 'text/plain',
      note: 'probe is malformed on purpose: not JSON',
    });
    expect(out.ok && out.reply.status).toBe(204);
    expect(out.ok && out.reply.body.byteLength).toBe(0);
    expect(seen[0]!.body).toEqual(Buffer.from(bytes));
    expect(seen[0]!.headers['content-type']).toBe('text/plain');
    const send = tr.entries()[0]!;
    expect(send.note).toBe('probe is malformed on purpose: not JSON');
    expect(send.base64).toBe(Buffer.from(bytes).toString('base64'));
  });

  test('a text/plain reply is returned as it is', async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('not json\r\n');
    });
    const out = await postJson(url, '{}', { timeoutMs: 5000, transcript: new Transcript() });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(out.reply.text).toBe('not json\r\n');
  });

  test('a redirect is returned, never followed', async () => {
    const target = await serve((_req, _body, res) => res.writeHead(200).end('{}'));
    const { url, seen } = await serve((_req, _body, res) => res.writeHead(302, { location: target.url }).end());
    const tr = new Transcript();
    const out = await postJson(url, '{}', { timeoutMs: 5000, token: 'tok-redirect', transcript: tr });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.reply.status).toBe(302);
    expect(out.reply.headers.location).toBe(target.url);
    expect(seen).toHaveLength(1);
    await sleep(200);
    expect(target.seen).toHaveLength(0);
    expect(tr.entries().find((e) => e.dir === 'recv')!.note).toContain('redirect not followed');
  });

  test('the Authorization token reaches the server but never the transcript', async () => {
    const token = 'tok-0123456789-secret';
    const { url, seen } = await serve((_req, _body, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    const tr = new Transcript();
    const out = await postJson(url, '{}', { timeoutMs: 5000, token, transcript: tr });
    expect(out.ok).toBe(true);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${token}`);
    const text = tr.toText();
    const jsonl = tr.toJsonl();
    expect(text).not.toContain(token);
    expect(jsonl).not.toContain(token);
    expect(text).toContain('authorization: Bearer [redacted]');
    expect(tr.entries()[0]!.http!.headers!.authorization).toBe('Bearer [redacted]');
  });

  test('exact Authorization lines: none, or several, instead of the token', async () => {
    const rawAuth: string[][] = [];
    const { url } = await serve((req, _body, res) => {
      rawAuth.push(req.rawHeaders.filter((_, i, a) => i % 2 === 1 && a[i - 1]!.toLowerCase() === 'authorization'));
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    const tr = new Transcript();
    tr.addSecret('tok-a');
    tr.addSecret('tok-b');
    await postJson(url, '{}', { timeoutMs: 5000, token: 'tok-a', authorization: [], transcript: tr });
    await postJson(url, '{}', { timeoutMs: 5000, authorization: ['Bearer tok-a', 'Bearer tok-b'], transcript: tr });
    expect(rawAuth).toEqual([[], ['Bearer tok-a', 'Bearer tok-b']]);
    expect(tr.toJsonl()).not.toMatch(/tok-[ab]/);
  });

  test('a token echoed back in the response body is redacted in the transcript, not in the reply', async () => {
    const token = 'tok-echoed-back-42';
    const { url } = await serve((req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': String(req.headers.authorization) });
      res.end(JSON.stringify({ youSent: req.headers.authorization }));
    });
    const tr = new Transcript();
    const out = await postJson(url, '{}', { timeoutMs: 5000, token, transcript: tr });
    expect(out.ok && out.reply.text).toContain(token); // the caller gets the real data to judge
    expect(tr.toJsonl()).not.toContain(token);
    expect(tr.toText()).not.toContain(token);
    const recv = tr.entries().find((e) => e.dir === 'recv')!;
    expect(recv.text).toBe('{"youSent":"Bearer [redacted]"}');
    expect(recv.http!.headers!['x-echo']).toBe('Bearer [redacted]');
  });

  test('a server that never answers times out on time', async () => {
    const { url } = await serve(() => {
      /* never respond */
    });
    const tr = new Transcript();
    const start = Date.now();
    const out = await postJson(url, '{}', { timeoutMs: 400, transcript: tr });
    const took = Date.now() - start;
    expect(out).toEqual({ ok: false, error: 'timeout', message: 'no complete reply within 400 ms' });
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(5000);
    expect(tr.entries().at(-1)!.note).toContain('timeout');
  });

  test('a body that stalls after the headers also times out', async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const out = await postJson(url, '{}', { timeoutMs: 400, transcript: new Transcript() });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toBe('timeout');
  });

  test('nothing listening: a connect error', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const out = await postJson(`http://127.0.0.1:${port}/`, '{}', { timeoutMs: 5000, transcript: new Transcript() });
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.error).toBe('connect');
      expect(out.message).toContain('ECONNREFUSED');
      expect(out.message).not.toContain('\n');
    }
  });

  test('the response body is bounded to 4 MiB', async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      for (let i = 0; i < 6; i++) res.write(chunk);
      res.end();
    });
    const tr = new Transcript();
    const out = await postJson(url, '{}', { timeoutMs: 10_000, transcript: tr });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.reply.body.byteLength).toBe(MAX_RESPONSE_BYTES);
    expect(out.reply.truncated).toBe(true);
    const recv = tr.entries().find((e) => e.dir === 'recv')!;
    expect(recv.note).toContain('the rest not read');
    expect(recv.note).toContain('truncated: kept 262144'); // and the transcript entry bound applies too
  });

  test('no connection stays open after a request', async () => {
    const { url, seen, server } = await serve((_req, _body, res) => res.writeHead(200).end('{}'));
    for (let i = 0; i < 3; i++) await postJson(url, '{}', { timeoutMs: 5000, transcript: new Transcript() });
    expect(seen.every((s) => s.headers.connection === 'close')).toBe(true);
    let open = -1;
    for (let i = 0; i < 40; i++) {
      open = await new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
      if (open === 0) break;
      await sleep(25);
    }
    expect(open).toBe(0);
  });
});

const SERVER_JS = `
  const http = require('node:http');
  const port = Number(process.env.PORT);
  const delay = Number(process.env.DELAY ?? 0);
  process.stdout.write('starting on ' + port + '\\n');
  setTimeout(() => {
    http.createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ echo: b })); });
    }).listen(port, '127.0.0.1');
  }, delay);`;

test.describe('HttpServerProcess', () => {
  test('waits until the port accepts connections, serves, and stop() frees the port', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const tr = new Transcript();
    const start = Date.now();
    const srv = await HttpServerProcess.start({
      command: NODE,
      args: ['-e', SERVER_JS],
      cwd: process.cwd(),
      env: childEnv({ PORT: String(port), DELAY: '400' }),
      url: `http://127.0.0.1:${port}/ahp`,
      transcript: tr,
    });
    launched.push(srv);
    expect(Date.now() - start).toBeGreaterThanOrEqual(350);
    expect(await accepts(port)).toBe(true);
    const out = await postJson(`http://127.0.0.1:${port}/ahp`, '{"x":1}', { timeoutMs: 5000, transcript: tr });
    expect(out.ok && JSON.parse(out.reply.text)).toEqual({ echo: '{"x":1}' });
    expect(srv.stdoutTail()).toContain(`starting on ${port}`);
    expect(tr.entries().some((e) => e.note?.startsWith('ready:'))).toBe(true);
    const pid = srv.pid!;
    await srv.stop();
    await srv.stop();
    expect(await waitGone(pid, 5000)).toBe(true);
    expect(await accepts(port)).toBe(false);
  });

  test('a server that exits early is reported with its last stderr line, in one line', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const start = Date.now();
    const err = await HttpServerProcess.start({
      command: NODE,
      args: ['-e', `process.stderr.write('loading config\\nfatal: config file missing\\n'); process.exit(2)`],
      cwd: process.cwd(),
      env: childEnv(),
      url: `http://127.0.0.1:${port}/`,
      readyTimeoutMs: 20_000,
      transcript: new Transcript(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    const msg = (err as LaunchError).message;
    expect(msg).toContain('exited with code 2');
    expect(msg).toContain('last stderr: fatal: config file missing');
    expect(msg).not.toContain('\n');
    expect(Date.now() - start).toBeLessThan(10_000); // did not wait for the deadline
  });

  test('a server that never listens: LaunchError at the deadline, and the process is killed', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const start = Date.now();
    const err = await HttpServerProcess.start({
      command: NODE,
      args: ['-e', `process.stderr.write('pid ' + process.pid + '\\n'); setInterval(() => {}, 1000)`],
      cwd: process.cwd(),
      env: childEnv(),
      url: `http://127.0.0.1:${port}/`,
      readyTimeoutMs: 600,
      transcript: new Transcript(),
    }).catch((e: unknown) => e);
    const took = Date.now() - start;
    expect(err).toBeInstanceOf(LaunchError);
    const msg = (err as LaunchError).message;
    expect(msg).toMatch(/did not accept connections on 127\.0\.0\.1:\d+ within 600 ms; last stderr: pid \d+/);
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(8000);
    const pid = Number(/pid (\d+)/.exec(msg)![1]);
    strayPids.push(pid);
    expect(await waitGone(pid, 5000)).toBe(true);
  });

  test('a missing server command is a LaunchError', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const err = await HttpServerProcess.start({
      command: 'definitely-not-a-command-ahp-xyz',
      args: [],
      cwd: process.cwd(),
      env: childEnv(),
      url: `http://127.0.0.1:${port}/`,
      transcript: new Transcript(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).message).toContain('ENOENT');
  });

  test('a port already taken by another process is refused before launching', async () => {
    const { url } = await serve((_req, _body, res) => res.end());
    const err = await HttpServerProcess.start({
      command: NODE,
      args: ['-e', ''],
      cwd: process.cwd(),
      env: childEnv(),
      url,
      transcript: new Transcript(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).message).toContain('port already in use');
  });

  test('without a command: waits for an external server, or reports that nothing listens', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const server = createServer((_req, res) => res.end());
    servers.push(server);
    setTimeout(() => server.listen(port, '127.0.0.1'), 300);
    const srv = await HttpServerProcess.start({
      args: [],
      cwd: process.cwd(),
      env: {},
      url: `http://127.0.0.1:${port}/`,
      transcript: new Transcript(),
    });
    launched.push(srv);
    expect(srv.pid).toBeUndefined();
    await srv.stop();

    const free = await getPort({ host: '127.0.0.1' });
    const start = Date.now();
    const err = await HttpServerProcess.start({
      args: [],
      cwd: process.cwd(),
      env: {},
      url: `http://127.0.0.1:${free}/`,
      readyTimeoutMs: 300,
      transcript: new Transcript(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).message).toBe(`nothing accepted connections on 127.0.0.1:${free} within 300 ms`);
    expect(Date.now() - start).toBeGreaterThanOrEqual(290);
  });

  test('a non-loopback http URL is refused without connecting', async () => {
    const err = await HttpServerProcess.start({
      args: [],
      cwd: process.cwd(),
      env: {},
      url: 'http://10.255.255.1/',
      transcript: new Transcript(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).message).toContain('non-loopback');
  });
});
