// Writes one claim's results.json and junit.xml.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { junitXml } from './junit.js';
import { stableJson, type ClaimResults } from './model.js';

export function writeClaimResults(dir: string, results: ClaimResults): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), stableJson(results));
  writeFileSync(join(dir, 'junit.xml'), junitXml(results));
}
