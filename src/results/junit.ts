// JUnit XML view of a claim's results: one testsuite per target (role, transport,
// lifecycle) with its own verdict, one testcase per check, requirement ids as properties.
//
// Names, versions, titles and messages come from the implementation under test and may
// hold anything. The document is built with xmlbuilder2 (which escapes markup: `<`, `&`,
// `>` so `]]>` never appears, quotes in attributes), and every string is first made
// representable: characters XML 1.0 cannot carry (C0 controls but tab/LF/CR, lone
// surrogates, U+FFFE, U+FFFF) and those it discourages (DEL, C1 controls) are shown as
// visible escapes such as `\uffff`, so junit.xml is well-formed XML 1.0 whatever the input.
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import {
  LEGACY_NOT_RUN,
  targetKey,
  targetLabel,
  type CheckResult,
  type ClaimResults,
  type Coverage,
  type TargetKey,
} from './model.js';
import type { SnapshotSummary } from './snapshot.js';

/**
 * Not an XML 1.0 Char (lone surrogates included, with the u flag), DEL or a C1 control, or
 * CR (a parser reads CR in text back as LF).
 */
const NOT_XML_TEXT = /[^\t\n\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
/** In attribute values a parser turns tab and LF into spaces: show them escaped too. */
const NOT_XML_ATTRIBUTE = /[^\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const visible = (c: string): string => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

// xmlbuilder2 escapes `&` only where it does not start something that looks like a
// reference (`&amp;`, `&#0;`, `&foo;` pass through as written), which is not well-formed
// for `&#0;` or an undefined entity: every `&` is written as `&amp;` here, which the
// builder then leaves alone, so each reads back as the `&` it was.
const AMPERSAND = /&/g;

/** Any string as XML 1.0 element text: unrepresentable characters shown as `\uXXXX`, `\r`. */
export const xmlText = (s: string): string => s.replace(NOT_XML_TEXT, visible).replace(AMPERSAND, '&amp;');
/** Any string as an XML 1.0 attribute value that reads back as written: also `\t`, `\n`, `\r`. */
export const xmlAttribute = (s: string): string => s.replace(NOT_XML_ATTRIBUTE, visible).replace(AMPERSAND, '&amp;');

type Attributes = Record<string, string>;
const attrs = (a: Attributes): Attributes =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, xmlAttribute(v)]));

function properties(parent: XMLBuilder, props: readonly [string, string][]): void {
  const p = parent.ele('properties');
  for (const [name, value] of props) p.ele('property', attrs({ name, value }));
}

/**
 * A JUnit skipped testcase: not applicable, or not run. Results of version 2 and earlier
 * said `skipped` for not run, rendered as they did so that `verify` still checks them.
 */
const unrun = (c: CheckResult): boolean =>
  c.status === 'not-run' || c.status === 'not-applicable' || (c.status as string) === LEGACY_NOT_RUN;

function testcase(parent: XMLBuilder, c: CheckResult): void {
  const where = [c.transport, c.lifecycle].filter(Boolean).join('/');
  const tc = parent.ele(
    'testcase',
    attrs({
      classname: `${c.profile}.${c.role}.${where}`,
      name: `${c.id}: ${c.title}`,
      time: (c.durationMs / 1000).toFixed(3),
    }),
  );
  properties(tc, [
    ...c.requirements.map((req): [string, string] => ['requirement', req]),
    ['level', c.level],
    ['status', c.status],
    // run --repeat: each repetition in order (results without them render as they did, so `verify` still checks them).
    ...(c.repetitions
      ? [
          ...(c.flaky ? [['flaky', 'true'] as [string, string]] : []),
          ...c.repetitions.map((r, i): [string, string] => ['repetition', `${i + 1}: ${r.status} ${r.durationMs} ms`]),
        ]
      : []),
  ]);
  if (c.status === 'failed')
    tc.ele('failure', attrs({ message: c.message.split('\n')[0] ?? '' })).txt(xmlText(c.message));
  else if (unrun(c)) tc.ele('skipped', attrs({ message: `${c.status}: ${c.message}` }));
  else if (c.status === 'warning') tc.ele('system-out').txt(xmlText(`warning: ${c.message}`));
  // Could not judge: neither a pass nor a finding against the implementation.
  else if (c.status === 'incomplete')
    tc.ele('error', attrs({ message: `incomplete: ${c.message.split('\n')[0] ?? ''}` })).txt(xmlText(c.message));
}

const tally = (checks: readonly CheckResult[]): Attributes => ({
  tests: String(checks.length),
  failures: String(checks.filter((c) => c.status === 'failed').length),
  errors: String(checks.filter((c) => c.status === 'incomplete').length),
  skipped: String(checks.filter(unrun).length),
});

/**
 * The snapshot by commit: `snapshot`, `snapshot.commit`, `snapshot.digest` (and what the
 * claim asked for when the runner resolved it). Results of version 1 recorded a bare name
 * and rendered only `snapshot`: rendered the same, so `verify` still checks old folders.
 */
function snapshotProperties(s: SnapshotSummary | string): [string, string][] {
  if (typeof s === 'string') return [['snapshot', s]];
  return [
    ['snapshot', s.id],
    ...(s.commit ? ([['snapshot.commit', s.commit]] as [string, string][]) : []),
    ...(s.schemaDigest ? ([['snapshot.digest', s.schemaDigest]] as [string, string][]) : []),
    ...(s.requested !== s.id ? ([['snapshot.requested', s.requested]] as [string, string][]) : []),
  ];
}

export function junitXml(r: ClaimResults): string {
  const name = `${r.claim.implementation.name} ${r.claim.implementation.version}`;
  // How many of the checks the claim needs ran (a partial run says so; results of earlier
  // versions record no coverage and render as they did, so `verify` still checks them).
  const ran = (prefix: string, c: Coverage | undefined): [string, string][] =>
    c
      ? [
          [`${prefix}ran`, String(c.ran)],
          [`${prefix}needed`, String(c.needed)],
        ]
      : [];
  const common: [string, string][] = [
    ['claimVerdict', r.verdict],
    ...ran('claimChecks.', r.coverage),
    ...snapshotProperties(r.claim.snapshot),
  ];
  // Results without targets (an incomplete claim that launched nothing): one suite for the claim.
  const suites: {
    label?: string;
    target?: TargetKey;
    verdict: string;
    coverage?: Coverage;
    checks: CheckResult[];
  }[] =
    r.targets.length === 0
      ? [{ verdict: r.verdict, checks: r.checks }]
      : r.targets.map((t) => ({
          label: targetLabel(t),
          target: t,
          verdict: t.verdict,
          ...(t.coverage ? { coverage: t.coverage } : {}),
          checks: r.checks.filter((c) => targetKey(c) === targetKey(t)),
        }));
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele('testsuites', attrs({ name: `ahp-conformance: ${name}`, ...tally(r.checks) }));
  for (const s of suites) {
    const suite = root.ele('testsuite', attrs({ name: s.label ? `${name} ${s.label}` : name, ...tally(s.checks) }));
    properties(suite, [
      ['verdict', s.verdict],
      ...ran('checks.', s.coverage),
      ...common,
      ...(s.target
        ? ([
            ['role', s.target.role],
            ['transport', s.target.transport],
            ...(s.target.lifecycle ? [['lifecycle', s.target.lifecycle]] : []),
          ] as [string, string][])
        : []),
    ]);
    for (const c of s.checks) testcase(suite, c);
  }
  // wellFormed: the serializer itself refuses anything that would not be well-formed XML
  // (it cannot happen with the strings made safe above; a bug would throw, never write bad XML).
  return `${doc.end({ prettyPrint: true, wellFormed: true })}\n`;
}
