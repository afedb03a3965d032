// Starting Playwright Test (`test`, `merge-reports`) with this package's config as a child
// process: its output goes straight to ours, or is kept (bounded) for when it fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { ByteTail } from '../../drivers/tail.js';

export interface PlaywrightExit {
  /** 130 when killed by a signal, -1 when it could not start. */
  code: number;
  /** With `quiet`: the end of what it printed. */
  output: string;
}

export async function runPlaywright(command: 'test' | 'merge-reports', args: readonly string[], env: NodeJS.ProcessEnv, quiet = false): Promise<PlaywrightExit> {
  const root = packageRoot();
  const cli = createRequire(join(root, 'package.json')).resolve('@playwright/test/cli');
  const output = new ByteTail(64 * 1024);
  return new Promise<PlaywrightExit>((done) => {
    const child = spawn(process.execPath, [cli, command, '-c', join(root, 'playwright.config.ts'), ...args], {
      cwd: root, stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'], env,
    });
    child.stdout?.on('data', (c: Buffer) => output.push(c));
    child.stderr?.on('data', (c: Buffer) => output.push(c));
    child.on('close', (c, signal) => done({ code: c ?? (signal ? 130 : 1), output: output.text() }));
    child.on('error', () => done({ code: -1, output: output.text() }));
  });
}
