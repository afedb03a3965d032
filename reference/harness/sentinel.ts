// The sentinel tool: the one tool whose execution the runner can see. It writes the
// step's marker file with the input it actually ran with, and does nothing else. The file
// appears atomically (write, then rename) so a reader never sees half of it.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonObject } from '../../src/protocol/json.js';

export function runSentinel(marker: string, executedInput: JsonObject): void {
  mkdirSync(dirname(marker), { recursive: true });
  const tmp = `${marker}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ executedInput }) + '\n');
  renameSync(tmp, marker);
}
