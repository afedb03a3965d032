// What the reports say about the run itself (issue 12): certification or not, duration,
// environment, claim digest; requirements n/a for a target; an expired expected failure
// once; a rerun command with relative paths and --reports; matrix cells with counts that
// tell n/a, not claimed and not run apart, a missing shard's reason; and where a partial
// run writes so that it never replaces a full report.
import { test, expect } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClaimResults } from '../../src/results/model.js';
import { claimPage, rerunCommand } from '../../src/results/html/claim-page.js';
import { matrixPage } from '../../src/results/html/matrix-page.js';
import { applyExpectedFailures, parseExpectedFailures } from '../../src/results/expected-failures.js';
import { compareRuns } from '../../src/results/baseline.js';
import { mergeCoverage, recordedClaimPath, runMetadata, shardKey } from '../../src/results/run-record.js';
import { junitXml } from '../../src/results/junit.js';
import { stableJson } from '../../src/results/model.js';
import { verifyClaimFolder } from '../../src/results/verify.js';
import { resultsDigest } from '../../src/results/write.js';
import { RESULTS_DIGEST_META } from '../../src/results/html/claim-page.js';
import { snapshotBanner } from '../../src/results/html/claim-page.js';
import { requestedSnapshot, snapshotSummary } from '../../src/results/snapshot.js';
import { snapshotOf } from '../../src/protocol/snapshots.js';
import { summaryLine } from '../../src/cli/acceptance.js';
import { earlierReports, PARTIAL_FOLDER, viewsFolder } from '../../src/cli/report-layout.js';
import { resultsWith, stdioClaimResults } from '../support/results-fixture.js';
import { tempFolders } from '../support/temp.js';

const workspace = tempFolders('ahp-views-');

/** A backend stdio claim of tool-interception: every planned check passed, except those left out. */
const stdioResults = (leaveOut?: (id: string) => boolean, failed: string[] = []): ClaimResults =>
  stdioClaimResults({
    file: 'claims/acme.yaml',
    ...(leaveOut ? { leaveOut } : {}),
    failed,
    digest: 'ab'.repeat(32),
    run: {
      startedAt: '2026-01-01T00:00:00Z',
      durationMs: 185_000,
      environment: { node: '20.1.0', platform: 'linux', arch: 'x64', playwright: '1.65.1' },
    },
  });

const row = (html: string, id: string): string =>
  new RegExp(`<tr data-req="${id}"[^>]*>.*?</tr>`, 's').exec(html)?.[0] ?? '';

test('requirements of a binding or profile the target does not claim are n/a, not "not covered"', () => {
  const html = claimPage(stdioResults());
  // An HTTP requirement for a stdio-only target.
  expect(row(html, 'AHP-AUTH-001')).toContain('n/a');
  expect(row(html, 'AHP-AUTH-001')).not.toContain('not covered');
  // Tool-interception requirements for a claim of lifecycle-observation only.
  const lo = { ...stdioResults(), claim: { ...stdioResults().claim, profiles: ['lifecycle-observation'] } };
  expect(row(claimPage(lo), 'AHP-DEC-002')).toContain('n/a');
  expect(row(html, 'AHP-DEC-002')).toContain('s-passed');
});

test('the report says whether the run was a certification, how long it took, where, and over which claim', () => {
  const r = stdioResults();
  const dev = claimPage({ ...r, run: { ...r.run, certification: false } });
  expect(dev).toContain('<b>Not a certification</b> (run without --certify)');
  expect(dev).toContain('ran 3 min 5 s');
  expect(claimPage({ ...r, run: { durationMs: 12_345 } })).toContain('ran 12.3 s');
  expect(dev).toContain('Node 20.1.0 · linux/x64 · Playwright 1.65.1');
  expect(dev).toContain(`sha256 <code>${'ab'.repeat(32)}</code>`);
  const cert = claimPage({ ...r, run: { ...r.run, certification: true } });
  expect(cert).toContain('<b>Certification run</b> (--certify)');
  const partial = claimPage({ ...r, run: { ...r.run, certification: false, selection: { grep: 'x' } } });
  expect(partial).toContain('only some checks ran (--grep)');
  const judged = claimPage({
    ...r,
    run: { certification: false },
    judgement: { accepted: true, baseline: { file: 'b', newFailures: [], excused: [], fixed: 0, stillFailing: 0 } },
  });
  expect(judged).toContain('judged against a baseline) · as judged, the run passed');
});

test('the rerun command names the claim as recorded, relative, and keeps --reports', () => {
  const r = stdioResults();
  const cmd = rerunCommand(r, r.checks[0]!, 'out/reports');
  expect(cmd).toMatch(/^ahp-conformance run 'claims\/acme\.yaml' --grep '.*' --reports 'out\/reports'$/);
  expect(claimPage(r, {}, undefined, { reportsArg: 'out/reports' })).toContain('--reports &#39;out/reports&#39;');
  expect(recordedClaimPath('/home/v/work', '/home/v/work/claims/a.yaml')).toBe('claims/a.yaml');
  expect(recordedClaimPath('/home/v/work', '/home/v/other/a.yaml')).toBe('../other/a.yaml');
});

test('an expired expected failure that still matched is listed once, as expired', () => {
  const now = resultsWith({ 'ti.deny-stops': 'failed', 'base.harness-version': 'passed' });
  const entries = parseExpectedFailures(
    'expected:\n  - { check: ti.deny-stops, reason: "known", expires: 2020-01-01 }\n',
    'x.yaml',
  );
  const html = claimPage(now, { expected: applyExpectedFailures(now, entries, '2026-01-01') });
  const table = html.slice(
    html.indexOf('<table class="expected">'),
    html.indexOf('</table>', html.indexOf('<table class="expected">')),
  );
  expect(table.match(/<tr><td><code>ti\.deny-stops<\/code>/g)).toHaveLength(1);
  expect(table).toContain('s-expired');
  expect(html).toContain('0 matched, 0 unexpected, 1 expired, 0 no longer failing');
});

test('with a baseline and expected failures, a new failure on the list is shown as not counted', () => {
  const before = resultsWith({ 'ti.deny-stops': 'passed' });
  const now = resultsWith({ 'ti.deny-stops': 'failed' });
  const entries = parseExpectedFailures('expected:\n  - { check: ti.deny-stops, reason: known }\n', 'x.yaml');
  const html = claimPage(now, {
    regression: { baseline: 'last', changes: compareRuns(before, now) },
    expected: applyExpectedFailures(now, entries, '2026-01-01'),
  });
  expect(html).toContain('(1 of the new failures on the expected-failures list, so not counted)');
  expect(html).toContain('on the expected-failures list: not counted');
});

test('matrix cells carry counts and links, and tell n/a, not claimed and not run apart', () => {
  const r = stdioResults((id) => id.startsWith('stdio.'), ['ti.deny-samples']);
  const html = matrixPage([r], ['acme'], '2026-01-01T00:00:00Z', { playwrightHref: 'acme/playwright/index.html' });
  const cells = [...html.matchAll(/<td class="c[^"]*" data-cell="([^"]+)">(.*?)<\/td>/gs)].map((m) => [m[1], m[2]]);
  // base, tool-interception, lifecycle-observation, stdio, http
  expect(cells.map((c) => c[0])).toEqual(['passed', 'failed', 'not-claimed', 'not-run', 'n-a']);
  expect(cells[0]![1]).toMatch(/\d+ passed/);
  expect(cells[1]![1]).toMatch(/1 failed · \d+ passed/);
  expect(cells[3]![1]).toContain('not run');
  expect(cells[4]![1]).toBe('n/a');
  expect(html).toContain('href="acme/index.html?profile=tool-interception&amp;transport=stdio#checks"');
  expect(html).toContain('id="link-playwright" href="acme/playwright/index.html"');
});

test('a target of a merge with a shard missing shows its reason, and no cell of it is green', () => {
  const full = stdioResults();
  const reason = 'shard 2/2 missing from the merge (merged: 1/2)';
  const half = stdioResults((id) => id.startsWith('ti.') && id > 'ti.m');
  const merged: ClaimResults = {
    ...half,
    verdict: 'incomplete',
    reason,
    targets: half.targets.map((t) => ({ ...t, verdict: 'incomplete', reason })),
  };
  const html = matrixPage([merged], ['acme'], '2026-01-01T00:00:00Z');
  expect(html).toContain(`<div class="muted reason">${reason}</div>`);
  expect(html).toMatch(/data-cell="passed"><a [^>]*><span class="s s-incomplete">not all run/);
  expect(matrixPage([full], ['acme'], 'x')).not.toContain('s-incomplete">not all run');
});

test('a partial run writes beside a full report, never over it; earlier reports are found apart', () => {
  const root = workspace();
  const write = (name: string, r: ClaimResults): void => {
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, 'results.json'), JSON.stringify(r));
  };
  // No report yet, or only a partial one: a partial run writes in place.
  expect(viewsFolder(root, ['acme'], true)).toBe(root);
  write('acme', { ...stdioResults(), run: { selection: { grep: 'x' } } });
  expect(viewsFolder(root, ['acme'], true)).toBe(root);
  // A full report of one of its claims is in the way: the partial run goes to partial/.
  write('acme', stdioResults());
  expect(viewsFolder(root, ['acme'], true)).toBe(join(root, PARTIAL_FOLDER));
  expect(viewsFolder(root, ['acme'], false)).toBe(root);
  expect(viewsFolder(root, ['other'], true)).toBe(root);
  // Another implementation's folder is an earlier report; junk is not.
  write('older', {
    ...stdioResults(),
    claim: { ...stdioResults().claim, implementation: { name: 'older', version: '0.9' } },
  });
  mkdirSync(join(root, 'junk'));
  writeFileSync(join(root, 'junk', 'results.json'), '{"not":"ours"}');
  expect(earlierReports(root, [{ dir: join(root, 'acme') }]).map((e) => [e.name, e.version, e.dir])).toEqual([
    ['older', '0.9', 'older'],
  ]);
});

// ---------------------------------------------------------------- the snapshot, by commit (issue 13)

const COMMIT_OLD = '2b5da5809b9b638d4c368e39818ee8f3c19263dc';
const COMMIT_NEW = '1d98c19bf4558d998ef8af32b2ac54f604899c20';

test('JUnit names the snapshot by commit and schema digest, and what the claim asked for', () => {
  const pinned = junitXml(stdioClaimResults({ snapshot: 'draft@2b5da580' }));
  expect(pinned).toContain('<property name="snapshot" value="draft@2b5da580"/>');
  expect(pinned).toContain(`<property name="snapshot.commit" value="${COMMIT_OLD}"/>`);
  expect(pinned).toContain(`<property name="snapshot.digest" value="${snapshotOf('draft@2b5da580').schemaDigest}"/>`);
  expect(pinned).not.toContain('snapshot.requested');
  const plain = junitXml(stdioClaimResults({ snapshot: 'draft@1d98c19', requested: 'draft' }));
  expect(plain).toContain(`<property name="snapshot.commit" value="${COMMIT_NEW}"/>`);
  expect(plain).toContain('<property name="snapshot.requested" value="draft"/>');
  // Results of version 1 render as they did, so `verify` still checks folders written then.
  const v1 = { ...stdioClaimResults(), claim: { ...stdioClaimResults().claim, snapshot: 'draft' } };
  expect(junitXml(v1 as unknown as ClaimResults)).toContain('<property name="snapshot" value="draft"/>');
});

test('the claim page banner: "judged by" a pinned snapshot, "draft resolved to" for plain draft', () => {
  const pinned = claimPage(stdioClaimResults({ snapshot: 'draft@2b5da580' }));
  expect(pinned).toContain(
    `AHP: judged by draft@2b5da580 (upstream commit ${COMMIT_OLD}, schema digest ${snapshotOf('draft@2b5da580').schemaDigest})`,
  );
  const plain = claimPage(stdioClaimResults({ snapshot: 'draft@1d98c19', requested: 'draft' }));
  expect(plain).toContain(`AHP: draft resolved to draft@1d98c19 (upstream commit ${COMMIT_NEW}, schema digest`);
  const cert = claimPage({ ...stdioClaimResults({ snapshot: 'draft@1d98c19' }), run: { certification: true } });
  expect(cert).toContain('<b>Certification run</b> (--certify) by draft@1d98c19');
  expect(snapshotBanner(requestedSnapshot('draft@ffffff0'))).toBe(
    'judged by no snapshot (the claim asked for "draft@ffffff0", which this runner does not know)',
  );
});

test('requirement texts of a snapshot that borrows them are marked as the other snapshot’s, never its own', () => {
  const borrowed = claimPage(stdioClaimResults({ snapshot: 'draft@1d98c19' }));
  expect(borrowed).toContain('id="requirements-borrowed"');
  expect(row(borrowed, 'AHP-DEC-002')).toContain('from draft@2b5da580 (draft@1d98c19 publishes none)');
  const own = claimPage(stdioClaimResults({ snapshot: 'draft@2b5da580' }));
  expect(own).not.toContain('requirements-borrowed');
  expect(row(own, 'AHP-DEC-002')).not.toContain('publishes none');
});

test('the matrix page shows the four reference claims of both snapshots together, each naming its own', () => {
  // What `npm run conformance` certifies: claims/reference-*.yaml, two per snapshot.
  const claims = [
    stdioClaimResults({ name: 'reference-backend', snapshot: 'draft@2b5da580' }),
    stdioClaimResults({ name: 'reference-backend-1d98c19', snapshot: 'draft@1d98c19' }),
    stdioClaimResults({ name: 'reference-harness', snapshot: 'draft@2b5da580' }),
    stdioClaimResults({ name: 'reference-harness-1d98c19', snapshot: 'draft@1d98c19', requested: 'draft' }),
  ];
  const html = matrixPage(
    claims,
    claims.map((c) => c.claim.implementation.name),
    '2026-01-01T00:00:00Z',
  );
  expect(html).toContain('<th>Snapshot</th>');
  expect([...html.matchAll(/data-snapshot="([^"]+)"/g)].map((m) => m[1])).toEqual([
    'draft@2b5da580',
    'draft@1d98c19',
    'draft@2b5da580',
    'draft@1d98c19',
  ]);
  expect(html.match(/the claim said draft/g)).toHaveLength(1);
  expect(html).toContain(`Judged by 2 snapshots: draft@2b5da580 (upstream commit ${COMMIT_OLD}`);
  expect(html).toContain(`draft@1d98c19 (upstream commit ${COMMIT_NEW}`);
  const one = matrixPage([claims[0]!], ['reference-backend'], 'x');
  expect(one).toContain(`Judged by draft@2b5da580 (upstream commit ${COMMIT_OLD}`);
});

test('a claim incomplete before it resolved records the snapshot it asked for, or unknown', () => {
  expect(requestedSnapshot('draft@1d98c19')).toEqual(snapshotSummary('draft@1d98c19', 'draft@1d98c19'));
  expect(requestedSnapshot('draft')).toMatchObject({ id: 'draft@1d98c19', requested: 'draft' });
  expect(requestedSnapshot('draft@zzz')).toEqual({ id: 'unknown', requested: 'draft@zzz' });
  expect(requestedSnapshot(undefined)).toEqual({ id: 'unknown', requested: 'unknown' });
  expect(
    summaryLine(
      { ...stdioClaimResults(), claim: { ...stdioClaimResults().claim, snapshot: requestedSnapshot(undefined) } },
      'r',
    ),
  ).toContain(', judged by snapshot unknown -> r');
});

test('merge refuses shards that judged a claim by different snapshots, in one line', () => {
  const plan = {
    runnerVersion: '0',
    digest: 'p',
    claims: [{ claim: stdioClaimResults().claim, targets: [], digest: 'c' }],
  };
  const metadata = {
    ...runMetadata(plan, { current: 1, total: 2 }),
    [shardKey(2, 2)]: { plan: 'q', snapshots: ['draft@1d98c19'] },
  };
  const coverage = mergeCoverage(metadata);
  expect(coverage).toEqual({
    kind: 'error',
    message:
      'the shards judged acme by different snapshots (shard 1/2 by draft@2b5da580; shard 2/2 by draft@1d98c19); merge shards of one run only',
  });
  // Shards that agree merge as before.
  const agree = { ...runMetadata(plan, { current: 1, total: 2 }), ...runMetadata(plan, { current: 2, total: 2 }) };
  expect(mergeCoverage(agree)).toMatchObject({ kind: 'ok', present: [1, 2], missing: [] });
});

test('verify still checks a report folder written with results version 1 (snapshot "draft"), read as draft@2b5da580', () => {
  const dir = workspace();
  const now = stdioClaimResults();
  const v1 = { ...now, schemaVersion: 1, claim: { ...now.claim, snapshot: 'draft' } } as unknown as ClaimResults;
  // What a version 1 run left: its results.json, the JUnit it rendered, a page recording the digest.
  const json = stableJson(v1);
  writeFileSync(join(dir, 'results.json'), json);
  writeFileSync(join(dir, 'junit.xml'), junitXml(v1));
  writeFileSync(join(dir, 'index.html'), `<meta name="${RESULTS_DIGEST_META}" content="${resultsDigest(json)}">`);
  const v = verifyClaimFolder(dir);
  expect(v.problems).toEqual([]);
  expect(v.snapshot).toBe('draft@2b5da580');
  expect(claimPage(now)).toContain('<tr><th>Snapshot</th><td>judged by draft@2b5da580 (upstream commit');
});
