// Where the self-tests find the project and the upstream snapshot beside it.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotOf, type SnapshotId } from '../../src/protocol/snapshots.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The upstream `draft` data (never committed): ../shared/ahp-spec, or $AHP_SPEC_DIR. */
export const SPEC_DIR = process.env.AHP_SPEC_DIR ?? resolve(ROOT, '..', 'shared', 'ahp-spec');
export const HAVE_SPEC = existsSync(resolve(SPEC_DIR, 'fixtures', 'draft', 'manifest.json'));
export const NO_SPEC_REASON = `upstream snapshot not found at ${SPEC_DIR} (set AHP_SPEC_DIR); fixture-based tests skipped`;
/** The newer upstream `draft` the official SDKs implement (schemas only): ../shared/ahp-spec-1d98c19, or $AHP_SPEC_1D98C19_DIR. */
export const SPEC_DIR_1D98C19 = process.env.AHP_SPEC_1D98C19_DIR ?? resolve(ROOT, '..', 'shared', 'ahp-spec-1d98c19');
export const HAVE_SPEC_1D98C19 = existsSync(resolve(SPEC_DIR_1D98C19, 'schema', 'draft', 'schema.json'));
export const NO_SPEC_1D98C19_REASON = `upstream draft@1d98c19 material not found at ${SPEC_DIR_1D98C19} (set AHP_SPEC_1D98C19_DIR); its tests skipped`;
/** The published material of a snapshot beside the project (the two drafts' as overridden above). */
export function specDirOf(id: SnapshotId): string {
  if (id === 'draft@2b5da580') return SPEC_DIR;
  if (id === 'draft@1d98c19') return SPEC_DIR_1D98C19;
  return resolve(ROOT, '..', 'shared', snapshotOf(id).specDir);
}
