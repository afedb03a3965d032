// Writes the wire schemas built from src/protocol/catalogue.ts to schemas/draft/.
// `--check` exits 1 instead when the files on disk differ (used by the self-tests).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wireSchemas } from '../src/protocol/schema-build/index.js';

const SCHEMA_DIR = fileURLToPath(new URL('../../schemas/draft/', import.meta.url));

const serialize = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;

export function staleSchemaFiles(dir: string): string[] {
  const want = wireSchemas();
  const stale = Object.entries(want)
    .filter(([name, doc]) => {
      try {
        return readFileSync(join(dir, name), 'utf8') !== serialize(doc);
      } catch {
        return true;
      }
    })
    .map(([name]) => name);
  const extra = readdirSync(dir).filter((n) => n.endsWith('.schema.json') && !(n in want));
  return [...stale, ...extra];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const stale = staleSchemaFiles(SCHEMA_DIR);
    if (stale.length) {
      process.stderr.write(`schemas/draft is out of date (${stale.join(', ')}); run npm run gen:schemas\n`);
      process.exit(1);
    }
  } else {
    mkdirSync(SCHEMA_DIR, { recursive: true });
    for (const [name, doc] of Object.entries(wireSchemas())) writeFileSync(join(SCHEMA_DIR, name), serialize(doc));
    process.stdout.write(`wrote ${Object.keys(wireSchemas()).length} schemas to schemas/draft/\n`);
  }
}
