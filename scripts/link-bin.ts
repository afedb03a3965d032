// After `npm ci`, link our own CLI into node_modules/.bin so that tools and scripts can
// call `node_modules/.bin/ahp-conformance` exactly as in a project that depends on us.
import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binDir = `${root}node_modules/.bin`;
const link = `${binDir}/ahp-conformance`;
try {
  mkdirSync(binDir, { recursive: true });
  rmSync(link, { force: true });
  symlinkSync('../../bin/ahp-conformance.js', link);
  chmodSync(`${root}bin/ahp-conformance.js`, 0o755);
} catch (err) {
  // Not fatal: `npx ahp-conformance` and `node bin/ahp-conformance.js` work without the link.
  process.stderr.write(`note: could not link node_modules/.bin/ahp-conformance: ${(err as Error).message}\n`);
}
