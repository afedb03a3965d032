import { test, expect } from '@playwright/test';
import { chmodSync, writeFileSync } from 'node:fs';
import { LaunchError, StdioProcess, type LineResult, type StdioLaunch } from '../../drivers/stdio.js';
import { Transcript } from '../../drivers/transcript.js';
import { childEnv, grandparentProgram, killQuietly, NODE, sleep, waitGone } from './helpers.js';

const ECHO = `process.stdin.on('data', (d) => process.stdout.write(d)); process.stdin.on('end', () => process.exit(0));`;
const IDLE = `setInterval(() => {}, 1000);`;

let running: StdioProcess[] = [];
let strayPids: number[] = [];

function launch(js: string, extra: Partial<StdioLaunch> = {}): { p: StdioProcess; tr: Transcript } {
  const tr = extra.transcript ?? new Transcript();
  const p = StdioProcess.start({
    command: NODE,
    args: ['-e', js],
    cwd: process.cwd(),
    env: childEnv(),
    transcript: tr,
    ...extra,
  });
  running.push(p);
  return { p, tr };
}

async function grandchildPid(p: StdioProcess): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const m = /GRANDCHILD (\d+)/.exec(p.stderrTail());
    if (m) return Number(m[1]);
    await sleep(25);
  }
  throw new Error('grandchild pid not reported');
}

function lineText(r: LineResult): string {
  if (r.kind !== 'line') throw new Error(`expected a line, got ${JSON.stringify(r)}`);
  return r.text;
}

test.afterEach(async () => {
  await Promise.all(running.map((p) => p.stop()));
  running = [];
  for (const pid of strayPids) killQuietly(pid);
  strayPids = [];
});

test.describe('StdioProcess', () => {
  test('echo round trip: sends exact bytes and reads one line, both recorded', async () => {
    const { p, tr } = launch(ECHO);
    expect(p.pid).toBeGreaterThan(0);
    p.send('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const r = await p.nextLine(5000);
    expect(r.kind).toBe('line');
    expect(lineText(r)).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(r.kind === 'line' && r.utf8).toBe(true);
    const es = tr.entries();
    expect(es.find((e) => e.dir === 'send')!.text).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(es.find((e) => e.dir === 'recv')!.text).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  });

  test('splits on \\n only: a CR stays in the line, empty lines are lines, a tail stays pending', async () => {
    const { p } = launch(`process.stdout.write('one\\r\\ntwo\\n\\nthree'); ${IDLE}`);
    expect(lineText(await p.nextLine(5000))).toBe('one\r');
    expect(lineText(await p.nextLine(5000))).toBe('two');
    expect(lineText(await p.nextLine(5000))).toBe('');
    expect((await p.nextLine(300)).kind).toBe('timeout');
    expect(p.pendingBytes()).toBe(5);
  });

  test('a line arriving in pieces is delivered once complete; several lines in one chunk are split', async () => {
    const { p } = launch(`
      process.stdout.write('{"a":');
      setTimeout(() => process.stdout.write('1}'), 100);
      setTimeout(() => process.stdout.write('\\n{"b":2}\\n{"c":3}\\n'), 250);
      ${IDLE}`);
    const start = Date.now();
    expect(lineText(await p.nextLine(5000))).toBe('{"a":1}');
    expect(Date.now() - start).toBeGreaterThanOrEqual(150);
    expect(p.pendingBytes()).toBe(0);
    expect(lineText(await p.nextLine(5000))).toBe('{"b":2}');
    expect(lineText(await p.nextLine(5000))).toBe('{"c":3}');
  });

  test('concurrent nextLine calls are served in order', async () => {
    const { p } = launch(`setTimeout(() => process.stdout.write('first\\nsecond\\n'), 100); ${IDLE}`);
    const [a, b] = await Promise.all([p.nextLine(5000), p.nextLine(5000)]);
    expect(lineText(a)).toBe('first');
    expect(lineText(b)).toBe('second');
  });

  test('a pretty-printed object arrives as several lines', async () => {
    const { p } = launch(
      `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }, null, 2) + '\\n'); ${IDLE}`,
    );
    const lines: string[] = [];
    for (;;) {
      const r = await p.nextLine(500);
      if (r.kind !== 'line') break;
      lines.push(r.text);
    }
    expect(lines).toEqual(['{', '  "jsonrpc": "2.0",', '  "id": 1,', '  "result": {}', '}']);
  });

  test('an oversize line is dropped and counted, and the next line still arrives', async () => {
    const { p, tr } = launch(`process.stdout.write('x'.repeat(5000) + '\\nok\\n'); ${IDLE}`, { maxLineBytes: 100 });
    expect(await p.nextLine(5000)).toEqual({ kind: 'oversize', bytes: 5000 });
    expect(lineText(await p.nextLine(5000))).toBe('ok');
    const note = tr.entries().find((e) => e.note?.includes('oversize'));
    expect(note?.note).toContain('5000 bytes exceeds the 100-byte limit');
  });

  test('a line of exactly maxLineBytes is fine; one more byte is oversize', async () => {
    const { p } = launch(`process.stdout.write('a'.repeat(100) + '\\n' + 'b'.repeat(101) + '\\n'); ${IDLE}`, {
      maxLineBytes: 100,
    });
    expect(lineText(await p.nextLine(5000))).toBe('a'.repeat(100));
    expect(await p.nextLine(5000)).toEqual({ kind: 'oversize', bytes: 101 });
  });

  test('the queue of unread lines is bounded: further lines are dropped, counted and noted', async () => {
    const { p, tr } = launch(
      `let s = ''; for (let i = 0; i < 10050; i++) s += 'L' + i + '\\n'; process.stdout.write(s); ${IDLE}`,
    );
    for (let i = 0; i < 400 && p.droppedLines < 50; i++) await sleep(25);
    expect(p.droppedLines).toBe(50);
    expect(tr.entries().some((e) => e.note?.startsWith('unread stdout queue full'))).toBe(true);
    let last = '';
    for (let i = 0; i < 10_000; i++) last = lineText(await p.nextLine(1000));
    expect(last).toBe('L9999');
    expect((await p.nextLine(100)).kind).toBe('timeout');
  });

  test('a line that is not valid UTF-8 is flagged and its exact bytes recorded', async () => {
    const { p, tr } = launch(`process.stdout.write(Buffer.from([0x7b, 0xff, 0xc3, 0x7d, 0x0a])); ${IDLE}`);
    const r = await p.nextLine(5000);
    expect(r.kind).toBe('line');
    if (r.kind !== 'line') return;
    expect(r.utf8).toBe(false);
    expect(Buffer.from(r.bytes)).toEqual(Buffer.from([0x7b, 0xff, 0xc3, 0x7d]));
    expect(r.text).toContain('\uFFFD');
    const recv = tr.entries().find((e) => e.dir === 'recv')!;
    expect(recv.base64).toBe(Buffer.from([0x7b, 0xff, 0xc3, 0x7d]).toString('base64'));
  });

  test('nextLine times out on time when nothing is written', async () => {
    const { p, tr } = launch(IDLE);
    const start = Date.now();
    expect(await p.nextLine(400)).toEqual({ kind: 'timeout' });
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(5000);
    expect(tr.entries().some((e) => e.note === 'timeout after 400 ms waiting for a stdout line')).toBe(true);
  });

  test('EOF after the last line, and the exit code', async () => {
    const { p, tr } = launch(`process.stdout.write('bye\\n'); process.exitCode = 3;`);
    expect(lineText(await p.nextLine(5000))).toBe('bye');
    expect(await p.nextLine(5000)).toEqual({ kind: 'eof' });
    expect(await p.nextLine(10)).toEqual({ kind: 'eof' });
    expect(await p.waitExit(5000)).toEqual({ code: 3, signal: null });
    expect(p.exited()).toEqual({ code: 3, signal: null });
    expect(tr.entries().some((e) => e.dir === 'exit' && e.note === 'exit code 3')).toBe(true);
  });

  test('an unterminated last line is not delivered but stays visible', async () => {
    const { p, tr } = launch(`process.stdout.write('{"partial":true}');`);
    expect(await p.nextLine(5000)).toEqual({ kind: 'eof' });
    expect(p.pendingBytes()).toBe(16);
    const e = tr.entries().find((x) => x.note?.includes('unterminated'))!;
    expect(e.text).toBe('{"partial":true}');
  });

  test('waitExit times out while the process runs; closeStdin lets an echo server finish', async () => {
    const { p } = launch(ECHO);
    const start = Date.now();
    expect(await p.waitExit(300)).toBe('timeout');
    expect(Date.now() - start).toBeGreaterThanOrEqual(290);
    expect(p.exited()).toBeUndefined();
    p.closeStdin();
    expect(await p.waitExit(5000)).toEqual({ code: 0, signal: null });
    // writing after close neither throws nor reaches the process
    expect(() => p.send('late\n')).not.toThrow();
  });

  test('writing to a process that has exited does not throw (EPIPE is only noted)', async () => {
    const { p, tr } = launch(`process.exit(0)`);
    await p.waitExit(5000);
    for (let i = 0; i < 5; i++) expect(() => p.send('x'.repeat(100_000) + '\n')).not.toThrow();
    await sleep(200);
    expect(tr.entries().filter((e) => e.dir === 'send').length).toBeGreaterThan(0);
  });

  test('stderr is drained and its tail is bounded; chunks are recorded', async () => {
    const { p, tr } = launch(`process.stderr.write('y'.repeat(100000) + 'END\\n'); ${IDLE}`, { stderrTailBytes: 1000 });
    for (let i = 0; i < 200 && !p.stderrTail().includes('END'); i++) await sleep(25);
    const tail = p.stderrTail();
    expect(tail.length).toBeLessThanOrEqual(1000);
    expect(tail.endsWith('END\n')).toBe(true);
    expect(tr.entries().some((e) => e.dir === 'stderr')).toBe(true);
  });

  test('a child writing a lot to stdout and stderr never blocks', async () => {
    const { p } = launch(`
      const big = 'z'.repeat(1 << 20);
      for (let i = 0; i < 8; i++) { process.stderr.write(big); }
      process.stdout.write('done\\n');
      ${IDLE}`);
    expect(lineText(await p.nextLine(10_000))).toBe('done');
  });

  test('LaunchError for a missing command: one line, no stack, also for paths and a missing cwd', async () => {
    const attempts: Array<Partial<StdioLaunch>> = [
      { command: 'definitely-not-a-command-ahp-xyz' },
      { command: './no/such/binary' },
      { command: NODE, cwd: '/no/such/dir/ahp' },
    ];
    for (const a of attempts) {
      let err: unknown;
      try {
        StdioProcess.start({
          command: NODE,
          args: [],
          cwd: process.cwd(),
          env: childEnv(),
          transcript: new Transcript(),
          ...a,
        });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(LaunchError);
      const le = err as LaunchError;
      expect(le.message).not.toContain('\n');
      expect(le.stack).toBe(`LaunchError: ${le.message}`);
      expect(le.code).toBe('ENOENT');
    }
    // give the async spawn 'error' events a chance to fire: they must not crash anything
    await sleep(100);
  });

  test('LaunchError for a file that is not executable', async ({}, testInfo) => {
    const file = testInfo.outputPath('not-executable.sh');
    writeFileSync(file, '#!/bin/sh\necho hi\n');
    chmodSync(file, 0o644);
    expect(() =>
      StdioProcess.start({
        command: file,
        args: [],
        cwd: process.cwd(),
        env: childEnv(),
        transcript: new Transcript(),
      }),
    ).toThrow(/not executable \(EACCES\)/);
  });

  test('stop() kills the whole tree, including the grandchild', async () => {
    const { p } = launch(grandparentProgram());
    const gpid = await grandchildPid(p);
    strayPids.push(gpid);
    await p.stop();
    expect(p.exited()).toBeDefined();
    expect(await waitGone(gpid, 5000)).toBe(true);
    expect(await waitGone(p.pid!, 5000)).toBe(true);
    expect(await p.nextLine(100)).toEqual({ kind: 'eof' });
  });

  test('stop() also reaches a grandchild that left the process group', async () => {
    const { p } = launch(grandparentProgram({ detachedGrandchild: true }));
    const gpid = await grandchildPid(p);
    strayPids.push(gpid);
    await p.stop();
    expect(await waitGone(gpid, 5000)).toBe(true);
  });

  test('stop() escalates to SIGKILL when SIGTERM is ignored, and is idempotent', async () => {
    const { p } = launch(grandparentProgram({ ignoreTerm: true }));
    const gpid = await grandchildPid(p);
    strayPids.push(gpid);
    const start = Date.now();
    await Promise.all([p.stop(), p.stop()]);
    await p.stop();
    expect(Date.now() - start).toBeLessThan(6000);
    expect(p.exited()?.signal).toBe('SIGKILL');
    expect(await waitGone(gpid, 5000)).toBe(true);
  });
});
