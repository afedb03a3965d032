// The numbers the README states are the code's, not typed from memory: fault modes per
// reference implementation, checks per bundled claim (the closing lines it quotes), and the
// size of the hostile corpus. A change that moves one of them fails here until the README
// says the new number.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadClaim } from '../src/claims/load.js';
import { plannedProjects } from '../src/engine/plan.js';
import { FAULT_MODES as BACKEND_FAULTS } from '../reference/backend/faults.js';
import { FAULT_MODES as HARNESS_FAULTS } from '../reference/harness/faults.js';
import { CORPUS } from '../scripts/hostile-corpus.js';
import { CHECKS } from '../src/checks/catalogue.js';
import { ROOT } from './support/paths.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The number the first match of `pattern` captures in the README. */
function stated(pattern: RegExp): number {
  const m = pattern.exec(readme);
  expect(m, `README has no match for ${pattern}`).not.toBeNull();
  return Number(m![1]);
}

test('fault modes per reference implementation', () => {
  expect(stated(/reference\/backend\/`, (\d+)\s+fault modes/)).toBe(BACKEND_FAULTS.length);
  expect(stated(/reference\/harness\/`, (\d+)\s+fault modes/)).toBe(HARNESS_FAULTS.length);
});

test('checks per role in the catalogue, and the content checks among them', () => {
  const of = (role: 'backend' | 'harness') => CHECKS.filter((c) => (c.roles as readonly string[]).includes(role));
  expect(stated(/(\d+) backend checks and \d+ harness checks/)).toBe(of('backend').length);
  expect(stated(/\d+ backend checks and (\d+) harness checks/)).toBe(of('harness').length);
  const content = stated(/\((\d+) of each are the content checks/);
  for (const role of ['backend', 'harness'] as const)
    expect(of(role).filter((c) => c.boundary !== undefined).length).toBe(content);
});

test('the closing lines quoted for the bundled claims count the checks their plan runs', () => {
  for (const name of [
    'reference-backend',
    'reference-backend-1d98c19',
    'reference-harness',
    'reference-harness-1d98c19',
  ]) {
    const outcome = loadClaim(join(ROOT, 'claims', `${name}.yaml`));
    if (outcome.kind !== 'ok') throw new Error(`claims/${name}.yaml does not load`);
    const planned = plannedProjects({ claims: [{ claim: outcome.claim, reportDir: '' }] });
    const checks = planned.reduce((n, p) => n + p.checks.length, 0);
    expect(stated(new RegExp(`${name} [0-9.]+: conformant \\((\\d+) passed, 0 failed`))).toBe(checks);
  }
});

test('the hostile corpus size: the behaviour rows of test/hostile/README.md, each run by the corpus or its spec', () => {
  const table = readFileSync(join(ROOT, 'test', 'hostile', 'README.md'), 'utf8');
  // The behaviour tables start at the first behaviour section; each has a header and a separator row.
  const rows = table
    .slice(table.indexOf('## Processes'))
    .split('\n')
    .filter((l) => l.startsWith('|'));
  const separators = rows.filter((l) => /^[|\s:-]+$/.test(l)).length;
  expect(stated(/corpus of (\d+) hostile behaviours/)).toBe(rows.length - 2 * separators);
  // Every corpus row is one of them.
  const ids = CORPUS.flatMap((b) => b.rows.map((r) => r.id));
  for (const id of ids) expect(table, `hostile row ${id} is not in test/hostile/README.md`).toContain(`\`${id}\``);
});
