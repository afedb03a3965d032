// Regression comparison: each check is classified exactly once, and only new failures count.
import { test, expect } from '@playwright/test';
import { resultsWith } from '../support/results-fixture.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareRuns,
  hasNewFailures,
  snapshotChange,
  snapshotChangeLine,
  type SnapshotsOf,
} from '../../src/results/baseline.js';
import { readRecordedResults, type ClaimResults } from '../../src/results/model.js';
import { snapshotSummary } from '../../src/results/snapshot.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { conclude, prepareAcceptance } from '../../src/cli/acceptance.js';
import { tempFolders } from '../support/temp.js';

const workspace = tempFolders('ahp-baseline-');

const run = (statuses: Parameters<typeof resultsWith>[0]) => resultsWith(statuses);

test('one injected regression is reported as exactly one new failure', () => {
  const before = run({ a: 'passed', b: 'failed', c: 'failed', d: 'passed', gone: 'passed' });
  const after = run({ a: 'failed', b: 'failed', c: 'passed', d: 'passed', added: 'passed', 'added-bad': 'failed' });
  const changes = compareRuns(before, after);
  expect(Object.fromEntries(changes.map((c) => [c.id, c.change]))).toEqual({
    a: 'new-failure',
    b: 'still-failing',
    c: 'fixed',
    d: 'unchanged',
    gone: 'removed-check',
    added: 'new-check',
    'added-bad': 'new-failure',
  });
  expect(hasNewFailures(changes)).toBe(true);
  expect(hasNewFailures(compareRuns(before, before))).toBe(false);
});

test('a warning is not a failure', () => {
  expect(compareRuns(run({ a: 'passed' }), run({ a: 'warning' }))[0]!.change).toBe('unchanged');
});

// ---------------------------------------------------------------- across a snapshot change

const at = (statuses: Parameters<typeof resultsWith>[0], snapshot: SnapshotId) =>
  resultsWith(statuses, 'acme', snapshot);
/** As if the catalogue said `only` judges a rule of 1d98c19 alone. */
const onlyNewest: SnapshotsOf = (id) => (id === 'only' ? ['draft@1d98c19'] : undefined);

test('across a snapshot change only checks of the same rule are compared; n/a and one-snapshot checks are not regressions', () => {
  const before = at(
    { same: 'passed', worse: 'passed', na: 'not-applicable', only: 'passed', gone: 'passed' },
    'draft@2b5da580',
  );
  const after = at({ same: 'passed', worse: 'failed', na: 'failed', only: 'failed', added: 'failed' }, 'draft@1d98c19');
  const changes = compareRuns(before, after, onlyNewest);
  expect(Object.fromEntries(changes.map((c) => [c.id, c.change]))).toEqual({
    same: 'unchanged',
    worse: 'new-failure',
    na: 'not-comparable',
    only: 'not-comparable',
    gone: 'removed-check',
    added: 'new-failure',
  });
  expect(snapshotChange(before, after)).toEqual({ before: 'draft@2b5da580', after: 'draft@1d98c19' });
  expect(snapshotChangeLine(snapshotChange(before, after)!, 2)).toBe(
    'baseline was judged by draft@2b5da580, this run by draft@1d98c19: only checks that judge the same rule in both are compared; 2 checks not comparable',
  );
  // Within one snapshot nothing changes: a check that was n/a and now fails is a new failure.
  const same = compareRuns(at({ na: 'not-applicable' }, 'draft@1d98c19'), at({ na: 'failed' }, 'draft@1d98c19'));
  expect(same[0]!.change).toBe('new-failure');
  expect(snapshotChange(after, after)).toBeUndefined();
});

test('a results.json of version 1 (snapshot "draft") is read as judged by draft@2b5da580', () => {
  const now = at({ a: 'passed' }, 'draft@2b5da580');
  const v1 = JSON.parse(JSON.stringify({ ...now, schemaVersion: 1, claim: { ...now.claim, snapshot: 'draft' } }));
  const read = readRecordedResults(v1)!;
  expect(read.claim.snapshot).toEqual(snapshotSummary('draft@2b5da580', 'draft'));
  expect(read.claim.snapshot.commit).toBe('2b5da5809b9b638d4c368e39818ee8f3c19263dc');
  expect(snapshotChange(read, now)).toBeUndefined();
  expect(snapshotChange(read, at({ a: 'passed' }, 'draft@1d98c19'))).toBeDefined();
  expect(readRecordedResults({ checks: 'no' })).toBeUndefined();
});

test('run --baseline across a snapshot change says so in one line and records it', () => {
  const dir = workspace();
  const baseline = join(dir, 'baseline.json');
  const old = at({ 'base.a': 'passed' }, 'draft@2b5da580');
  writeFileSync(baseline, JSON.stringify({ ...old, schemaVersion: 1, claim: { ...old.claim, snapshot: 'draft' } }));
  const out: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
  const written: { results: ClaimResults; dir: string }[] = [];
  const criteria = prepareAcceptance({ baseline }, []);
  const now = at({ 'base.a': 'passed', 'base.b': 'not-applicable' }, 'draft@1d98c19');
  const exit = conclude([{ results: now, reportDir: join(dir, 'acme') }], criteria, io, written);
  expect(exit).toBe(0);
  expect(out).toContain(
    '  vs baseline: baseline was judged by draft@2b5da580, this run by draft@1d98c19: only checks that judge the same rule in both are compared; 1 check not comparable',
  );
  expect(out[0]).toContain('judged by draft@1d98c19');
  const recorded = JSON.parse(readFileSync(join(dir, 'acme', 'results.json'), 'utf8')) as ClaimResults;
  expect(recorded.judgement?.baseline).toMatchObject({ snapshot: 'draft@2b5da580', notComparable: 1 });
  expect(readFileSync(join(dir, 'acme', 'index.html'), 'utf8')).toContain('id="baseline-snapshot"');
});
