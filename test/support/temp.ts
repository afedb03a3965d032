// Temporary folders for a spec file: `const workspace = tempFolders('ahp-run-')` at the top
// level gives a function that makes one folder per call; all are removed after the file.
import { test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempFolders(prefix: string): () => string {
  const made: string[] = [];
  test.afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
