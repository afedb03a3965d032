// Where the self-tests find the project and the upstream snapshot beside it.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The upstream `draft` data (never committed): ../shared/ahp-spec, or $AHP_SPEC_DIR. */
export const SPEC_DIR = process.env.AHP_SPEC_DIR ?? resolve(ROOT, '..', 'shared', 'ahp-spec');
export const HAVE_SPEC = existsSync(resolve(SPEC_DIR, 'fixtures', 'draft', 'manifest.json'));
export const NO_SPEC_REASON = `upstream snapshot not found at ${SPEC_DIR} (set AHP_SPEC_DIR); fixture-based tests skipped`;
