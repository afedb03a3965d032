// Stdio transport driver: a child process speaking newline-delimited messages.
//
// Framing is on '\n' only (a '\r' before it stays part of the line, so a checker can see
// it); stdout and stderr are drained continuously so the child never blocks on a full
// pipe; every buffer is bounded so a misbehaving implementation cannot exhaust memory.
import type { ChildProcess } from 'node:child_process';
import { Buffer, isUtf8 } from 'node:buffer';
import { explainSpawnFailure, describeSpawnError, killTree, LaunchError, spawnTracked } from './processes.js';
import { ByteTail } from './tail.js';
import type { Transcript } from './transcript.js';
import type { Confinement } from './containment.js';

export { LaunchError } from './processes.js';

export interface StdioLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Contain the process (drivers/containment.ts); absent: a plain process group. */
  confine?: Confinement;
  /** default 1 MiB */
  maxLineBytes?: number;
  /** default 64 KiB */
  stderrTailBytes?: number;
  transcript: Transcript;
}

export type LineResult =
  | { kind: 'line'; bytes: Uint8Array; text: string; utf8: boolean }
  | { kind: 'timeout' }
  | { kind: 'eof' }
  | { kind: 'oversize'; bytes: number };

export type ExitInfo = { code: number | null; signal: string | null };

type Queued = Extract<LineResult, { kind: 'line' } | { kind: 'oversize' }>;

const MAX_QUEUED_LINES = 10_000;
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** After this many queued lines handed out in a row, nextLine yields to the event loop once. */
const YIELD_EVERY = 64;
/** How much of an oversize line is kept in the transcript, for diagnosis. */
const OVERSIZE_PREVIEW_BYTES = 1024;

interface Waiter {
  resolve: (r: LineResult) => void;
  timer: NodeJS.Timeout;
}

export class StdioProcess {
  readonly pid: number | undefined;
  private readonly child: ChildProcess;
  private readonly transcript: Transcript;
  private readonly command: string;
  private readonly maxLineBytes: number;
  private readonly stderrBuf: ByteTail;

  private readonly queue: Queued[] = [];
  private queueHead = 0;
  private queuedBytes = 0;
  private dropping = false;
  private droppedCount = 0;
  private readonly waiters: Waiter[] = [];
  private handedOut = 0;

  private partial: Buffer[] = [];
  private partialBytes = 0;
  private oversizeBytes = -1; // >= 0 while discarding an oversize line
  private oversizePreview: Buffer | undefined;
  private stdoutEnded = false;

  private exitInfo: ExitInfo | undefined;
  private readonly exitWaiters: Array<(e: ExitInfo) => void> = [];
  private launchError: LaunchError | undefined;
  private stopping: Promise<void> | undefined;
  private stdinClosed = false;

  private constructor(l: StdioLaunch, child: ChildProcess) {
    this.child = child;
    this.pid = child.pid;
    this.transcript = l.transcript;
    this.command = l.command;
    this.maxLineBytes = Math.max(1, l.maxLineBytes ?? 1024 * 1024);
    this.stderrBuf = new ByteTail(l.stderrTailBytes ?? 64 * 1024);
  }

  /** Spawn (no shell, own process group). Throws LaunchError if the command cannot be started. */
  static start(l: StdioLaunch): StdioProcess {
    const child = spawnTracked(l.command, l.args, {
      cwd: l.cwd,
      env: l.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(l.confine ? { confine: l.confine } : {}),
    });
    const p = new StdioProcess(l, child);
    // Always listen for 'error': without a listener a failed spawn would crash the runner.
    child.on('error', (err) => {
      const { message, code } = describeSpawnError(l.command, err);
      if (!p.launchError) p.launchError = new LaunchError(message, code);
      p.transcript.record({ dir: 'note', channel: 'stdio', note: message });
    });
    if (child.pid === undefined) {
      const { message, code } = explainSpawnFailure(l.command, l.cwd, l.env);
      p.launchError = new LaunchError(message, code);
      p.transcript.record({ dir: 'note', channel: 'stdio', note: message });
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      throw p.launchError;
    }
    p.wire();
    return p;
  }

  private wire(): void {
    const { child } = this;
    child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stdout!.on('end', () => this.onStdoutEnd());
    child.stdout!.on('close', () => this.onStdoutEnd());
    child.stdout!.on('error', () => this.onStdoutEnd());
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrBuf.push(chunk);
      this.transcript.record({ dir: 'stderr', channel: 'stdio', bytes: chunk });
    });
    child.stderr!.on('error', () => {});
    child.stdin!.on('error', (err: NodeJS.ErrnoException) => {
      this.transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: `stdin write failed: ${err.code ?? err.message} (child no longer reads stdin)`,
      });
    });
    child.once('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      this.transcript.record({
        dir: 'exit',
        channel: 'stdio',
        note: signal ? `killed by signal ${signal}` : `exit code ${code}`,
      });
      for (const w of this.exitWaiters.splice(0)) w(this.exitInfo);
    });
  }

  private onStdout(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl < 0 ? chunk.length : nl;
      this.appendPartial(chunk.subarray(from, end));
      if (nl < 0) break;
      this.completeLine();
      from = nl + 1;
    }
  }

  private appendPartial(seg: Buffer): void {
    if (seg.length === 0) return;
    if (this.oversizeBytes >= 0) {
      this.oversizeBytes += seg.length;
      return;
    }
    if (this.partialBytes + seg.length > this.maxLineBytes) {
      // Switch to discarding: keep only a short preview and the count.
      const all = Buffer.concat([...this.partial, seg]);
      this.oversizePreview = Buffer.from(all.subarray(0, OVERSIZE_PREVIEW_BYTES));
      this.oversizeBytes = all.length;
      this.partial = [];
      this.partialBytes = 0;
      return;
    }
    // copy: the chunk may be a view into a pooled buffer
    this.partial.push(Buffer.from(seg));
    this.partialBytes += seg.length;
  }

  private completeLine(): void {
    if (this.oversizeBytes >= 0) {
      const bytes = this.oversizeBytes;
      this.transcript.record({
        dir: 'recv',
        channel: 'stdio',
        bytes: this.oversizePreview ?? new Uint8Array(0),
        note: `oversize line: ${bytes} bytes exceeds the ${this.maxLineBytes}-byte limit; dropped (first ${Math.min(bytes, OVERSIZE_PREVIEW_BYTES)} bytes shown)`,
      });
      this.oversizeBytes = -1;
      this.oversizePreview = undefined;
      this.deliver({ kind: 'oversize', bytes });
      return;
    }
    const bytes = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial, this.partialBytes);
    this.partial = [];
    this.partialBytes = 0;
    // Nobody waits and the unread queue is full: the line is dropped (counted, noted once),
    // before any work on it, so a flood costs the runner little more than reading it.
    if (this.waiters.length === 0 && this.queueFull(bytes.byteLength)) return this.drop();
    const utf8 = isUtf8(bytes);
    this.transcript.record({ dir: 'recv', channel: 'stdio', bytes });
    this.deliver({
      kind: 'line',
      bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      text: bytes.toString('utf8'),
      utf8,
    });
  }

  private deliver(item: Queued): void {
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(item);
      return;
    }
    const size = item.kind === 'line' ? item.bytes.byteLength : 0;
    if (this.queueFull(size)) return this.drop();
    this.dropping = false;
    this.queue.push(item);
    this.queuedBytes += size;
  }

  private queueFull(size: number): boolean {
    return this.queue.length - this.queueHead >= MAX_QUEUED_LINES || this.queuedBytes + size > MAX_QUEUED_BYTES;
  }

  private drop(): void {
    this.droppedCount++;
    if (!this.dropping) {
      this.dropping = true;
      this.transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: `unread stdout queue full (${this.queue.length - this.queueHead} lines, ${this.queuedBytes} bytes): dropping further lines until it drains`,
      });
    }
  }

  private onStdoutEnd(): void {
    if (this.stdoutEnded) return;
    this.stdoutEnded = true;
    if (this.partialBytes > 0 || this.oversizeBytes >= 0) {
      const pending =
        this.partialBytes > 0
          ? Buffer.concat(this.partial, this.partialBytes)
          : (this.oversizePreview ?? Buffer.alloc(0));
      const n = this.partialBytes > 0 ? this.partialBytes : this.oversizeBytes;
      this.transcript.record({
        dir: 'recv',
        channel: 'stdio',
        bytes: pending,
        note: `stdout closed with ${n} bytes after the last newline (unterminated line, not delivered)`,
      });
    }
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve({ kind: 'eof' });
    }
  }

  private throwIfFailed(): void {
    if (this.launchError) throw this.launchError;
  }

  /** Lines dropped because the unread queue was full. */
  get droppedLines(): number {
    return this.droppedCount;
  }

  /** Write exactly these bytes to stdin (the caller adds '\n'). */
  send(bytes: string | Uint8Array): void {
    this.throwIfFailed();
    const buf =
      typeof bytes === 'string'
        ? Buffer.from(bytes, 'utf8')
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const stdin = this.child.stdin;
    if (!stdin || this.stdinClosed || stdin.destroyed || stdin.writableEnded) {
      this.transcript.record({ dir: 'send', channel: 'stdio', bytes: buf, note: 'not sent: stdin is closed' });
      return;
    }
    this.transcript.record({ dir: 'send', channel: 'stdio', bytes: buf });
    try {
      stdin.write(Buffer.from(buf)); // copy: the caller may reuse its buffer
    } catch (err) {
      this.transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: `stdin write failed: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      });
    }
  }

  /**
   * Next complete stdout line (FIFO), or 'timeout' / 'eof' / 'oversize'. A line already
   * queued is returned whatever the timeout, so a caller reading to a deadline checks it on
   * every line; queued lines are handed out with a yield to the event loop every
   * YIELD_EVERY lines, so timers (deadlines, test timeouts) run however fast lines come.
   */
  nextLine(timeoutMs: number): Promise<LineResult> {
    try {
      this.throwIfFailed();
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.queueHead < this.queue.length) {
      const item = this.queue[this.queueHead++]!;
      if (item.kind === 'line') this.queuedBytes -= item.bytes.byteLength;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      if (++this.handedOut % YIELD_EVERY === 0) return new Promise((resolve) => setImmediate(resolve, item));
      return Promise.resolve(item);
    }
    this.handedOut = 0;
    if (this.stdoutEnded) return Promise.resolve({ kind: 'eof' });
    return new Promise<LineResult>((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(
          () => {
            const i = this.waiters.indexOf(waiter);
            if (i >= 0) this.waiters.splice(i, 1);
            this.transcript.record({
              dir: 'note',
              channel: 'stdio',
              note: `timeout after ${timeoutMs} ms waiting for a stdout line`,
            });
            resolve({ kind: 'timeout' });
          },
          Math.max(0, timeoutMs),
        ),
      };
      this.waiters.push(waiter);
    });
  }

  /** Bytes received after the last '\n' (an unterminated partial line). */
  pendingBytes(): number {
    return this.oversizeBytes >= 0 ? this.oversizeBytes : this.partialBytes;
  }

  closeStdin(): void {
    if (this.stdinClosed) return;
    this.stdinClosed = true;
    const stdin = this.child.stdin;
    if (stdin && !stdin.destroyed && !stdin.writableEnded) {
      this.transcript.record({ dir: 'note', channel: 'stdio', note: 'stdin closed' });
      stdin.end();
    }
  }

  waitExit(timeoutMs: number): Promise<ExitInfo | 'timeout'> {
    try {
      this.throwIfFailed();
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => {
      const onExit = (e: ExitInfo) => {
        clearTimeout(timer);
        resolve(e);
      };
      const timer = setTimeout(
        () => {
          const i = this.exitWaiters.indexOf(onExit);
          if (i >= 0) this.exitWaiters.splice(i, 1);
          this.transcript.record({
            dir: 'note',
            channel: 'stdio',
            note: `timeout after ${timeoutMs} ms waiting for the process to exit`,
          });
          resolve('timeout');
        },
        Math.max(0, timeoutMs),
      );
      this.exitWaiters.push(onExit);
    });
  }

  exited(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** The last stderrTailBytes of stderr, decoded as UTF-8 (lossy). */
  stderrTail(): string {
    return this.stderrBuf.text();
  }

  /** Kill the whole process tree; idempotent, never throws. */
  stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = (async () => {
        await killTree(this.child);
        // Let output already in the pipe arrive before letting go of stdout.
        await this.stdoutEndOrTimeout(250);
        for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) {
          try {
            s?.destroy();
          } catch {
            // ignore
          }
        }
        this.onStdoutEnd();
      })();
    }
    return this.stopping;
  }

  private stdoutEndOrTimeout(ms: number): Promise<void> {
    if (this.stdoutEnded) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const stdout = this.child.stdout;
      function done() {
        clearTimeout(timer);
        stdout?.off('end', done);
        stdout?.off('close', done);
        resolve();
      }
      stdout?.once('end', done);
      stdout?.once('close', done);
    });
  }

  /** For messages: the command as launched. */
  toString(): string {
    return `StdioProcess(${this.command}, pid ${this.pid ?? 'none'})`;
  }
}
