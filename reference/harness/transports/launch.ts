// Starting and stopping stdio backends. Always without a shell, with `command` and `args`
// exactly as registered (AHP-STDIO-001); the shell-launch fault is the one exception.
// stderr is inherited: it is the backend's diagnostics channel and the runner keeps ours.
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { killTree, spawnTracked } from '../../../drivers/processes.js';
import type { HarnessFault } from '../faults.js';
import type { StdioTransportConfig } from '../registration.js';

function environment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** The backend process, or why it could not even be spawned (bad arguments throw synchronously). */
export type Launched = { ok: true; child: ChildProcess } | { ok: false; failure: string };

export function launch(cfg: StdioTransportConfig, fault: HarnessFault): Launched {
  const cwd = resolve(cfg.cwd ?? process.cwd());
  const [command, args] = fault.is('shell-launch')
    ? (['/bin/sh', ['-c', [cfg.command, ...cfg.args].join(' ')]] as const)
    : ([cfg.command, [...cfg.args]] as const);
  let child: ChildProcess;
  try {
    child = spawnTracked(command, [...args], { cwd, env: environment(), stdio: ['pipe', 'pipe', 'inherit'] });
  } catch (e) {
    // e.g. a NUL byte in an argument; ENOENT and EACCES come later, as an 'error' event.
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return { ok: false, failure: `cannot start ${JSON.stringify(cfg.command.slice(0, 80))} (${code})` };
  }
  // EPIPE when the backend has gone: its exit, not the write, tells the story.
  child.stdin?.on('error', () => {});
  child.stdout?.on('error', () => {});
  return { ok: true, child };
}

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** End stdin, give the backend `graceMs` to leave on its own, then kill its tree. */
export async function stopGracefully(child: ChildProcess, graceMs = 1000): Promise<void> {
  if (child.pid === undefined) return;
  if (!exited(child)) {
    child.stdin?.end();
    await new Promise<void>((done) => {
      const timer = setTimeout(done, graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        done();
      });
      if (exited(child)) {
        clearTimeout(timer);
        done();
      }
    });
  }
  await killTree(child, 200);
}

/** Kill a backend's tree now (it has answered, timed out or is being reaped). */
export async function reap(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  await killTree(child, 200);
}
