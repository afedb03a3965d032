// Expected failures keep a nightly run green while known failures are burned down, and
// the list must stay true: expired entries and entries whose check passes fail the run.
import { test, expect } from '@playwright/test';
import { resultsWith } from '../support/results-fixture.js';
import {
  applyExpectedFailures,
  ExpectedFailuresError,
  expectedFailuresFail,
  parseExpectedFailures,
} from '../../src/results/expected-failures.js';

const run = (statuses: Parameters<typeof resultsWith>[0]) => resultsWith(statuses);

const FILE = `expected:
  - { check: base.unknown-method, reason: "fix in 2.1", expires: 2026-12-31 }
  - { check: ti.deny-samples, reason: "policy rewrite", target: backend/http }
`;

test('matched failures do not fail the run; unexpected ones do', () => {
  const list = parseExpectedFailures(FILE, 'x.yaml');
  expect(list[0]).toEqual({ check: 'base.unknown-method', reason: 'fix in 2.1', expires: '2026-12-31' });
  const ok = applyExpectedFailures(
    run({ 'base.unknown-method': 'failed', 'ti.deny-samples': 'failed', 'base.protocol-version': 'passed' }),
    list,
    '2026-11-30',
  );
  expect(ok.matched).toHaveLength(2);
  expect(expectedFailuresFail(ok)).toBe(false);
  const more = applyExpectedFailures(
    run({ 'base.unknown-method': 'failed', 'ti.deny-samples': 'failed', 'base.protocol-version': 'failed' }),
    list,
    '2026-11-30',
  );
  expect(more.unexpected.map((c) => c.id)).toEqual(['base.protocol-version']);
  expect(expectedFailuresFail(more)).toBe(true);
});

test('an expired entry, or one whose check now passes, fails the run', () => {
  const list = parseExpectedFailures(FILE, 'x.yaml');
  const expired = applyExpectedFailures(
    run({ 'base.unknown-method': 'failed', 'ti.deny-samples': 'failed' }),
    list,
    '2027-01-01',
  );
  expect(expired.expired.map((e) => e.check)).toEqual(['base.unknown-method']);
  expect(expectedFailuresFail(expired)).toBe(true);
  const fixed = applyExpectedFailures(
    run({ 'base.unknown-method': 'passed', 'ti.deny-samples': 'failed' }),
    list,
    '2026-11-30',
  );
  expect(fixed.stale.map((e) => e.check)).toEqual(['base.unknown-method']);
  expect(expectedFailuresFail(fixed)).toBe(true);
  // A check the run did not include (--grep) says nothing about its entry.
  expect(applyExpectedFailures(run({ 'ti.deny-samples': 'failed' }), list, '2026-11-30').stale).toEqual([]);
});

test('a broken list is one clear line', () => {
  for (const [text, msg] of [
    ['expected: [ { check: no.such-check, reason: x } ]', /is not a check id/],
    ['expected: [ { check: base.unknown-method } ]', /reason is missing/],
    ['expected: [ { check: base.unknown-method, reason: x, expires: soon } ]', /expires must be a date/],
    ['expected: [ { check: base.unknown-method, reason: x, colour: red } ]', /colour is not a field/],
    ['checks: []', /top-level "expected:" list/],
  ] as const) {
    expect(() => parseExpectedFailures(text, 'x.yaml')).toThrow(ExpectedFailuresError);
    expect(() => parseExpectedFailures(text, 'x.yaml')).toThrow(msg);
  }
});
