// Shared bits for the driver tests: throwaway `node -e` programs and process probes.
import { readFileSync } from 'node:fs';

export const NODE = process.execPath;

/** A minimal environment for children: enough to find executables, nothing else leaks in. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra };
}

/**
 * Is `pid` gone? ESRCH from kill(pid, 0) means gone; a zombie (state Z, killed but not yet
 * reaped by whoever inherited it) also counts as gone since it no longer runs.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (isGone(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return isGone(pid);
}

/** Last-resort cleanup for a pid a test learned about (only pids our own test programs printed). */
export function killQuietly(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A child that spawns a grandchild (optionally in its own session) and reports its pid on stderr. */
export function grandparentProgram(opts: { detachedGrandchild?: boolean; ignoreTerm?: boolean } = {}): string {
  return `
    const { spawn } = require('node:child_process');
    ${opts.ignoreTerm ? "process.on('SIGTERM', () => {});" : ''}
    const g = spawn(process.execPath, ['-e', ${JSON.stringify(
      opts.ignoreTerm ? "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)" : 'setInterval(() => {}, 1000)',
    )}], { stdio: 'ignore', detached: ${opts.detachedGrandchild ? 'true' : 'false'} });
    process.stderr.write('GRANDCHILD ' + g.pid + '\\n');
    setInterval(() => {}, 1000);
  `;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
