// stdio, persistent lifecycle: one long-lived process per hook, started on first use and
// again after it exits. At most one intercept is outstanding per backend: every message
// goes through a FIFO queue, and an intercept holds the queue until its reply or its
// deadline (observations only hold it for the write). Replies are correlated by id; a
// reply whose id is no longer awaited (late, or repeated) is dropped, any other id or a
// line that is not one JSON object fails the request that is waiting.
import type { ChildProcess } from 'node:child_process';
import { describeSpawnError } from '../../../drivers/processes.js';
import type { JsonValue } from '../../../src/protocol/json.js';
import type { HarnessFault } from '../faults.js';
import { stdioFrame, type Message } from '../messages.js';
import type { StdioTransportConfig } from '../registration.js';
import type { Deadline } from './deadline.js';
import { launch, stopGracefully } from './launch.js';
import { LenientReassembler, LineSplitter, parseReplyLine } from './lines.js';
import { fail, type Exchange, type Transport } from './types.js';

interface Proc {
  readonly child: ChildProcess;
  gone: boolean;
  readonly lenient: LenientReassembler;
  /** no-recovery-after-malformed fault: a malformed line was seen; every later reply counts as malformed. */
  poisoned?: boolean;
  /** framing-timeout fault: a malformed line was seen; the rest is ignored until the next message. */
  muted?: boolean;
}

interface Waiter {
  readonly proc: Proc;
  settle(exchange: Exchange): void;
}

export class PersistentStdio implements Transport {
  private current: Proc | undefined;
  private readonly procs = new Set<Proc>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly waiting = new Map<string, Waiter>();
  /** Ids sent and settled (answered or abandoned at the deadline): their replies are dropped. */
  private readonly settled = new Set<string>();
  /** retire-after-timeout fault: the process was retired; the next intercept fails locally. */
  private retired = false;

  constructor(
    private readonly cfg: StdioTransportConfig,
    private readonly fault: HarnessFault,
  ) {}

  intercept(message: Message, rpcId: string, deadline: Deadline): Promise<Exchange> {
    return this.serial(() => this.exchange(message, rpcId, deadline));
  }

  observe(message: Message, limitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), limitMs);
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        resolve(ok);
      };
      void this.serial(async () => {
        const proc = this.ensure();
        if (typeof proc === 'string' || proc.gone) return done(false);
        this.write(proc, message, (err) => done(!err && !proc.gone));
      });
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.procs].map((p) => stopGracefully(p.child, 1000)));
  }

  // ------------------------------------------------------------------ internals

  /** The one-outstanding queue (pipelined-intercepts fault: none). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    if (this.fault.is('pipelined-intercepts')) return task();
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private exchange(message: Message, rpcId: string, deadline: Deadline): Promise<Exchange> {
    deadline.start();
    if (this.retired) {
      // retire-after-timeout fault: the next intercept fails here, never sent.
      this.retired = false;
      return Promise.resolve(fail('backend retired after a timeout'));
    }
    const proc = this.ensure();
    if (typeof proc === 'string') return Promise.resolve(fail(proc));
    return new Promise<Exchange>((resolve) => {
      const waiter: Waiter = {
        proc,
        settle: (exchange) => {
          clearTimeout(timer);
          if (this.waiting.get(rpcId) === waiter) this.waiting.delete(rpcId);
          this.settled.add(rpcId);
          resolve(exchange);
        },
      };
      const timer = setTimeout(() => {
        waiter.settle(fail(`no reply within ${deadline.ms} ms`));
        if (this.fault.is('retire-after-timeout')) this.retire(proc);
      }, deadline.remaining());
      this.settled.delete(rpcId);
      this.waiting.set(rpcId, waiter);
      proc.muted = false;
      this.write(proc, message);
    });
  }

  private write(proc: Proc, message: Message, cb?: (err: Error | null | undefined) => void): void {
    const stdin = proc.child.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) {
      cb?.(new Error('stdin closed'));
      return;
    }
    stdin.write(stdioFrame(message, this.fault), cb);
    if (this.fault.is('respawn-per-event')) {
      // One message per process: EOF now, and the next message gets a new process.
      stdin.end();
      if (this.current === proc) this.current = undefined;
    }
  }

  /** The live process, a new one, or why none could be spawned. */
  private ensure(): Proc | string {
    if (this.current && !this.current.gone) return this.current;
    const launched = launch(this.cfg, this.fault);
    if (!launched.ok) return launched.failure;
    const { child } = launched;
    const proc: Proc = { child, gone: false, lenient: new LenientReassembler() };
    this.procs.add(proc);
    this.current = proc;
    const splitter = new LineSplitter(
      (line) => this.onLine(proc, line),
      () => this.failWaitersOf(proc, 'reply line exceeds the size limit'),
    );
    child.stdout?.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.once('error', (err) => this.onGone(proc, describeSpawnError(this.cfg.command, err).message, false));
    // No new message may go to a process that is exiting; waiters settle on 'close', once stdout is drained.
    child.once('exit', () => {
      if (this.current === proc) this.current = undefined;
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      const tail = splitter.tail();
      if (tail) this.onLine(proc, tail);
      this.onGone(
        proc,
        `backend exited before replying (${code !== null ? `status ${code}` : (signal ?? 'closed')})`,
        true,
      );
    });
    return proc;
  }

  /** retire-after-timeout fault: stop the process; the next intercept is failed without sending. */
  private retire(proc: Proc): void {
    this.retired = true;
    if (this.current === proc) this.current = undefined;
    void stopGracefully(proc.child, 0);
  }

  private onLine(proc: Proc, line: Buffer): void {
    let value: JsonValue;
    if (proc.poisoned) return this.failWaitersOf(proc, 'reply line is not one JSON object');
    if (proc.muted) return;
    if (this.fault.is('lenient-framing')) {
      const v = proc.lenient.push(line);
      if (v === undefined) return;
      value = v;
    } else {
      const parsed = parseReplyLine(line);
      if (!parsed.ok) {
        if (this.fault.is('no-recovery-after-malformed')) proc.poisoned = true;
        if (this.fault.is('framing-timeout')) {
          proc.muted = true;
          return;
        }
        return this.failWaitersOf(proc, parsed.failure);
      }
      value = parsed.value;
    }
    const id = (value as { id?: unknown }).id;
    const waiter = typeof id === 'string' ? this.waiting.get(id) : undefined;
    if (waiter) return waiter.settle({ ok: true, reply: value });
    if (typeof id === 'string' && this.settled.has(id)) return; // late or repeated: ignored
    this.failWaitersOf(proc, 'reply id does not match the request id');
  }

  private failWaitersOf(proc: Proc, failure: string, retryable = false): void {
    for (const w of [...this.waiting.values()]) if (w.proc === proc) w.settle(fail(failure, retryable));
  }

  private onGone(proc: Proc, failure: string, retryable: boolean): void {
    if (proc.gone) return;
    proc.gone = true;
    if (this.current === proc) this.current = undefined;
    this.failWaitersOf(proc, failure, retryable);
  }
}
