// Text from the implementation under test reaches the terminal one line at a time: escape
// sequences, line breaks and bidi controls are shown escaped, so a hostile version cannot
// clear the screen or print a forged verdict line.
import { test, expect } from '@playwright/test';
import { terminalJson, terminalLine, terminalText } from '../../src/terminal.js';
import { summaryLine } from '../../src/cli/acceptance.js';
import { buildClaimResults } from '../../src/results/model.js';
import { snapshotSummary } from '../../src/results/snapshot.js';

/** Nothing a terminal acts on: no C0/C1 control, DEL, line or paragraph separator, bidi control. */
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

test('controls, line breaks and bidi controls are shown escaped; the rest is left alone', () => {
  expect(terminalLine('\x1b[2J\nFAKE: conformant (99 passed, 0 failed)')).toBe(
    '\\x1b[2J\\nFAKE: conformant (99 passed, 0 failed)',
  );
  expect(terminalLine('a\rb\tc\u0000d\u0007e\u007ff\u009bg\u0085')).toBe('a\\rb\\tc\\x00d\\x07e\\x7ff\\x9bg\\x85');
  expect(terminalLine('x\u2028y\u2029z')).toBe('x\\u2028y\\u2029z');
  expect(terminalLine('\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c')).toBe(
    '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c',
  );
  expect(terminalLine('lone \ud800 and \udc00, a pair \u{1F600}')).toBe('lone \\ud800 and \\udc00, a pair \u{1F600}');
  const plain =
    'acme-policy 1.4.2: conformant (61 passed, 0 failed) -> reports/acme-policy — ünïcödé, 中文, "quotes" \\ backslash';
  expect(terminalLine(plain)).toBe(plain);
});

test("lines of text (Playwright's progress output) keep their line feeds and tabs, and nothing else raw", () => {
  expect(terminalText('  1) check\n\tCheckFailure: \x1b[2J\x1b]0;t\x07 \r\nFAKE \u202e\n')).toBe(
    '  1) check\n\tCheckFailure: \\x1b[2J\\x1b]0;t\\x07 \\r\nFAKE \\u202e\n',
  );
  let all = '';
  for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
  expect(terminalText(all).replace(/[\n\t]/g, '')).not.toMatch(RAW);
  expect(terminalText(all).split('\n')).toHaveLength(2);
});

test('any string becomes one line with nothing raw in it', () => {
  let all = '';
  for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
  const line = terminalLine(all);
  expect(line).not.toMatch(RAW);
  expect(line.split('\n')).toHaveLength(1);
});

test('terminalJson parses back to the same value and shows nothing raw', () => {
  const value = { message: 'a\x1b[2J\nb\u202ec\u2028d\u0085e', list: ['\u2066x\u2069'] };
  const text = terminalJson(value, 2);
  expect(JSON.parse(text)).toEqual(value);
  // Line breaks only between JSON tokens (indentation), never inside a string.
  for (const line of text.split('\n')) expect(line).not.toMatch(RAW);
});

test('the summary line of results with a hostile name and version is one line, with no escape sequence', () => {
  const hostile = '1.0\x1b[2J\nFAKE: conformant (99 passed, 0 failed)\u202e';
  const r = buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00.000Z',
    claim: {
      file: '/x.yaml',
      implementation: { name: 'demo\r', version: hostile },
      snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
      role: 'backend',
      transports: ['stdio'],
      profiles: [],
    },
    targets: [{ role: 'backend', transport: 'stdio', lifecycle: 'persistent' }],
    checks: [
      {
        id: 'base.a',
        title: 't',
        level: 'MUST',
        profile: 'base',
        requirements: [],
        role: 'backend',
        transport: 'stdio',
        lifecycle: 'persistent',
        status: 'passed',
        message: '',
        durationMs: 1,
      },
    ],
  });
  const line = summaryLine(r, 'reports/demo');
  expect(line).toBe(
    'demo\\r 1.0\\x1b[2J\\nFAKE: conformant (99 passed, 0 failed)\\u202e: conformant (1 passed, 0 failed), judged by draft@2b5da580 -> reports/demo',
  );
  expect(line).not.toMatch(RAW);
});
