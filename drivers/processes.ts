// Registry of the processes this runner launched, and their cleanup.
//
// An implementation under test is launched contained (drivers/containment.ts: a sandbox
// torn down whole with one SIGKILL) when the caller passes a confinement
// and the kernel allows it. Otherwise (runner-side helpers, or the process-group
// fallback) every child is spawned without a shell and in its own process group
// (detached), so that a whole tree (child plus grandchildren that did not create their
// own group) can be signalled at once with kill(-pgid). Because the children are in their own groups, a
// terminal Ctrl-C no longer reaches them: the signal and exit handlers installed here
// forward the shutdown to every group we created. We only ever signal pids / process
// groups that we created ourselves.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { Writable } from 'node:stream';
import { accessSync, constants as fsConstants, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve as resolvePath } from 'node:path';
import treeKill from 'tree-kill';
import { containment, sandboxLaunch, type Confinement } from './containment.js';

/** A launch failure the user must fix (command not found, not executable, server never ready). One line, no stack. */
export class LaunchError extends Error {
  override readonly name = 'LaunchError';
  /** errno code when known (ENOENT, EACCES, ...). */
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    const oneLine = message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
    super(oneLine);
    this.code = code;
    // The reason is for the person configuring the run, not a runner bug: keep the stack out of reports.
    Object.defineProperty(this, 'stack', {
      value: `LaunchError: ${oneLine}`,
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
}

export interface SpawnTrackedOptions {
  cwd: string;
  env: Record<string, string>;
  stdio: StdioOptions;
  /** An implementation under test: contain it (when containment is available). */
  confine?: Confinement;
}

interface Tracked {
  child: ChildProcess;
  pid: number;
  exited: boolean;
  /** Launched in the sandbox: `pid` is the launcher (bwrap), SIGKILL tears the sandbox down. */
  contained: boolean;
}

const POSIX = process.platform !== 'win32';
// Keyed by pid; on POSIX the pid is also the id of the process group we created.
const tracked = new Map<number, Tracked>();

/**
 * Is any process still running in the group we created for `pid`? (EPERM means someone is
 * there.) kill(-pgid, 0) also succeeds for zombies: killed orphans wait for init to reap
 * them, which some container inits do late. On Linux, consult /proc to ignore zombies.
 */
function groupAlive(pid: number): boolean {
  if (!POSIX) return false;
  try {
    process.kill(-pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? (linuxGroupRunning(pid) ?? true) : true;
}

/** Does /proc list a non-zombie process in group `pgid`? undefined if /proc is unreadable. */
function linuxGroupRunning(pgid: number): boolean | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (!POSIX) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone; anything else: nothing more we can do.
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

// tree-kill shells out to `ps` (Linux) / `pgrep` (macOS) and does not listen for that
// spawn's 'error' event, so a missing tool would crash us: only use it when the tool exists.
let treeKillUsable: boolean | undefined;
function canTreeKill(): boolean {
  if (treeKillUsable === undefined) {
    if (process.platform === 'win32') treeKillUsable = true;
    else
      treeKillUsable = findOnPath(process.platform === 'darwin' ? 'pgrep' : 'ps', process.env.PATH ?? '') !== undefined;
  }
  return treeKillUsable;
}

function treeKillQuiet(pid: number, signal: NodeJS.Signals): Promise<void> {
  if (!canTreeKill()) return Promise.resolve();
  return new Promise((resolve) => {
    try {
      treeKill(pid, signal, () => resolve());
    } catch {
      resolve();
    }
  });
}

/** Forget exited children whose group has emptied (keeps the registry from growing). */
function prune(): void {
  for (const [pid, t] of tracked) {
    if (t.exited && !groupAlive(pid)) tracked.delete(pid);
  }
}

/**
 * `child_process.spawn` without a shell, in a new process group, registered for cleanup;
 * with `confine`, inside a container (drivers/containment.ts) when one is available.
 * A failed spawn (ENOENT, EACCES) yields a child with `pid === undefined` and an async
 * 'error' event; such a child is never registered. Callers must listen for 'error'.
 * A contained command that cannot be started throws LaunchError instead.
 */
export function spawnTracked(command: string, args: string[], opts: SpawnTrackedOptions): ChildProcess {
  installExitHandlers();
  prune();
  const contained = opts.confine !== undefined && containment().kind === 'sandbox';
  let child: ChildProcess;
  if (contained) {
    // The launcher starts even when the command cannot: say why now, as a failed spawn would.
    const why = explainSpawnFailure(command, opts.cwd, opts.env);
    if (why.code !== 'UNKNOWN') throw new LaunchError(why.message, why.code);
    const stdio = typeof opts.stdio === 'string' ? [opts.stdio, opts.stdio, opts.stdio] : [...opts.stdio];
    let launch;
    try {
      launch = sandboxLaunch(command, args, opts.confine!, opts.cwd, opts.env, stdio.length);
    } catch (e) {
      throw new LaunchError(`cannot start "${command}" in the sandbox: ${(e as Error).message}`);
    }
    child = spawn(launch.command, launch.args, {
      cwd: opts.cwd,
      // The launcher's own environment: the claim's applies inside the sandbox only.
      env: launch.env,
      stdio: [...stdio, 'pipe'],
      shell: false,
      detached: true,
      windowsHide: true,
    });
    const options = child.stdio[launch.optionsFd] as Writable | null;
    options?.on('error', () => {}); // a launcher that died early: its exit says why
    options?.end(launch.options);
  } else {
    child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: opts.stdio,
      shell: false,
      detached: true,
      windowsHide: true,
    });
  }
  const pid = child.pid;
  if (pid !== undefined) {
    const entry: Tracked = { child, pid, exited: false, contained };
    tracked.set(pid, entry);
    child.once('exit', () => {
      entry.exited = true;
      // Keep the entry while grandchildren still live in its group, so a later
      // killAllTracked / process exit still reaches them.
      if (!groupAlive(pid) && tracked.get(pid) === entry) tracked.delete(pid);
    });
  }
  return child;
}

/** Number of registered children / groups (for tests and diagnostics). */
export function trackedCount(): number {
  prune();
  return tracked.size;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<void>((r) => (timer = setTimeout(r, ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/**
 * Terminate a child and its descendants: SIGTERM to its process group and (via tree-kill)
 * to its descendants that left the group; after `graceMs`, SIGKILL likewise. Resolves once
 * the child has exited and its group is empty, or at the latest after a hard cap of 5 s.
 * Never throws.
 */
export async function killTree(child: ChildProcess, graceMs = 1000): Promise<void> {
  try {
    const pid = child.pid;
    if (pid === undefined) return;
    const entry = tracked.get(pid);
    if (entry?.contained && entry.child === child) return await killContainer(entry);
    const start = Date.now();
    const hardCap = start + 5000;
    const done = () => hasExited(child) && !groupAlive(pid);
    if (done()) return finish(pid);

    // Walk the tree while the child is still alive (descendants that left our group are
    // only reachable through it: once it dies they are orphaned), then signal the group.
    if (!hasExited(child)) await withTimeout(treeKillQuiet(pid, 'SIGTERM'), Math.min(1000, Math.max(100, graceMs)));
    signalGroup(pid, 'SIGTERM');
    if (!hasExited(child)) signalPid(pid, 'SIGTERM'); // Windows, or a child that changed its group
    const graceEnd = Math.min(start + Math.max(0, graceMs), hardCap);
    while (!done() && Date.now() < graceEnd) await sleep(20);

    if (!done()) {
      if (!hasExited(child)) await withTimeout(treeKillQuiet(pid, 'SIGKILL'), 1000);
      signalGroup(pid, 'SIGKILL');
      if (!hasExited(child)) signalPid(pid, 'SIGKILL');
      const killedAt = Date.now();
      // Wait for the child itself up to the hard cap; for the rest of the group (which
      // the kernel has already killed) only briefly, in case nobody reaps orphans.
      while (Date.now() < hardCap) {
        if (hasExited(child) && (!groupAlive(pid) || Date.now() - killedAt > 1000)) break;
        await sleep(20);
      }
    }
    finish(pid);
  } catch {
    // never throws
  }

  function finish(pid: number): void {
    const t = tracked.get(pid);
    if (t && t.child === child && hasExited(child) && !groupAlive(pid)) tracked.delete(pid);
  }
}

/**
 * Tear a sandbox down: SIGKILL to its launcher (bwrap, our child); --die-with-parent takes
 * the sandbox's init with it, and the kernel every process in its PID namespace. Resolves
 * once the launcher has exited and the init is gone (bounded).
 */
async function killContainer(t: Tracked): Promise<void> {
  const init = hasExited(t.child) ? undefined : firstChild(t.pid);
  if (!hasExited(t.child)) signalPid(t.pid, 'SIGKILL');
  const hardCap = Date.now() + 5000;
  while (Date.now() < hardCap && (!hasExited(t.child) || (init !== undefined && running(init)))) await sleep(10);
  if (hasExited(t.child) && tracked.get(t.pid) === t) tracked.delete(t.pid);
}

/** The first child of `pid` (Linux), read before it is killed: the container's init. */
function firstChild(pid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(' ')[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/** Is `pid` a live (not zombie) process? Only looked at, never signalled: the id may be reused. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** killTree every registered child (in parallel). Never throws. */
export async function killAllTracked(graceMs = 1000): Promise<void> {
  prune();
  const all = [...tracked.values()];
  await Promise.all(
    all.map(async (t) => {
      if (t.contained) {
        await killContainer(t);
      } else if (t.exited) {
        // The leader is gone but its group is not: just signal the group.
        signalGroup(t.pid, 'SIGTERM');
        await sleep(Math.min(graceMs, 200));
        signalGroup(t.pid, 'SIGKILL');
        if (!groupAlive(t.pid)) tracked.delete(t.pid);
      } else {
        await killTree(t.child, graceMs);
      }
    }),
  );
}

/** Synchronous last resort: SIGKILL every group / child we created. */
function killAllSync(): void {
  for (const t of tracked.values()) {
    signalGroup(t.pid, 'SIGKILL');
    if (!t.exited) signalPid(t.pid, 'SIGKILL');
  }
  tracked.clear();
}

let handlersInstalled = false;

/**
 * Install (once) process handlers so that no child or grandchild outlives us: on 'exit'
 * SIGKILL all groups synchronously; on SIGINT / SIGTERM kill everything and then, if
 * nobody else handles that signal, re-raise it (falling back to exit 130 / 143).
 * If the host installed its own handler (e.g. a test runner worker that ignores the
 * signal), we still clean up our children but leave the decision to exit to the host.
 */
export function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllSync);
  const onSignal = (signal: 'SIGINT' | 'SIGTERM', code: number) => {
    const handler = () => {
      const othersListen = process.listenerCount(signal) > 1;
      void killAllTracked(300).then(() => {
        if (othersListen) return;
        process.removeListener(signal, handler);
        try {
          process.kill(process.pid, signal);
        } catch {
          // fall through to exit
        }
        setTimeout(() => process.exit(code), 100).unref();
      });
    };
    process.on(signal, handler);
  };
  onSignal('SIGINT', 130);
  onSignal('SIGTERM', 143);
}

/** Find an executable on a PATH string (claims resolve commands with it; launches explain failures). */
export function findOnPath(command: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, fsConstants.X_OK);
        return candidate;
      }
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/**
 * Node reports ENOENT / EACCES from spawn only through an async 'error' event; this gives
 * a one-line reason synchronously by checking the things spawn needs.
 */
export function explainSpawnFailure(
  command: string,
  cwd: string,
  env: Record<string, string>,
): { message: string; code: string } {
  try {
    if (!statSync(cwd).isDirectory())
      return { message: `working directory is not a directory: ${cwd}`, code: 'ENOTDIR' };
  } catch {
    return { message: `working directory does not exist: ${cwd}`, code: 'ENOENT' };
  }
  const hasSep = command.includes('/') || (process.platform === 'win32' && command.includes('\\'));
  if (hasSep) {
    const full = isAbsolute(command) ? command : resolvePath(cwd, command);
    try {
      const st = statSync(full);
      if (st.isDirectory()) return { message: `cannot start "${command}": is a directory (EACCES)`, code: 'EACCES' };
      accessSync(full, fsConstants.X_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'ENOENT';
      return code === 'ENOENT'
        ? { message: `cannot start "${command}": file not found (ENOENT)`, code }
        : { message: `cannot start "${command}": not executable (${code})`, code };
    }
    return { message: `cannot start "${command}"`, code: 'UNKNOWN' };
  }
  const pathVar = env.PATH ?? env.Path ?? process.env.PATH ?? '';
  if (findOnPath(command, pathVar) === undefined) {
    return { message: `cannot start "${command}": command not found on PATH (ENOENT)`, code: 'ENOENT' };
  }
  return { message: `cannot start "${command}"`, code: 'UNKNOWN' };
}

/** One-line message for a spawn 'error' event. */
export function describeSpawnError(command: string, err: unknown): { message: string; code: string } {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? 'UNKNOWN';
  const what =
    code === 'ENOENT'
      ? 'command or working directory not found'
      : code === 'EACCES'
        ? 'permission denied'
        : (e?.message ?? String(err));
  return { message: `cannot start "${command}": ${what} (${code})`, code };
}
