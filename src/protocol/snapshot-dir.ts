// Which snapshot a published spec folder holds, recognised by its schema-set digest (the
// identity src/protocol/snapshots.ts defines): the sha256 of `schema/draft/manifest.json`
// when the folder has the upstream manifest, else the `schemaManifestSha256` of the SDKs'
// `ahp-codegen.lock.json` beside it. Never by the folder's name.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SNAPSHOTS, type SnapshotId } from './snapshots.js';

const cache = new Map<string, SnapshotId | undefined>();

export function schemaDigestOfSpecDir(specDir: string): string | undefined {
  const manifest = join(specDir, 'schema', 'draft', 'manifest.json');
  if (existsSync(manifest)) return createHash('sha256').update(readFileSync(manifest)).digest('hex');
  const lock = join(specDir, 'ahp-codegen.lock.json');
  if (!existsSync(lock)) return undefined;
  try {
    const digest = (JSON.parse(readFileSync(lock, 'utf8')) as { schemaManifestSha256?: unknown }).schemaManifestSha256;
    return typeof digest === 'string' ? digest : undefined;
  } catch {
    return undefined;
  }
}

/** The snapshot whose digest the folder carries, or undefined (unknown or unreadable material). */
export function snapshotOfSpecDir(specDir: string): SnapshotId | undefined {
  if (cache.has(specDir)) return cache.get(specDir);
  const digest = schemaDigestOfSpecDir(specDir);
  const id = SNAPSHOTS.find((s) => s.schemaDigest === digest)?.id;
  cache.set(specDir, id);
  return id;
}
