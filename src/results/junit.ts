// JUnit XML view of a claim's results: one testcase per check, requirement ids as properties.
import type { ClaimResults } from './model.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string)
    // XML 1.0 cannot carry most control characters; show them escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function junitXml(r: ClaimResults): string {
  const cases = r.checks.map((c) => {
    const where = [c.transport, c.lifecycle].filter(Boolean).join('/');
    const props = [
      ...c.requirements.map((req) => `<property name="requirement" value="${esc(req)}"/>`),
      `<property name="level" value="${c.level}"/>`,
      `<property name="status" value="${c.status}"/>`,
    ].join('');
    const body = c.status === 'failed' ? `<failure message="${esc(c.message.split('\n')[0] ?? '')}">${esc(c.message)}</failure>`
      : c.status === 'skipped' || c.status === 'not-applicable' ? `<skipped message="${esc(`${c.status}: ${c.message}`)}"/>`
      : c.status === 'warning' ? `<system-out>${esc(`warning: ${c.message}`)}</system-out>` : '';
    return `    <testcase classname="${esc(`${c.profile}.${c.role}.${where}`)}" name="${esc(`${c.id}: ${c.title}`)}" time="${(c.durationMs / 1000).toFixed(3)}"><properties>${props}</properties>${body}</testcase>`;
  });
  const failures = r.checks.filter((c) => c.status === 'failed').length;
  const skipped = r.checks.filter((c) => c.status === 'skipped' || c.status === 'not-applicable').length;
  const name = `${r.claim.implementation.name} ${r.claim.implementation.version}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(`ahp-conformance: ${name}`)}" tests="${r.checks.length}" failures="${failures}" skipped="${skipped}">`,
    `  <testsuite name="${esc(name)}" tests="${r.checks.length}" failures="${failures}" skipped="${skipped}">`,
    `    <properties><property name="verdict" value="${r.verdict}"/><property name="snapshot" value="${esc(r.claim.snapshot)}"/></properties>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
