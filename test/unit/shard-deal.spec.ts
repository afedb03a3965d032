// Shards are dealt by the plan (src/engine/shards.ts): together the shards of a run hold every
// (target, check) exactly once, and no shard carries more cost than another by more than
// the most expensive check.
import { test, expect } from '@playwright/test';
import { join } from 'node:path';
import { checkSpec } from '../../src/checks/catalogue.js';
import { loadClaim, type ResolvedClaim } from '../../src/claims/load.js';
import { plannedProjects } from '../../src/engine/plan.js';
import { shardProjects } from '../../src/engine/shards.js';
import { ROOT } from '../support/paths.js';

function bundled(): ResolvedClaim[] {
  return ['reference-backend', 'reference-harness'].map((name) => {
    const o = loadClaim(join(ROOT, 'claims', `${name}.yaml`));
    if (o.kind !== 'ok') throw new Error(`claims/${name}.yaml does not load`);
    return o.claim;
  });
}

const cost = (id: string): number => checkSpec(id).launches ?? 1;

for (const total of [1, 2, 3, 5]) {
  test(`${total} shard(s) of the bundled claims hold every check once, balanced by cost`, () => {
    const all = plannedProjects({ claims: bundled().map((claim) => ({ claim, reportDir: '' })) });
    const seen = new Map<string, number>();
    const loads: number[] = [];
    for (let current = 1; current <= total; current++) {
      let load = 0;
      for (const p of shardProjects(all, { current, total })) {
        for (const id of p.checks) {
          const key = `${p.name} ${id}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          load += cost(id);
        }
      }
      loads.push(load);
    }
    const expected = all.flatMap((p) => p.checks.map((id) => `${p.name} ${id}`));
    expect([...seen.keys()].sort()).toEqual([...expected].sort());
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const heaviest = Math.max(...all.flatMap((p) => p.checks.map(cost)));
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(heaviest);
  });
}
