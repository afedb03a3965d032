// Regression comparison: each check is classified exactly once, and only new failures count.
import { test, expect } from '@playwright/test';
import { resultsWith } from '../support/results-fixture.js';
import { compareRuns, hasNewFailures } from '../../src/results/baseline.js';

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
