// JUnit XML view of a claim's results: one testsuite per target (role, transport,
// lifecycle) with its own verdict, one testcase per check, requirement ids as properties.
import { targetKey, targetLabel, type CheckResult, type ClaimResults, type TargetKey } from './model.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string)
    // XML 1.0 cannot carry most control characters; show them escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const prop = (name: string, value: string): string => `<property name="${name}" value="${esc(value)}"/>`;

function testcase(c: CheckResult): string {
  const where = [c.transport, c.lifecycle].filter(Boolean).join('/');
  const props = [
    ...c.requirements.map((req) => prop('requirement', req)),
    prop('level', c.level),
    prop('status', c.status),
  ].join('');
  const body = c.status === 'failed' ? `<failure message="${esc(c.message.split('\n')[0] ?? '')}">${esc(c.message)}</failure>`
    : c.status === 'skipped' || c.status === 'not-applicable' ? `<skipped message="${esc(`${c.status}: ${c.message}`)}"/>`
    : c.status === 'warning' ? `<system-out>${esc(`warning: ${c.message}`)}</system-out>` : '';
  return `    <testcase classname="${esc(`${c.profile}.${c.role}.${where}`)}" name="${esc(`${c.id}: ${c.title}`)}" time="${(c.durationMs / 1000).toFixed(3)}"><properties>${props}</properties>${body}</testcase>`;
}

const tally = (checks: readonly CheckResult[]): string =>
  `tests="${checks.length}" failures="${checks.filter((c) => c.status === 'failed').length}" ` +
  `skipped="${checks.filter((c) => c.status === 'skipped' || c.status === 'not-applicable').length}"`;

export function junitXml(r: ClaimResults): string {
  const name = `${r.claim.implementation.name} ${r.claim.implementation.version}`;
  const common = [prop('claimVerdict', r.verdict), prop('snapshot', r.claim.snapshot)];
  // Results without targets (an incomplete claim that launched nothing): one suite for the claim.
  const suites: { label?: string; target?: TargetKey; verdict: string; checks: CheckResult[] }[] = r.targets.length === 0
    ? [{ verdict: r.verdict, checks: r.checks }]
    : r.targets.map((t) => ({ label: targetLabel(t), target: t, verdict: t.verdict, checks: r.checks.filter((c) => targetKey(c) === targetKey(t)) }));
  const body = suites.flatMap((s) => [
    `  <testsuite name="${esc(s.label ? `${name} ${s.label}` : name)}" ${tally(s.checks)}>`,
    `    <properties>${[
      prop('verdict', s.verdict), ...common,
      ...(s.target ? [prop('role', s.target.role), prop('transport', s.target.transport), ...(s.target.lifecycle ? [prop('lifecycle', s.target.lifecycle)] : [])] : []),
    ].join('')}</properties>`,
    ...s.checks.map(testcase),
    '  </testsuite>',
  ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(`ahp-conformance: ${name}`)}" ${tally(r.checks)}>`,
    ...body,
    '</testsuites>',
    '',
  ].join('\n');
}
