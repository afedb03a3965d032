// The snapshot table's identities agree with the published material beside the project.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import {
  NEWEST_SNAPSHOT,
  resolveSnapshot,
  snapshotOf,
  SNAPSHOTS,
  type Snapshot,
} from '../../src/protocol/snapshots.js';
import { ROOT } from '../support/paths.js';

const shared = (dir: string): string => resolve(ROOT, '..', 'shared', dir);

test('draft resolves to the newest snapshot; a commit prefix to its snapshot; others to none', () => {
  expect(resolveSnapshot('draft')?.id).toBe(NEWEST_SNAPSHOT);
  expect(resolveSnapshot('draft@2b5da580')?.id).toBe('draft@2b5da580');
  expect(resolveSnapshot('draft@1d98c19bf4558d998ef8af32b2ac54f604899c20')?.id).toBe('draft@1d98c19');
  for (const bad of ['draft@2b5da5', 'draft@ffffffff', 'Draft', '0.1', 'draft@'])
    expect(resolveSnapshot(bad)).toBeUndefined();
});

// A released snapshot as upstream announced them: named by its date, which is its protocolVersion.
// Made up for the test (never added to the real table); its rules are the newest snapshot's.
const RELEASED: Snapshot = {
  ...snapshotOf(NEWEST_SNAPSHOT),
  id: '2027-01-15',
  protocolVersion: '2027-01-15',
  commit: 'ab'.repeat(20),
  schemaDigest: 'cd'.repeat(32),
  borrowed: {},
};

test('a table with a released snapshot resolves it by its date, and the drafts as before', () => {
  const table = [...SNAPSHOTS, RELEASED];
  expect(resolveSnapshot('2027-01-15', table)).toBe(RELEASED);
  expect(snapshotOf('2027-01-15', table)).toBe(RELEASED);
  expect(resolveSnapshot('draft', table)?.id).toBe(NEWEST_SNAPSHOT);
  expect(resolveSnapshot('draft@2b5da580', table)?.id).toBe('draft@2b5da580');
  // A release is not a draft: its commit does not resolve as draft@<commit>.
  expect(resolveSnapshot('draft@abababa', table)).toBeUndefined();
  for (const bad of ['2027-01-16', '2027-1-15', '2027-01-15@abababa', ' 2027-01-15'])
    expect(resolveSnapshot(bad, table)).toBeUndefined();
  // Without it in the table, its date names nothing.
  expect(resolveSnapshot('2027-01-15')).toBeUndefined();
});

test('every id of the table is the name its kind takes', () => {
  for (const s of SNAPSHOTS) {
    if (s.protocolVersion === 'draft') expect(s.commit.startsWith(s.id.slice('draft@'.length)), s.id).toBe(true);
    else expect(s.id).toBe(s.protocolVersion);
    expect(resolveSnapshot(s.id)).toBe(s);
    for (const from of Object.values(s.borrowed)) expect(snapshotOf(from).id).toBe(from);
  }
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
