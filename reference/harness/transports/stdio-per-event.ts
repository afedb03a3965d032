// stdio, per_event lifecycle: one process per message. The harness writes the line and
// closes stdin (EOF); for an intercept it reads stdout until the process has exited, and
// accepts exactly one reply line with exit status 0. The exit status only says the
// exchange completed: the reply decides. Observations are not waited for; the process is
// reaped in the background.
import type { ChildProcess } from 'node:child_process';
import { describeSpawnError } from '../../../drivers/processes.js';
import type { HarnessFault } from '../faults.js';
import { stdioFrame, type Message } from '../messages.js';
import type { StdioTransportConfig } from '../registration.js';
import type { Deadline } from './deadline.js';
import { launch, reap } from './launch.js';
import { LenientReassembler, MAX_LINE_BYTES, parseReplyLine } from './lines.js';
import { fail, type Exchange, type Transport } from './types.js';

const LF = 0x0a;
/** per-event-no-eof fault: how long an observer process may live without EOF. */
const NO_EOF_OBSERVE_KILL_MS = 500;

/** Split collected stdout into lines; a final line without LF still counts (the stream ended). */
function linesOf(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(LF); nl >= 0; nl = bytes.indexOf(LF, start)) {
    lines.push(bytes.subarray(start, nl));
    start = nl + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

export class PerEventStdio implements Transport {
  private readonly reaping = new Set<Promise<void>>();
  private readonly live = new Set<ChildProcess>();

  constructor(
    private readonly cfg: StdioTransportConfig,
    private readonly fault: HarnessFault,
  ) {}

  intercept(message: Message, _rpcId: string, deadline: Deadline): Promise<Exchange> {
    deadline.start();
    return new Promise((resolve) => {
      const child = this.start();
      if (typeof child === 'string') return resolve(fail(child));
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (exchange: Exchange): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(exchange);
        this.reapLater(child);
      };
      const timer = setTimeout(() => finish(fail(`no reply within ${deadline.ms} ms`)), deadline.remaining());
      child.stdout?.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > MAX_LINE_BYTES) return finish(fail('reply exceeds the size limit'));
        chunks.push(chunk);
        // eof-after-reply fault: end of input only once the reply line is here.
        if (this.fault.is('eof-after-reply') && chunk.includes(LF)) child.stdin?.end();
        // Without EOF the backend may never exit: take its first complete line as the reply.
        if (this.fault.is('per-event-no-eof') && chunk.includes(LF)) {
          const first = linesOf(Buffer.concat(chunks))[0] ?? Buffer.alloc(0);
          finish(this.judgeOutput([first], 0, null));
        }
      });
      child.once('error', (err) => finish(fail(describeSpawnError(this.cfg.command, err).message)));
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        finish(this.judgeOutput(linesOf(Buffer.concat(chunks)), code, signal));
      });
      this.send(child, message, !this.fault.is('eof-after-reply'));
    });
  }

  observe(message: Message, limitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const child = this.start();
      if (typeof child === 'string') return resolve(false);
      let settled = false;
      const finish = (ok: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(ok);
        this.reapLater(child);
      };
      const limit = this.fault.is('per-event-no-eof') ? Math.min(limitMs, NO_EOF_OBSERVE_KILL_MS) : limitMs;
      const timer = setTimeout(() => finish(false), limit);
      child.stdout?.resume(); // a notification gets no reply; drain whatever comes so the backend never blocks
      child.once('error', () => finish(false));
      child.once('close', (code: number | null) => finish(code === 0));
      this.send(child, message);
    });
  }

  async close(): Promise<void> {
    for (const child of this.live) this.reapLater(child);
    await Promise.all([...this.reaping]);
  }

  // ------------------------------------------------------------------ internals

  /** A new backend process, or why none could be spawned. */
  private start(): ChildProcess | string {
    const launched = launch(this.cfg, this.fault);
    if (!launched.ok) return launched.failure;
    this.live.add(launched.child);
    return launched.child;
  }

  private send(child: ChildProcess, message: Message, end = true): void {
    child.stdin?.write(stdioFrame(message, this.fault));
    if (end && !this.fault.is('per-event-no-eof')) child.stdin?.end();
  }

  private reapLater(child: ChildProcess): void {
    if (!this.live.delete(child)) return;
    const p = reap(child).finally(() => this.reaping.delete(p));
    this.reaping.add(p);
  }

  private judgeOutput(lines: Buffer[], code: number | null, signal: NodeJS.Signals | null): Exchange {
    if (code !== 0) {
      // Exited without a word: the process may have crashed before reading; worth one retry.
      return fail(
        `backend exited with ${code !== null ? `status ${code}` : (signal ?? 'an unknown status')}`,
        lines.length === 0,
      );
    }
    if (lines.length === 0) return fail('backend exited without a reply');
    if (this.fault.is('lenient-framing')) {
      const r = new LenientReassembler();
      for (const line of lines) {
        const value = r.push(line);
        if (value !== undefined) return { ok: true, reply: value };
      }
      return fail('no JSON object in the backend output');
    }
    if (lines.length > 1) return fail(`backend wrote ${lines.length} lines; exactly one reply line is expected`);
    const parsed = parseReplyLine(lines[0]!);
    return parsed.ok ? { ok: true, reply: parsed.value } : fail(parsed.failure);
  }
}
