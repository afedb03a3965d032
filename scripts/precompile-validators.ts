// Writes our fast validators as precompiled code beside the compiled protocol module, one
// file per schema document of each snapshot (src/protocol/precompiled.ts says why). Run by
// `npm run build` after tsc.
import { writeFileSync } from 'node:fs';
import { fastValidatorsFile, fastValidatorsFileOf } from '../src/protocol/precompiled.js';
import { fastValidatorsCode } from '../src/protocol/schema-set.js';
import { SNAPSHOT_IDS } from '../src/protocol/snapshots.js';

for (const snapshot of SNAPSHOT_IDS) {
  for (const [document, code] of fastValidatorsCode(snapshot))
    writeFileSync(fastValidatorsFileOf(snapshot, document), fastValidatorsFile(snapshot, code));
}
