// Writes the wire schemas built from src/protocol/catalogue.ts, one folder per snapshot
// (schemas/<snapshot>/, e.g. schemas/draft@1d98c19/). `--check` exits 1 instead when the
// files on disk differ (used by the self-tests).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wireSchemas } from '../src/protocol/schema-build/index.js';
import { SNAPSHOT_IDS, type SnapshotId } from '../src/protocol/snapshots.js';

const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/** schemas/<snapshot>/ under a schemas folder. */
export const snapshotSchemaDir = (schemasDir: string, snapshot: SnapshotId): string => join(schemasDir, snapshot);

const serialize = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;

/** The files of a snapshot's folder that differ from what the builders make, or should not be there. */
export function staleSchemaFiles(dir: string, snapshot: SnapshotId): string[] {
  const want = wireSchemas(snapshot);
  const stale = Object.entries(want)
    .filter(([name, doc]) => {
      try {
        return readFileSync(join(dir, name), 'utf8') !== serialize(doc);
      } catch {
        return true;
      }
    })
    .map(([name]) => name);
  let present: string[] = [];
  try {
    present = readdirSync(dir);
  } catch {
    // a missing folder: every file is stale (above)
  }
  const extra = present.filter((n) => n.endsWith('.schema.json') && !(n in want));
  return [...stale, ...extra];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    let failed = false;
    for (const snapshot of SNAPSHOT_IDS) {
      const stale = staleSchemaFiles(snapshotSchemaDir(SCHEMAS_DIR, snapshot), snapshot);
      if (stale.length) {
        process.stderr.write(`schemas/${snapshot} is out of date (${stale.join(', ')}); run npm run gen:schemas\n`);
        failed = true;
      }
    }
    if (failed) process.exit(1);
  } else {
    for (const snapshot of SNAPSHOT_IDS) {
      const dir = snapshotSchemaDir(SCHEMAS_DIR, snapshot);
      mkdirSync(dir, { recursive: true });
      const docs = wireSchemas(snapshot);
      for (const [name, doc] of Object.entries(docs)) writeFileSync(join(dir, name), serialize(doc));
      process.stdout.write(`wrote ${Object.keys(docs).length} schemas to schemas/${snapshot}/\n`);
    }
  }
}
