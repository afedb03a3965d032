// Launching a harness adapter (docs/harness-adapter.md) for one scenario run: contained and
// supervised where containment is available (its container outlives it until its stdio
// backends have reported), bounded by the run's deadline, torn down afterwards. What the
// run means is the caller's business: this module takes the command, environment,
// confinement and time bounds it is given (drivers import nothing of src/ or suites/).
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';
import { containment, type Confinement } from './containment.js';
import { describeSpawnError, explainSpawnFailure, killTree, LaunchError, spawnTracked } from './processes.js';
import { ByteTail } from './tail.js';

export interface AdapterCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Where the adapter may write; `supervise` is set here (its status comes on fd 3). */
  confine: Confinement;
}

export interface AdapterLaunchOptions {
  /** Kill the adapter (and its container) this long after its start. */
  deadlineMs: number;
  /** After a timely exit: resolves once its backends have reported (the caller bounds it). */
  settle?: () => Promise<unknown>;
  /** Bytes kept of each of stdout and stderr (the tail). */
  outputCap: number;
  /** Aborted: kill the adapter now (the check is being torn down). */
  signal?: AbortSignal;
}

export interface AdapterExit {
  exit: { code: number | null; signal: string | null };
  /** Killed at the deadline (or on abort). */
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

type Status = { code: number | null; signal: string | null };

/**
 * Start the adapter, wait for it to exit or for the deadline, let its backends settle,
 * then tear everything down. Throws LaunchError when it cannot be started at all.
 */
export async function launchAdapter(cmd: AdapterCommand, opts: AdapterLaunchOptions): Promise<AdapterExit> {
  const pre = explainSpawnFailure(cmd.command, cmd.cwd, cmd.env);
  if (pre.code === 'ENOENT' || pre.code === 'EACCES' || pre.code === 'ENOTDIR') throw new LaunchError(pre.message);
  const supervised = containment().kind === 'sandbox';
  const child = spawnTracked(cmd.command, cmd.args, {
    cwd: cmd.cwd,
    env: cmd.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(supervised ? ['pipe' as const] : [])],
    confine: { ...cmd.confine, supervise: true },
  });
  const out = new ByteTail(opts.outputCap);
  const err = new ByteTail(opts.outputCap);
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => err.push(c));
  let timedOut = false;
  const exit = await new Promise<Status | Error>((resolveExit) => {
    const stop = (): void => {
      timedOut = true;
      done({ code: null, signal: 'SIGKILL' });
    };
    const timer = setTimeout(stop, opts.deadlineMs);
    opts.signal?.addEventListener('abort', stop, { once: true });
    let settled = false;
    function done(e: Status | Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', stop);
      resolveExit(e);
    }
    if (opts.signal?.aborted) stop();
    child.once('error', done);
    child.once('close', (code, signal) => done({ code, signal }));
    // Contained: the container's init reports the adapter's status on fd 3 and stays.
    if (supervised) statusLine(child.stdio[3] as Readable | null, done);
  });
  if (exit instanceof Error) {
    await killTree(child, 0);
    throw new LaunchError(describeSpawnError(cmd.command, exit).message);
  }
  // The adapter is gone (or out of time); its stdio backends may still be reading their
  // last line or exiting: let them report (the caller's bound), then tear the container
  // down. Contained, that is one SIGKILL; otherwise the process group gets a short grace.
  if (!timedOut && opts.settle) await opts.settle();
  await killTree(child, 200);
  return { exit, timedOut, stdout: out.text(), stderr: err.text() };
}

/**
 * The container init's one status line: the adapter's exit status as the shell gives it
 * (128 + n: killed by signal n). Calls `done` once the line is complete.
 */
export function statusLine(stream: Readable | null, done: (status: Status) => void): void {
  if (!stream) return;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (c: string) => {
    text += c;
    if (text.length > 64) stream.destroy();
    const nl = text.indexOf('\n');
    if (nl < 0) return;
    const n = Number(text.slice(0, nl));
    if (!Number.isInteger(n)) return;
    const signal = n > 128 ? Object.entries(osConstants.signals).find(([, v]) => v === n - 128)?.[0] : undefined;
    done(signal ? { code: null, signal } : { code: n, signal: null });
  });
  stream.on('error', () => undefined);
}

/** At most `limit` tasks at once (adapter runs of one worker); the rest wait their turn, in order. */
export class Limiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.queue.push(r));
    else this.active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (the count stays), or free it.
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }
}
