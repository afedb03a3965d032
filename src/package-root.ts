// The installed package's root folder, found from this module's own location, so the same
// code works from src/ (Playwright loads TypeScript) and from dist/ (the compiled CLI).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'ahp-conformance') {
      root = dir;
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the ahp-conformance package root');
    dir = up;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
