// Expected failures keep a nightly run green while known failures are burned down, and
// the list must stay true: expired entries and entries whose check passes fail the run.
import { test, expect } from '@playwright/test';
import { resultsWith } from '../support/results-fixture.js';
import {
  applyExpectedFailures,
  ExpectedFailuresError,
  expectedFailuresFail,
  listedChecks,
  markedForPlaywright,
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

test('Playwright is told the unexpired entries of one implementation and target, and only without retries or a maximum', () => {
  const list = parseExpectedFailures(
    FILE +
      '  - { check: base.protocol-version, reason: r, implementation: other }\n' +
      '  - { check: base.unknown-fields, reason: r, expires: 2026-01-01 }\n',
    'x.yaml',
  );
  const http = { role: 'backend', transport: 'http' } as const;
  const stdio = { role: 'backend', transport: 'stdio', lifecycle: 'persistent' } as const;
  expect(listedChecks(list, 'demo', http, '2026-11-30')).toEqual(['base.unknown-method', 'ti.deny-samples']);
  expect(listedChecks(list, 'demo', stdio, '2026-11-30')).toEqual(['base.unknown-method']);
  expect(listedChecks(list, 'other', stdio, '2026-11-30')).toEqual(['base.unknown-method', 'base.protocol-version']);
  // Expired: Playwright expects it to pass again, as the judgement counts it again.
  expect(listedChecks(list, 'demo', stdio, '2027-01-01')).toEqual([]);
  expect(markedForPlaywright(['--workers', '2'])).toBe(true);
  expect(markedForPlaywright(['--retries', '0'])).toBe(false);
  expect(markedForPlaywright(['--max-failures', '1'])).toBe(false);
});
