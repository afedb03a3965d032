#!/usr/bin/env node
// The scripted backend for stdio: the program a harness under test launches from the
// registration the runner hands it. It answers as the run's script says and reports every
// stdin line, every frame and every reply to the runner's wire collector (collector.ts),
// so the runner judges the harness from what actually crossed the pipe, from records the
// harness cannot write.
//
//   node stdio-main.js --collector <host:port> --key <run key> --hook <name> --lifecycle persistent|per_event
//                      --lifetime-ms <n> --eof-first-ms <n> --eof-wait-ms <n> --ack-wait-ms <n>
//                      [anything else is recorded, not interpreted]
//
// It never outlives its harness: it exits when its parent is gone, when the runner goes
// away, and after a hard cap.
import { Buffer, isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import {
  answerFor,
  CONFIGURATION,
  NO_CONFIGURATION,
  nowMs,
  probeOf as probeStep,
  stdioReplyText,
  type Answer,
  type BackendScript,
} from './script.js';
import { scanLine } from '../json-scan.js';
import { CollectorReporter, type Sent } from './reporter.js';

const MAX_PENDING_BYTES = 4 * 1024 * 1024;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
function numberArg(name: string, fallback: number): number {
  const n = Number(arg(name));
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

const collector = arg('collector');
const key = arg('key');
const hook = arg('hook') ?? 'unnamed';
const lifecycle = arg('lifecycle') === 'per_event' ? 'per_event' : 'persistent';
if (!collector || !key) {
  process.stderr.write('scripted-backend: --collector <host:port> and --key <key> are required\n');
  process.exit(2);
}
// The runner derives these from the hook's deadline (src/timing.ts) and passes them here;
// the fallbacks (what a 2000 ms deadline gives) serve a backend started by hand.
const LIFETIME_MS = numberArg('lifetime-ms', 120_000);
const PER_EVENT_EOF_WAIT_MS = numberArg('eof-wait-ms', 2_000);
const PER_EVENT_EOF_FIRST_MS = numberArg('eof-first-ms', 500);
const ACK_WAIT_MS = numberArg('ack-wait-ms', 2_000);

let exiting = false;
const reporter = new CollectorReporter(collector, key, hook, () => finish(0, 'the runner went away', false));
let script: BackendScript = { hooks: {} };
const ready = reporter.script.then(
  (s) => {
    script = s;
  },
  () => undefined,
);

/** Report a record; resolves once the runner has it (the order of records is the order of events). */
const record = (r: Sent): ReturnType<CollectorReporter['record']> => reporter.record(r, ACK_WAIT_MS);

// uptimeMs: how long this process took from its own start to here (interpreter start-up,
// imports): the runner scales the deadlines it writes by it (src/timing.ts).
void record({ kind: 'start', argv: process.argv.slice(2), lifecycle, uptimeMs: Math.round(performance.now()) });

function finish(code: number, note?: string, report = true): void {
  if (exiting) return;
  exiting = true;
  const done = (): void => {
    // Let stdout drain before the process goes.
    process.stdout.write('', () => process.exit(code));
    setTimeout(() => process.exit(code), 500).unref();
  };
  if (!report) return done();
  void record({ kind: 'exit', note: note ?? `exit status ${code}` }).then(done);
}

const parentAtStart = process.ppid;
setInterval(() => {
  if (process.ppid !== parentAtStart) finish(0, 'the harness process is gone');
}, 250).unref();
setTimeout(() => finish(0, `lifetime cap of ${LIFETIME_MS} ms reached`), LIFETIME_MS).unref();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const pending = new Set<Promise<void>>();
let frames = 0;
let firstAnswerExit: number | undefined;
let sawEof = false;
let noEofRecorded = false;

async function answer(a: Answer, request: Record<string, unknown>): Promise<void> {
  if (a.delayMs) await sleep(a.delayMs);
  if (exiting) return;
  if (a.probeFile) await record({ kind: 'probe', path: a.probeFile, exists: existsSync(a.probeFile) });
  if (!a.none) {
    const text = stdioReplyText(a, request);
    // The runner has the reply on record before the harness can see it.
    const step = probeStep(request);
    await record({
      kind: 'reply',
      text,
      method: String(request.method ?? ''),
      ...(step !== undefined ? { step } : {}),
    });
    await new Promise<void>((resolve) => {
      if (!process.stdout.write(text)) process.stdout.once('drain', resolve);
      else resolve();
    });
  }
  if (a.exit !== undefined && lifecycle === 'persistent') finish(a.exit);
}

function onFrame(text: string, lines: number): void {
  frames++;
  const first = frames === 1;
  // The runner parses the frame and counts it (ordinal, attempt): counters across the
  // run's processes live there.
  const handled = (async (): Promise<void> => {
    const ack = await record({ kind: 'frame', text, lines });
    await ready;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const m =
      message && typeof message === 'object' && !Array.isArray(message)
        ? (message as Record<string, unknown>)
        : undefined;
    const method = typeof m?.method === 'string' ? m.method : undefined;
    if (!m || !method || !ack) return;
    const hookScript = script.hooks[hook] ?? {};
    let a: Answer;
    if (method === 'hooks/intercept' && 'id' in m) {
      const byStep = ack.attempt !== undefined ? hookScript.byStep?.[probeStep(m) ?? ''] : undefined;
      a = byStep ? answerFor(byStep, ack.attempt!, {}) : answerFor(hookScript.intercept, ack.ordinal ?? 0, {});
    } else if (method === 'hooks/observe') {
      const byStep = ack.attempt !== undefined ? hookScript.observeByStep?.[probeStep(m) ?? ''] : undefined;
      a = byStep
        ? answerFor(byStep, ack.attempt!, { none: true })
        : answerFor(hookScript.observe, ack.ordinal ?? 0, { none: true });
    } else if (method === CONFIGURATION && 'id' in m) {
      a = answerFor(hookScript.configuration, ack.ordinal ?? 0, NO_CONFIGURATION);
    } else return;
    if (lifecycle === 'per_event' && first) {
      firstAnswerExit = a.exit;
      // per_event: the message is all there is; read to end of input (bounded) before
      // answering, as a backend that reads its whole input would.
      await eofOrBound();
    }
    await answer(a, m);
  })().catch(() => undefined);
  pending.add(handled);
  void handled.finally(() => pending.delete(handled));
  if (lifecycle === 'per_event' && first) void perEventEnd(handled);
}

/** per_event, before answering: end of input, or a `no-eof` record once the bound has passed. */
async function eofOrBound(): Promise<void> {
  const until = nowMs() + PER_EVENT_EOF_FIRST_MS;
  while (!sawEof && nowMs() < until) await sleep(10);
  if (sawEof) return;
  noEofRecorded = true;
  await record({
    kind: 'no-eof',
    note: `no end of input within ${PER_EVENT_EOF_FIRST_MS} ms after the message; answering anyway`,
  });
}

/** per_event: after the one message, wait for its reply and for EOF (bounded), then exit. */
async function perEventEnd(reply: Promise<void>): Promise<void> {
  await reply;
  const until = nowMs() + PER_EVENT_EOF_WAIT_MS;
  while (!sawEof && nowMs() < until) await sleep(20);
  if (!sawEof && !noEofRecorded)
    await record({ kind: 'no-eof', note: `no end of input within ${PER_EVENT_EOF_WAIT_MS} ms after the reply` });
  finish(firstAnswerExit ?? 0);
}

// Framing: split on LF only. A line that does not parse but opens an object or array is
// kept and joined with the next lines until they parse, so a pretty-printed message is
// still understood (and recorded as spanning several lines: a framing fault). Linear in
// the input: the kept lines are scanned once for brackets and joined and parsed only when
// the value they open closes; once they cannot become JSON they are only collected, up to
// MAX_PENDING_BYTES or the end of input.
let parts: Buffer[] = [];
let partBytes = 0;
let pendingLines: string[] = [];
let pendingLength = 0; // of pendingLines.join('\n')
let pendingStack: number[] = [];
let pendingDead = false;

function flushPending(): void {
  const n = pendingLines.length;
  const joined = pendingLines.join('\n');
  pendingLines = [];
  pendingLength = 0;
  pendingStack = [];
  pendingDead = false;
  onFrame(joined, n);
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function onLine(bytes: Buffer, final = false): void {
  const utf8 = isUtf8(bytes);
  const text = bytes.toString('utf8');
  record({
    kind: 'line',
    text,
    ...(utf8 ? {} : { base64: bytes.toString('base64') }),
    ...(final ? { note: 'no final newline' } : {}),
  });
  const first = pendingLines.length === 0;
  pendingLines.push(text);
  pendingLength += (first ? 0 : 1) + text.length;
  if (first) {
    if (parses(text) || !/^\s*[[{]/.test(text)) return flushPending();
    // It opens a value: a close back to depth 0 on this line means it already failed to parse.
    pendingDead = scanLine(text, pendingStack, (height) => height === 0) !== 'ok';
  } else if (!pendingDead) {
    let closed = false;
    const how = scanLine(text, pendingStack, (height) => (closed = height === 0));
    if (closed) {
      if (parses(pendingLines.join('\n'))) return flushPending();
      pendingDead = true; // the value closed and is not JSON: nothing after it can fix that
    } else if (how !== 'ok') pendingDead = true;
  }
  if (pendingLength > MAX_PENDING_BYTES || final) flushPending();
}

process.stdin.on('data', (chunk: Buffer) => {
  let from = 0;
  for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
    parts.push(chunk.subarray(from, nl));
    const line = Buffer.concat(parts);
    parts = [];
    partBytes = 0;
    from = nl + 1;
    onLine(line);
  }
  if (from < chunk.length) {
    parts.push(chunk.subarray(from));
    partBytes += chunk.length - from;
  }
  if (partBytes > MAX_PENDING_BYTES) {
    const line = Buffer.concat(parts);
    parts = [];
    partBytes = 0;
    onLine(line, true);
  }
});

process.stdin.on('end', () => {
  if (partBytes) onLine(Buffer.concat(parts), true);
  parts = [];
  partBytes = 0;
  if (pendingLines.length) flushPending();
  sawEof = true;
  record({ kind: 'eof' });
  if (lifecycle === 'persistent' || frames === 0) {
    // Answer what is still pending (bounded by the lifetime cap), then go.
    void Promise.allSettled([...pending]).then(() => finish(0));
  }
});
process.stdin.on('error', () => finish(0, 'stdin error'));
process.stdout.on('error', () => finish(0, 'stdout closed by the harness'));
