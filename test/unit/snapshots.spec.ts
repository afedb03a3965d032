// The snapshot table's identities agree with the published material beside the project.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import { NEWEST_SNAPSHOT, resolveSnapshot, snapshotOf, SNAPSHOTS } from '../../src/protocol/snapshots.js';
import { ROOT } from '../support/paths.js';

const shared = (dir: string): string => resolve(ROOT, '..', 'shared', dir);

test('draft resolves to the newest snapshot; a commit prefix to its snapshot; others to none', () => {
  expect(resolveSnapshot('draft')?.id).toBe(NEWEST_SNAPSHOT);
  expect(resolveSnapshot('draft@2b5da580')?.id).toBe('draft@2b5da580');
  expect(resolveSnapshot('draft@1d98c19bf4558d998ef8af32b2ac54f604899c20')?.id).toBe('draft@1d98c19');
  for (const bad of ['draft@2b5da5', 'draft@ffffffff', 'Draft', '0.1', 'draft@'])
    expect(resolveSnapshot(bad)).toBeUndefined();
});

for (const s of SNAPSHOTS) {
  test(`${s.id}: the schema digest is the one its published material records`, () => {
    const dir = shared(s.specDir);
    test.skip(!existsSync(dir), `${dir} not found`);
    const lock = resolve(dir, 'ahp-codegen.lock.json');
    if (existsSync(lock)) {
      const l = JSON.parse(readFileSync(lock, 'utf8')) as { sourceCommit: string; schemaManifestSha256: string };
      expect(l.sourceCommit).toBe(s.commit);
      expect(l.schemaManifestSha256).toBe(s.schemaDigest);
    } else {
      const manifest = readFileSync(resolve(dir, 'schema', 'draft', 'manifest.json'));
      expect(createHash('sha256').update(manifest).digest('hex')).toBe(s.schemaDigest);
    }
    expect(snapshotOf(s.id)).toBe(s);
  });
}
