// stdio binding: newline-delimited JSON on stdin/stdout, nothing else on stdout.
//   persistent: answer each stdin line in order with at most one line; exit 0 on EOF.
//   per_event:  read stdin to EOF, handle the whole input (minus one trailing LF) as one
//               message, write at most one line, exit 0.
import { performance } from 'node:perf_hooks';
import type { FaultProbe } from '../fault-probe.js';
import type { FaultMode } from './faults.js';
import { isHeld, respond, type HandlerContext, type Reply } from './handler.js';
import { ReplyHold } from './hold.js';

export type Lifecycle = 'persistent' | 'per_event';

export interface StdioOptions {
  readonly lifecycle: Lifecycle;
  readonly ctx: HandlerContext;
  /** Called once per message handled (--trace, a bench instrument). */
  readonly onExchange?: (() => void) | undefined;
  /** slow-reverse-refusals: how long a refusal is held (hold.ts). */
  readonly holdMs?: number | undefined;
}

/** Longest line we buffer; beyond it the line is answered as unparseable and skipped. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
const LF = 0x0a;

function frame(reply: Reply, fault: FaultProbe<FaultMode>): string {
  const text = (fault.is('pretty-print') ? JSON.stringify(reply, null, 2) : JSON.stringify(reply)) + '\n';
  // The log-errors-on-stdout fault: a diagnostic after every error reply, on the wrong stream.
  const error = reply.error as { code?: unknown } | undefined;
  if (error !== undefined && fault.is('log-errors-on-stdout'))
    return `${text}reference backend: answered with error ${String(error.code)}\n`;
  return text;
}

/** Exit once everything written so far has been handed to the OS. */
function flushThenExit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

export function runStdio(opts: StdioOptions): void {
  const { ctx } = opts;
  // A closed stdout means the harness has gone; there is nobody left to answer.
  process.stdout.on('error', () => process.exit(1));
  if (ctx.fault.is('stdout-banner')) process.stdout.write('reference backend ready\n');
  if (opts.lifecycle === 'per_event') runPerEvent(ctx, opts.onExchange, opts.holdMs ?? 0);
  else runPersistent(ctx, opts.onExchange, opts.holdMs ?? 0);
}

/**
 * Where a held message's deadline starts. The runner counts from its write: a message read in
 * the first chunk waited through our start-up, so it counts from our process's start; a later
 * one is read as it comes.
 */
const PROCESS_START = performance.timeOrigin;

function runPerEvent(ctx: HandlerContext, onExchange: (() => void) | undefined, holdMs: number): void {
  const chunks: Buffer[] = [];
  process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
  process.stdin.on('end', () => {
    let input = Buffer.concat(chunks);
    if (input.length > 0 && input[input.length - 1] === LF) input = input.subarray(0, input.length - 1);
    if (input.length > 0) onExchange?.();
    const reply = input.length === 0 ? null : respond(input, ctx);
    const answer = (): void => {
      if (reply !== null) process.stdout.write(frame(reply, ctx.fault));
      flushThenExit(ctx.fault.is('per-event-exit-1') ? 1 : 0);
    };
    // One message per process: held, it is only late, never out of order.
    if (reply !== null && isHeld(reply, ctx)) setTimeout(answer, Math.max(0, PROCESS_START + holdMs - Date.now()));
    else answer();
  });
  process.stdin.resume();
}

function runPersistent(ctx: HandlerContext, onExchange: (() => void) | undefined, holdMs: number): void {
  let pending: Buffer = Buffer.alloc(0);
  let discarding = false; // inside an oversized line, until its LF
  let stopped = false;
  let firstChunk = true;
  const hold = new ReplyHold<Reply>((reply) => {
    if (!stopped) process.stdout.write(frame(reply, ctx.fault));
  });

  const onLine = (line: Buffer): void => {
    if (stopped) return;
    // A blank line (or a lone CR) carries no message.
    if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) return;
    onExchange?.();
    const reply = respond(line, ctx);
    if (reply === null) return;
    if (isHeld(reply, ctx)) return hold.add(reply, (firstChunk ? PROCESS_START : Date.now()) + holdMs);
    process.stdout.write(frame(reply, ctx.fault));
    if (ctx.fault.is('exit-after-first')) {
      stopped = true;
      process.stdin.pause();
      flushThenExit(0);
    }
  };

  process.stdin.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let nl: number;
    while ((nl = pending.indexOf(LF)) >= 0) {
      const line = pending.subarray(0, nl);
      pending = pending.subarray(nl + 1);
      if (discarding) discarding = false;
      else onLine(line);
    }
    if (!discarding && pending.length > MAX_LINE_BYTES) {
      // Answer the oversized line once (it cannot be parsed within our limit) and drop it.
      onLine(Buffer.from('\u0000'));
      discarding = true;
    }
    if (discarding) pending = Buffer.alloc(0);
    firstChunk = false;
  });
  process.stdin.on('end', () => {
    // A last line without its LF is still a message.
    if (!discarding && pending.length > 0) onLine(pending);
    // Nothing stays unanswered: what is held goes out now, newest first.
    hold.flush();
    if (!stopped) flushThenExit(0);
  });
  process.stdin.resume();
}
