// Silence judged by causality (drivers/channel.ts, Fence): a request unanswered by its
// deadline is followed by a healthy one on the same process or endpoint; once that is
// answered (and a margin from its turnaround has passed), the first is unanswered, without
// waiting for patience. A backend that answers late and out of order keeps its answer; one
// that answers nothing at all is still judged with patience; a reply that comes after the
// channel gave up is set aside, never taken for a later request's.
//
// Patience is set far above what these tests may take: a wrong rule shows as the test's own
// time limit, never as a timed assertion.
import { test, expect } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import getPort from 'get-port';
import { ReplyTiming, type Fence, type ParseJson, type Reply } from '../../drivers/channel.js';
import { HttpChannel } from '../../drivers/http-channel.js';
import { PersistentStdioChannel } from '../../drivers/stdio-channel.js';
import { Transcript } from '../../drivers/transcript.js';
import { parseJsonStrict } from '../../src/protocol/json.js';
import { fenceMarginMs } from '../../src/timing.js';
import { childEnv, NODE } from './helpers.js';
import { ROOT } from '../support/paths.js';

test.setTimeout(60_000);
const parseStrict: ParseJson = (text) => {
  const p = parseJsonStrict(text);
  return p.ok ? p : { ok: false, message: 'not strict JSON' };
};
const TIMEOUT_MS = 300;
/** Far above any test's time: reaching it fails the test by its time limit. */
const PATIENCE_MS = 120_000;

let fences = 0;
const fence = (): Fence => {
  const id = `fence-${++fences}`;
  return { message: { text: JSON.stringify({ jsonrpc: '2.0', id, method: 'ok' }), id } };
};
const req = (id: string, method: string) => ({ text: JSON.stringify({ jsonrpc: '2.0', id, method }), id });

/**
 * A persistent backend: `ok` is answered at once; `silent` never; `hold` is answered only
 * after the next request's answer (late and out of order); `late` after `lateMs`.
 */
const BACKEND = `
const rl = require('node:readline').createInterface({ input: process.stdin });
let held;
const answer = (id) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\\n');
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'silent') return;
  if (m.method === 'hold') { held = m.id; return; }
  if (m.method === 'late') { setTimeout(() => answer(m.id), Number(process.env.LATE_MS)); return; }
  answer(m.id);
  if (held !== undefined) { answer(held); held = undefined; }
});`;

function stdioChannel(tr: Transcript, opts: { fence?: boolean; lateMs?: number; patienceMs?: number } = {}) {
  return new PersistentStdioChannel({
    launch: () => ({
      command: NODE,
      args: ['-e', BACKEND],
      cwd: process.cwd(),
      env: childEnv({ LATE_MS: String(opts.lateMs ?? 0) }),
      transcript: tr,
    }),
    transcript: tr,
    timing: new ReplyTiming(TIMEOUT_MS, opts.patienceMs ?? PATIENCE_MS, tr, fenceMarginMs),
    parse: parseStrict,
    ...(opts.fence === false ? {} : { fence }),
  });
}

const idOf = (r: Reply): unknown => (r.kind === 'reply' ? (r.value as { id?: unknown }).id : undefined);
const notes = (tr: Transcript): string =>
  tr
    .entries()
    .map((e) => e.note ?? '')
    .join('\n');

test('stdio: silent on one request, answering the fence: unanswered by causality; the next request gets its own reply', async () => {
  const tr = new Transcript();
  const ch = stdioChannel(tr);
  try {
    const r = await ch.request(req('a', 'silent'));
    expect(r.kind).toBe('none');
    expect(r.kind === 'none' && r.why).toMatch(
      /^no reply within 300 ms \(timeoutMs\), while a later request \(a fence\) was answered in \d+ ms and \d+ ms more brought nothing: unanswered$/,
    );
    expect(notes(tr)).toContain('a fence request ("fence-');
    // The fence's own reply was read: it answers no later request.
    expect(idOf(await ch.request(req('b', 'ok')))).toBe('b');
  } finally {
    await ch.close();
  }
});

test('stdio: a backend answering late and out of order (the fence first) keeps its answer, judged on content', async () => {
  const tr = new Transcript();
  const ch = stdioChannel(tr);
  try {
    const r = await ch.request(req('slow', 'hold'));
    expect(r.kind).toBe('reply');
    expect(idOf(r)).toBe('slow');
    // Its first wait ended at the deadline without it: a reply read right after the fence's
    // may round to the deadline itself.
    expect(r.kind === 'reply' && r.latencyMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(idOf(await ch.request(req('next', 'ok')))).toBe('next');
  } finally {
    await ch.close();
  }
});

test('stdio: a process that starts slowly and answers its first request slowly, after the fence: judged on content', async () => {
  // It reads nothing for most of the deadline (a slow start: the machine's time), then takes
  // most of a deadline over the request (its own time, within its promise), answering the
  // fence, read just after the request, at once. The request may have been read only just
  // before the fence: it gets its whole deadline again from the fence's answer.
  const tr = new Transcript();
  const DEADLINE = 1000;
  const ch = new PersistentStdioChannel({
    launch: () => ({
      command: NODE,
      args: [
        '-e',
        `setTimeout(() => {
          const answer = (id) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\\n');
          require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
            const m = JSON.parse(l);
            if (m.method === 'slow') setTimeout(() => answer(m.id), ${DEADLINE * 0.8});
            else answer(m.id);
          });
        }, ${DEADLINE * 0.9});`,
      ],
      cwd: process.cwd(),
      env: childEnv(),
      transcript: tr,
    }),
    transcript: tr,
    timing: new ReplyTiming(DEADLINE, PATIENCE_MS, tr, fenceMarginMs),
    parse: parseStrict,
    fence,
  });
  try {
    const r = await ch.request(req('first', 'slow'));
    expect(r.kind === 'reply' ? idOf(r) : r.why).toBe('first');
    expect(notes(tr)).toContain('a fence request ("fence-');
    // Once started, the same slowness is within the deadline: no fence.
    expect(idOf(await ch.request(req('second', 'slow')))).toBe('second');
  } finally {
    await ch.close();
  }
});

test('stdio: unanswered behind an answered fence, the process is known alive: no restart, no exit awaited', async () => {
  const tr = new Transcript();
  const ch = stdioChannel(tr);
  try {
    const r = await ch.request(req('a', 'silent'));
    expect(r.kind === 'none' && r.transport === 'stdio' && r.fenced).toBe(true);
    expect(ch.restarts).toBe(0);
    expect(notes(tr)).not.toContain('waiting for the process to exit');
  } finally {
    await ch.close();
  }
});

test('stdio: a reply that comes after the channel gave up is set aside, never taken for the next request', async () => {
  const tr = new Transcript();
  // Answered well after the fence and its margin, and before the next request's answer.
  const ch = stdioChannel(tr, { lateMs: 3000 });
  try {
    const r = await ch.request(req('x', 'late'));
    expect(r.kind).toBe('none');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(idOf(await ch.request(req('y', 'ok')))).toBe('y');
    expect(notes(tr)).toContain('a reply to request "x", which was given up on earlier: set aside');
  } finally {
    await ch.close();
  }
});

test('stdio: an implementation that answers nothing, not even the fence, is judged with patience as before', async () => {
  const tr = new Transcript();
  const silentAll = new PersistentStdioChannel({
    launch: () => ({
      command: NODE,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      cwd: process.cwd(),
      env: childEnv(),
      transcript: tr,
    }),
    transcript: tr,
    timing: new ReplyTiming(TIMEOUT_MS, 1500, tr, fenceMarginMs),
    parse: parseStrict,
    fence,
  });
  try {
    const r = await silentAll.request(req('a', 'ok'));
    expect(r.kind === 'none' && r.why).toBe('no reply within 300 ms (timeoutMs); waited 1500 ms in all');
  } finally {
    await silentAll.close();
  }
});

test('stdio: without a fence, silence is judged with patience as before', async () => {
  const tr = new Transcript();
  const ch = stdioChannel(tr, { fence: false, patienceMs: 1500 });
  try {
    const r = await ch.request(req('a', 'silent'));
    expect(r.kind === 'none' && r.why).toBe('no reply within 300 ms (timeoutMs); waited 1500 ms in all');
  } finally {
    await ch.close();
  }
});

test.describe('http', () => {
  let server: Server;
  let url: string;
  test.beforeAll(async () => {
    // A POST of method `silent` is never answered; one of method `hold` only once a later
    // POST has been answered (late, after the fence, out of order); every other one at once.
    const held: (() => void)[] = [];
    server = createServer((q, s) => {
      let body = '';
      q.on('data', (d: Buffer) => (body += d.toString()));
      q.on('end', () => {
        const m = JSON.parse(body) as { id: string; method: string };
        const answer = (): void => {
          s.writeHead(200, { 'content-type': 'application/json' });
          s.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
        };
        if (m.method === 'silent') return;
        if (m.method === 'hold') return void held.push(answer);
        answer();
        for (const h of held.splice(0).reverse()) h();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  test.afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const httpChannel = (tr: Transcript): HttpChannel =>
    new HttpChannel({
      launch: async () => ({ args: [], cwd: process.cwd(), env: {}, url, transcript: tr }),
      transcript: tr,
      timing: new ReplyTiming(TIMEOUT_MS, PATIENCE_MS, tr, fenceMarginMs),
      parse: parseStrict,
      fence,
    });

  test('a POST answered only after the fence POST (out of order, within the margin): judged on content, never unanswered', async () => {
    const tr = new Transcript();
    const ch = httpChannel(tr);
    try {
      const r = await ch.request(req('slow', 'hold'));
      expect(r.kind).toBe('reply');
      expect(idOf(r)).toBe('slow');
      expect(r.kind === 'reply' && r.latencyMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(notes(tr)).toContain('a fence request ("fence-');
      expect(idOf(await ch.request(req('next', 'ok')))).toBe('next');
    } finally {
      await ch.close();
    }
  });

  test('a POST left hanging while the fence POST is answered: unanswered by causality, the hanging one given up', async () => {
    const tr = new Transcript();
    const ch = httpChannel(tr);
    try {
      const r = await ch.request(req('a', 'silent'));
      expect(r.kind === 'none' && r.why).toMatch(/while a later request \(a fence\) was answered in \d+ ms/);
      expect(idOf(await ch.request(req('b', 'ok')))).toBe('b');
    } finally {
      await ch.close();
    }
  });
});

// The reference backend's slow-reverse-refusals (reference/backend/hold.ts): refusals held for
// a quarter of the claim's timeoutMs, overtaken by every other reply. A correct backend: each refusal
// comes back judged on its content, on a persistent process and over HTTP alike.
test.describe('a backend slow but sure (the reference, slow-reverse-refusals)', () => {
  const SLOW_TIMEOUT_MS = 2000;
  const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
  const slow = ['--fault', 'slow-reverse-refusals', '--timeout-ms', String(SLOW_TIMEOUT_MS)];
  const refusals = [
    { jsonrpc: '2.0', id: 'm-1', method: 'hooks/bogus' },
    { jsonrpc: '2.0', id: 'm-2', method: 'hooks/other', params: { protocolVersion: 'draft' } },
  ];
  const judged = async (request: (m: { text: string; id: string }) => Promise<Reply>): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const m of refusals) {
      const r = await request({ text: JSON.stringify(m), id: m.id });
      out.push(r.kind === 'reply' ? [idOf(r), (r.value as { error?: { code?: number } }).error?.code] : r.why);
    }
    return out;
  };
  const want = [
    ['m-1', -32601],
    ['m-2', -32601],
  ];

  test('stdio persistent', async () => {
    const tr = new Transcript();
    const ch = new PersistentStdioChannel({
      launch: () => ({
        command: NODE,
        args: [MAIN, '--transport', 'stdio', ...slow],
        cwd: ROOT,
        env: childEnv(),
        transcript: tr,
      }),
      transcript: tr,
      timing: new ReplyTiming(SLOW_TIMEOUT_MS, PATIENCE_MS, tr, fenceMarginMs),
      parse: parseStrict,
      fence,
    });
    try {
      expect(await judged((m) => ch.request(m))).toEqual(want);
    } finally {
      await ch.close();
    }
  });

  test('HTTP', async () => {
    const tr = new Transcript();
    const port = String(await getPort({ host: '127.0.0.1' }));
    const ch = new HttpChannel({
      launch: async () => ({
        command: NODE,
        args: [MAIN, '--transport', 'http', '--port', port, ...slow],
        cwd: ROOT,
        env: childEnv(),
        url: `http://127.0.0.1:${port}/hooks`,
        transcript: tr,
      }),
      transcript: tr,
      timing: new ReplyTiming(SLOW_TIMEOUT_MS, PATIENCE_MS, tr, fenceMarginMs),
      parse: parseStrict,
      fence,
    });
    try {
      expect(await judged((m) => ch.request(m))).toEqual(want);
    } finally {
      await ch.close();
    }
  });
});
