// Writes our fast validators as precompiled code beside the compiled protocol module
// (src/protocol/precompiled.ts says why). Run by `npm run build` after tsc.
import { writeFileSync } from 'node:fs';
import { FAST_VALIDATORS_FILE, fastValidatorsFile } from '../src/protocol/precompiled.js';
import { fastValidatorsCode } from '../src/protocol/schema-set.js';

writeFileSync(FAST_VALIDATORS_FILE, fastValidatorsFile(fastValidatorsCode()));
