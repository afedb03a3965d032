// Starting Playwright Test (`test`, `merge-reports`) with this package's config as a child
// process: its output goes to ours, or is kept (bounded) for when it fails.
//
// Playwright's progress output quotes check messages and transcripts, which hold text from
// the implementation under test; Playwright passes escape sequences in them through raw when
// it prints in colour. So it never prints in colour here (FORCE_COLOR=0; it strips escape
// sequences from messages then), and what it prints reaches the terminal through
// terminalText: every control but line feed and tab, and every bidi control, shown escaped.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import { packageRoot } from '../package-root.js';
import { ByteTail } from '../../drivers/tail.js';
import { terminalText } from '../terminal.js';

/**
 * Workers of a conformance run unless `run --workers` says otherwise: one per core and at
 * least two, not Playwright's half. Checks mostly wait on the implementation, and every wait
 * derives from the claim and latencies measured in the run (src/timing.ts), so more
 * parallelism can slow a check down, never change its verdict.
 */
export const defaultWorkers = (): number => Math.max(2, availableParallelism());

export interface PlaywrightExit {
  /** 130 when killed by a signal, -1 when it could not start. */
  code: number;
  /** With `quiet`: the end of what it printed; with `keepStderr`: the end of its stderr. */
  output: string;
}

export async function runPlaywright(
  command: 'test' | 'merge-reports' | 'show-report',
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  quiet = false,
  /** Pass SIGINT and SIGTERM on and end with the child (a server that runs until stopped). */
  forwardSignals = false,
  /**
   * Relay stdout (the progress) but keep stderr: where Playwright fails before our reporter
   * (a config or reporter module that did not load) it prints a stack there, and the run says
   * one line instead (src/cli/run-command.ts); otherwise the caller relays it at the end.
   */
  keepStderr = false,
): Promise<PlaywrightExit> {
  const root = packageRoot();
  const cli = createRequire(join(root, 'package.json')).resolve('@playwright/test/cli');
  const output = new ByteTail(64 * 1024);
  // show-report serves a folder and reads no config.
  const config = command === 'show-report' ? [] : ['-c', join(root, 'dist', 'playwright.config.js')];
  return new Promise<PlaywrightExit>((done) => {
    const child = spawn(process.execPath, [cli, command, ...config, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The config and the suites are compiled JavaScript (dist/): Playwright's TypeScript
      // loader hooks would only pass every import through its transform, at about half a
      // second of CPU per process, in the runner and in every worker it starts.
      env: { ...env, FORCE_COLOR: '0', PW_DISABLE_TS_ESM: '1' },
    });
    if (quiet) {
      child.stdout?.on('data', (c: Buffer) => output.push(c));
      child.stderr?.on('data', (c: Buffer) => output.push(c));
    } else if (keepStderr) {
      relay(child.stdout!, process.stdout);
      child.stderr?.on('data', (c: Buffer) => output.push(c));
    } else {
      relay(child.stdout!, process.stdout);
      relay(child.stderr!, process.stderr);
    }
    const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
    if (forwardSignals) for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, forward);
    child.on('close', (c, signal) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, forward);
      done({ code: c ?? (signal ? 130 : 1), output: output.text() });
    });
    child.on('error', () => done({ code: -1, output: output.text() }));
  });
}

/** Copy `from` to `to` as safe terminal text (UTF-8 sequences split across chunks kept whole). */
function relay(from: Readable, to: Writable): void {
  const decoder = new StringDecoder('utf8');
  from.on('data', (c: Buffer) => {
    const text = decoder.write(c);
    if (text && !to.destroyed) to.write(terminalText(text));
  });
  from.on('end', () => {
    const rest = decoder.end();
    if (rest && !to.destroyed) to.write(terminalText(rest));
  });
  from.on('error', () => undefined);
}
