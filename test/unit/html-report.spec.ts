// The HTML conformance report and matrix page, rendered from results alone: every string
// from the implementation is escaped, the page loads nothing and runs only our script,
// every draft requirement is visible (covered or not), and each check has a rerun command.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKS } from '../../src/checks/catalogue.js';
import { REQUIREMENTS } from '../../src/checks/requirements.js';
import { buildClaimResults, type CheckResult, type ClaimResults } from '../../src/results/model.js';
import { claimPage, rerunCommand } from '../../src/results/html/claim-page.js';
import { matrixPage } from '../../src/results/html/matrix-page.js';
import { HAVE_SPEC, SPEC_DIR } from '../support/paths.js';
import { resultsWith, stdioClaimResults } from '../support/results-fixture.js';
import { compareRuns } from '../../src/results/baseline.js';
import { applyExpectedFailures, parseExpectedFailures } from '../../src/results/expected-failures.js';
import { snapshotSummary } from '../../src/results/snapshot.js';

const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert(2)">'"\`&`;

function results(): ClaimResults {
  const base = { level: 'MUST' as const, role: 'harness' as const, transport: 'http' as const, durationMs: 5 };
  const checks: CheckResult[] = [
    {
      ...base,
      id: 'ti.deny-stops',
      title: 'A valid deny stops the chain and the tool',
      profile: 'tool-interception',
      requirements: ['AHP-DEC-002', 'AHP-COMP-001'],
      status: 'failed',
      message: `the tool ran; reason ${HOSTILE}`,
      evidence: { sent: { reason: HOSTILE }, received: HOSTILE, expected: HOSTILE },
      transcript: [
        {
          t: 1,
          at: '2026-01-01T00:00:00Z',
          dir: 'recv',
          channel: 'http',
          text: HOSTILE,
          http: { headers: { 'x-evil': HOSTILE } },
          note: HOSTILE,
        },
      ],
    },
    {
      ...base,
      id: 'base.harness-version',
      title: 'Every request carries protocolVersion',
      profile: 'base',
      requirements: ['AHP-VER-001'],
      status: 'passed',
      message: '',
    },
  ];
  return buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00Z',
    claim: {
      file: `/claims/${HOSTILE}.yaml`,
      implementation: { name: `evil${HOSTILE}`, version: HOSTILE },
      snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
      role: 'harness',
      transports: ['http'],
      profiles: ['tool-interception'],
    },
    targets: [{ role: 'harness', transport: 'http' }],
    checks,
  });
}

/** Every <script ...> opening tag in the page, and the page without our own script. */
const scripts = (html: string): string[] => html.match(/<script\b[^>]*>/gi) ?? [];

test('hostile strings from the implementation are text, never markup', () => {
  for (const html of [claimPage(results()), matrixPage([results()], ['evil'], '2026-01-01T00:00:00Z')]) {
    expect(scripts(html).length).toBeLessThanOrEqual(1); // at most our own filter script
    expect(html).not.toContain('<img');
    expect(html).not.toContain('onerror="');
    expect(html).not.toContain('alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  }
});

test('the page allows no network and only its own script, by hash', () => {
  const html = claimPage(results());
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
});

test('every draft requirement of the role is in the matrix, uncovered ones marked', () => {
  const html = claimPage(results());
  for (const q of REQUIREMENTS.filter((r) => r.roles.includes('harness'))) expect(html).toContain(`data-req="${q.id}"`);
  const row = (id: string): string => new RegExp(`<tr data-req="${id}"[^>]*>.*?</tr>`, 's').exec(html)?.[0] ?? '';
  // Every harness requirement now has a check (AHP-AUTH-001 since issue 15): "not covered" has no real row to show.
  expect(row('AHP-AUTH-001')).toContain('not run');
  expect(row('AHP-CORE-001')).toContain('checked elsewhere');
  expect(row('AHP-DEC-002')).toContain('s-failed');
  expect(row('AHP-FAIL-002')).toContain('not run'); // its checks exist but were not in these results
});

test('a requirement whose checks of the role judge other targets only is n/a there, not "not covered"', () => {
  const html = claimPage(stdioClaimResults());
  const row = (id: string): string => new RegExp(`<tr data-req="${id}"[^>]*>.*?</tr>`, 's').exec(html)?.[0] ?? '';
  // A backend's AHP-SEC-001 is judged by an HTTP check (credentials echoed in replies).
  expect(row('AHP-SEC-001')).toContain('n/a');
  expect(row('AHP-SEC-001')).toContain('base.no-secret-leak');
  expect(row('AHP-SEC-001')).not.toContain('not covered');
  // A requirement the stdio target's checks judge keeps its status.
  expect(row('AHP-RPC-001')).toContain('s-passed');
});

test('the rerun command selects exactly that check of that target', () => {
  const r = results();
  const c = r.checks.find((x) => x.id === 'ti.deny-stops')!;
  const cmd = rerunCommand(r, c);
  const grep = /--grep '((?:[^']|'\\'')*)'$/.exec(cmd)![1]!.replaceAll(`'\\''`, `'`);
  const re = new RegExp(grep);
  // Playwright matches --grep against "<project> <file> <describe> <title>".
  const project = `${r.claim.implementation.name}:harness:http`;
  expect(
    re.test(
      `${project} suites/harness/tool-interception.spec.ts tool-interception (harness) ti.deny-stops: A valid deny stops the chain and the tool`,
    ),
  ).toBe(true);
  expect(
    re.test(
      `${project} suites/harness/tool-interception.spec.ts tool-interception (harness) ti.deadline: Deadlines are enforced`,
    ),
  ).toBe(false);
  expect(
    re.test(
      `${r.claim.implementation.name}:harness:stdio:persistent suites/harness/tool-interception.spec.ts x ti.deny-stops: A valid deny`,
    ),
  ).toBe(false);
});

test("every requirement id the checks name is described, and (with the snapshot) the list is the snapshot's", () => {
  const known = new Set(REQUIREMENTS.map((r) => r.id));
  expect(CHECKS.flatMap((c) => c.requirements).filter((id) => !known.has(id))).toEqual([]);
  test.skip(!HAVE_SPEC, 'no upstream snapshot beside this checkout');
  const upstream = JSON.parse(readFileSync(join(SPEC_DIR, 'spec', 'draft', 'requirements.json'), 'utf8')) as {
    requirements: { id: string }[];
  };
  expect([...known].sort()).toEqual(upstream.requirements.map((r) => r.id).sort());
});

test('a judged run shows its baseline comparison and expected failures, escaped, beside the verdict', () => {
  const before = resultsWith({
    'ti.deny-stops': 'passed',
    'ti.modify-input': 'failed',
    'base.harness-version': 'failed',
    'lo.gone': 'passed',
  });
  const now = resultsWith({
    'ti.deny-stops': 'failed',
    'ti.modify-input': 'failed',
    'base.harness-version': 'passed',
    'lo.new': 'passed',
  });
  const entries = parseExpectedFailures(
    `expected:\n  - { check: ti.modify-input, reason: "${HOSTILE.replace(/"/g, '\\"')}", expires: 2099-01-01 }\n  - { check: base.harness-version, reason: fixed already }\n`,
    'x.yaml',
  );
  const html = claimPage(now, {
    regression: { baseline: 'last-night', changes: compareRuns(before, now) },
    expected: applyExpectedFailures(now, entries, '2026-01-01'),
  });
  const section = html.slice(html.indexOf('id="baseline"'), html.indexOf('<h2>What was claimed'));
  expect(section).toContain('1 new failure, 1 fixed, 1 still failing, 1 new check, 1 removed');
  expect(section).toMatch(/data-change="new-failure"><td><code>ti\.deny-stops<\/code><\/td><td>backend\/http<\/td>/);
  expect(section).not.toContain('data-change="unchanged"');
  expect(section).toContain('1 matched, 1 unexpected, 0 expired, 1 no longer failing');
  expect(section).toContain('no longer failing');
  // The reason comes from a user's file: text, not markup, in the section and on the check.
  expect(html).not.toContain('<img');
  expect(html).toContain('<b>Expected failure:</b> &lt;script&gt;');
  // Unjudged, the report has neither section.
  expect(claimPage(now)).not.toContain('id="baseline"');
  expect(claimPage(now)).not.toContain('id="expected"');
});

test('the banner and the matrix name the failing checks', () => {
  const r = resultsWith({ 'ti.deny-stops': 'failed', 'base.harness-version': 'passed' });
  expect(claimPage(r)).toContain('<p>Failed: <b>ti.deny-stops</b> (backend/http)</p>');
  expect(claimPage(resultsWith({ 'base.harness-version': 'passed' }))).not.toContain('<p>Failed:');
  const cells = matrixPage([r], ['acme'], '2026-01-01T00:00:00Z');
  expect(cells).toContain('<div class="muted"><code>ti.deny-stops</code></div>');
  expect(cells).not.toContain('<code>base.harness-version</code>');
});
