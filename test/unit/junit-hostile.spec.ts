// junit.xml is well-formed XML 1.0 whatever the implementation under test put in its name,
// version, check titles and messages: a strict parser (saxes, which enforces XML 1.0's
// character ranges) reads it back, and every string comes back in a visible escaped form.
import { test, expect } from '@playwright/test';
import { SaxesParser } from 'saxes';
import { junitXml, xmlAttribute, xmlText } from '../../src/results/junit.js';
import { buildClaimResults, type CheckResult, type CheckStatus, type ClaimResults } from '../../src/results/model.js';
import { snapshotSummary } from '../../src/results/snapshot.js';

interface Element {
  name: string;
  attributes: Record<string, string>;
  text: string;
}

/** Every element of the document with its attributes and text; throws on anything not well-formed. */
function parseStrict(xml: string): Element[] {
  const elements: Element[] = [];
  const open: Element[] = [];
  const parser = new SaxesParser();
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (t) => {
    const e: Element = {
      name: t.name,
      attributes: Object.fromEntries(Object.entries(t.attributes).map(([k, v]) => [k, String(v)])),
      text: '',
    };
    elements.push(e);
    open.push(e);
  });
  parser.on('text', (s) => {
    const top = open.at(-1);
    if (top) top.text += s;
  });
  parser.on('cdata', (s) => {
    const top = open.at(-1);
    if (top) top.text += s;
  });
  parser.on('closetag', () => {
    open.pop();
  });
  parser.write(xml).close();
  return elements;
}

/** Characters XML 1.0 forbids, markup characters, a terminal escape, a forged line, a valid emoji. */
const HOSTILE =
  'a\uFFFF b\u0000 c\uD800 d]]> e"<&\' f\x1b[2J g\nFAKE: conformant (99 passed, 0 failed)\r h\u0085 i\uFFFE j\uDC00 k\u{1F600}';
/** As an attribute value reads back. */
const HOSTILE_ATTRIBUTE =
  'a\\uffff b\\u0000 c\\ud800 d]]> e"<&\' f\\u001b[2J g\\nFAKE: conformant (99 passed, 0 failed)\\r h\\u0085 i\\ufffe j\\udc00 k\u{1F600}';
/** As element text reads back: LF and tab stay. */
const HOSTILE_TEXT = HOSTILE_ATTRIBUTE.replace('\\n', '\n');

function results(checks: CheckResult[], targets = true): ClaimResults {
  return buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00.000Z',
    claim: {
      file: '/claims/x.yaml',
      implementation: { name: HOSTILE, version: HOSTILE },
      snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
      role: 'backend',
      transports: ['stdio'],
      profiles: ['tool-interception'],
    },
    targets: targets ? [{ role: 'backend', transport: 'stdio', lifecycle: 'persistent' }] : [],
    checks,
  });
}

const check = (id: string, status: CheckStatus, message = HOSTILE): CheckResult => ({
  id,
  title: HOSTILE,
  level: 'MUST',
  profile: 'base',
  requirements: ['AHP-RPC-001'],
  role: 'backend',
  transport: 'stdio',
  lifecycle: 'persistent',
  status,
  message,
  durationMs: 1,
});

test('the escapes: XML-forbidden and control characters visible, & written as &amp;, the rest of markup left to the builder', () => {
  expect(xmlAttribute(HOSTILE)).toBe(HOSTILE_ATTRIBUTE.replace('&', '&amp;'));
  expect(xmlText(HOSTILE)).toBe(HOSTILE_TEXT.replace('&', '&amp;'));
  expect(xmlText('plain text, tab\there\nand a line')).toBe('plain text, tab\there\nand a line');
});

test('hostile strings in every field: junit.xml is well-formed and reads back escaped', () => {
  const xml = junitXml(
    results([
      check('x.failed', 'failed'),
      check('x.not-run', 'not-run'),
      check('x.na', 'not-applicable'),
      check('x.warning', 'warning'),
      check('x.passed', 'passed'),
    ]),
  );
  const elements = parseStrict(xml);
  const all = (name: string): Element[] => elements.filter((e) => e.name === name);
  expect(all('testsuites')[0]?.attributes.name).toBe(`ahp-conformance: ${HOSTILE_ATTRIBUTE} ${HOSTILE_ATTRIBUTE}`);
  expect(all('testsuite').map((e) => e.attributes.name)).toEqual([
    `${HOSTILE_ATTRIBUTE} ${HOSTILE_ATTRIBUTE} backend/stdio/persistent`,
  ]);
  expect(all('testcase').map((e) => e.attributes.name)).toEqual(
    ['x.failed', 'x.not-run', 'x.na', 'x.warning', 'x.passed'].map((id) => `${id}: ${HOSTILE_ATTRIBUTE}`).sort(),
  );
  // The failure's message attribute is the first line; its text is the whole message.
  const failure = all('failure');
  expect(failure).toHaveLength(1);
  expect(failure[0]?.attributes.message).toBe(HOSTILE_ATTRIBUTE.slice(0, HOSTILE_ATTRIBUTE.indexOf('\\n')));
  expect(failure[0]?.text).toBe(HOSTILE_TEXT);
  expect(
    all('skipped')
      .map((e) => e.attributes.message)
      .sort(),
  ).toEqual([`not-applicable: ${HOSTILE_ATTRIBUTE}`, `not-run: ${HOSTILE_ATTRIBUTE}`]);
  expect(all('system-out').map((e) => e.text)).toEqual([`warning: ${HOSTILE_TEXT}`]);
  // Nothing raw: no ESC, no C0 control but LF, no CR, no noncharacter, no lone surrogate.
  expect(xml).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ufffe\uffff]/);
  expect(xml).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
});

test('text that looks like references (&#0;, an undefined entity, &amp;) is well-formed and reads back as written', () => {
  // The builder leaves `&name;` and `&#n;` unescaped: `&#0;` and `&foo;` would not be well-formed.
  const refs = 'a &#0; b &foo; c &amp; d &#65; e &#x0; f &lt;';
  const elements = parseStrict(junitXml(results([check('x.failed', 'failed', refs)])));
  const failure = elements.find((e) => e.name === 'failure')!;
  expect(failure.attributes.message).toBe(refs);
  expect(failure.text).toBe(refs);
});

test('results without targets (an incomplete claim) with a hostile reason are well-formed too', () => {
  const r = { ...results([], false), reason: HOSTILE };
  const elements = parseStrict(junitXml(r));
  expect(elements.filter((e) => e.name === 'testsuite').map((e) => e.attributes.name)).toEqual([
    `${HOSTILE_ATTRIBUTE} ${HOSTILE_ATTRIBUTE}`,
  ]);
});

test('random strings over all of UTF-16 always give well-formed XML', () => {
  let seed = 9;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  const interesting = [
    0, 8, 9, 10, 13, 27, 31, 127, 0x85, 0x9b, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffe, 0xffff, 0x2028, 0x202e, 0x3c,
    0x26, 0x5d, 0x3e, 0x22, 0x27,
  ];
  const random = (): string =>
    Array.from({ length: next() % 40 }, () =>
      String.fromCharCode(next() % 3 === 0 ? interesting[next() % interesting.length]! : next() % 0x10000),
    ).join('');
  for (let i = 0; i < 200; i++) {
    const c: CheckResult = {
      ...check(random(), (['failed', 'not-run', 'warning', 'passed'] as const)[i % 4]!, random()),
      title: random(),
    };
    const r = buildClaimResults({
      runnerVersion: '0.0.0',
      generatedAt: '2026-01-01T00:00:00.000Z',
      claim: {
        file: '/x',
        implementation: { name: random(), version: random() },
        snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
        role: 'backend',
        transports: ['stdio'],
        profiles: [],
      },
      targets: [{ role: 'backend', transport: 'stdio', lifecycle: 'persistent' }],
      checks: [c],
    });
    const xml = junitXml(r);
    expect(() => parseStrict(xml), xml).not.toThrow();
  }
});
