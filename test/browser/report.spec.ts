// The generated conformance report in a real browser (Debian's Chromium, headless): the
// banner and matrix render, filters and expanders work, nothing leaves the file, and a
// hostile implementation's strings stay text (no dialog, no injected element).
import { test, expect, chromium, type Browser } from '@playwright/test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClaimResults, type CheckResult } from '../../src/results/model.js';
import { claimPage } from '../../src/results/html/claim-page.js';
import { matrixPage } from '../../src/results/html/matrix-page.js';
import { snapshotSummary } from '../../src/results/snapshot.js';

const CHROMIUM = process.env.AHP_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const HOSTILE = `<script>window.__pwned=1;alert(1)</script><img src="http://127.0.0.1:9/x.png" onerror="window.__pwned=2">`;

test.skip(!existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (.ci/run installs the Debian package)`);

let browser: Browser;
let dir: string;
test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  dir = mkdtempSync(join(tmpdir(), 'ahp-browser-'));
  const base = { level: 'MUST' as const, role: 'backend' as const, durationMs: 3 };
  const checks: CheckResult[] = [
    {
      ...base,
      transport: 'stdio',
      lifecycle: 'persistent',
      id: 'ti.deny-samples',
      title: 'deny samples',
      profile: 'tool-interception',
      requirements: ['AHP-DEC-001'],
      status: 'failed',
      message: `deny reason was ${HOSTILE}`,
      evidence: { received: { reason: HOSTILE } },
      transcript: [{ t: 0, at: '2026-01-01T00:00:00Z', dir: 'stderr', channel: 'stdio', text: HOSTILE }],
    },
    {
      ...base,
      transport: 'stdio',
      lifecycle: 'persistent',
      id: 'base.protocol-version',
      title: 'version',
      profile: 'base',
      requirements: ['AHP-VER-001'],
      status: 'passed',
      message: '',
    },
    {
      ...base,
      transport: 'http',
      id: 'http.observe-empty',
      title: 'observe',
      profile: 'http',
      requirements: ['AHP-HTTP-001'],
      status: 'passed',
      message: '',
    },
  ];
  const results = buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00Z',
    claim: {
      file: '/claims/evil.yaml',
      implementation: { name: 'evil', version: HOSTILE },
      snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
      role: 'backend',
      transports: ['stdio', 'http'],
      profiles: ['tool-interception'],
    },
    targets: [
      { role: 'backend', transport: 'http' },
      { role: 'backend', transport: 'stdio', lifecycle: 'persistent' },
    ],
    checks,
  });
  writeFileSync(join(dir, 'report.html'), claimPage(results));
  writeFileSync(join(dir, 'matrix.html'), matrixPage([results], ['evil'], '2026-01-01T00:00:00Z'));

  // A reports folder as `run` writes it for two claims: the matrix page and each claim's report.
  const good = buildClaimResults({
    runnerVersion: '0.0.0',
    generatedAt: '2026-01-01T00:00:00Z',
    claim: {
      file: '/claims/good.yaml',
      implementation: { name: 'good backend', version: '2.0' },
      snapshot: snapshotSummary('draft@2b5da580', 'draft@2b5da580'),
      role: 'backend',
      transports: ['http'],
      profiles: ['tool-interception'],
    },
    targets: [{ role: 'backend', transport: 'http' }],
    checks: checks.filter((c) => c.transport === 'http'),
  });
  const site = join(dir, 'site');
  for (const [name, r] of [
    ['evil', results],
    ['good backend', good],
  ] as const) {
    mkdirSync(join(site, name), { recursive: true });
    writeFileSync(join(site, name, 'index.html'), claimPage(r));
  }
  writeFileSync(
    join(site, 'index.html'),
    matrixPage([results, good], ['evil', 'good backend'], '2026-01-01T00:00:00Z'),
  );
});
test.afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(file: string) {
  const page = await browser.newPage();
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file://')) requests.push(r.url());
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`file://${join(dir, file)}`);
  return { page, requests, dialogs };
}

test('the report renders its banner, targets and requirement matrix', async () => {
  const { page } = await open('report.html');
  await expect(page.locator('#verdict h1')).toContainText('nonconformant');
  // Every requirement now has checks; one whose checks are not in these results says so.
  await expect(page.locator('table.matrix tr[data-req="AHP-AUTH-001"]')).toContainText('not run');
  await expect(page.locator('details.check')).toHaveCount(3);
  await page.close();
});

test('filters and expanders work', async () => {
  const { page } = await open('report.html');
  const failed = page.locator('details.check[data-status="failed"]');
  await expect(failed).toHaveAttribute('open', '');
  const passed = page.locator('details.check[data-status="passed"]').first();
  await expect(passed).not.toHaveAttribute('open', '');
  await passed.locator('summary').click();
  await expect(passed).toHaveAttribute('open', '');
  await page.locator('#filters [name=failed]').check();
  await expect(page.locator('details.check:visible')).toHaveCount(1);
  await page.locator('#filters [name=failed]').uncheck();
  await page.locator('#filters [name=transport]').selectOption('http');
  await expect(page.locator('details.check:visible')).toHaveCount(1);
  await expect(page.locator('#shown')).toHaveText('1');
  await page.close();
});

test('hostile strings stay text: no dialog, no injected element, no request leaves the file', async () => {
  for (const file of ['report.html', 'matrix.html']) {
    const { page, requests, dialogs } = await open(file);
    await page.locator('details').evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await page.waitForTimeout(200); // give an injected handler its chance (there must be none)
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBeLessThanOrEqual(1);
    if (file === 'report.html') await expect(page.locator('body')).toContainText('<img src="http://127.0.0.1:9/x.png"');
    await page.close();
  }
});

test('the matrix page shows each implementation and target, and links to each report', async () => {
  const { page, requests } = await open('site/index.html');
  await expect(page.locator('.banner h1')).toContainText('2 implementations');
  await expect(page.locator('.banner')).toContainText('1 conformant · 1 nonconformant · 0 incomplete');
  const rows = page.locator('table.matrix tbody tr');
  await expect(rows).toHaveCount(3); // evil: two targets; good: one
  await expect(rows.nth(0)).toContainText('backend/http');
  await expect(rows.nth(1)).toContainText('backend/stdio/persistent');
  await expect(rows.nth(1).locator('td').nth(1)).toContainText('nonconformant');
  await expect(rows.nth(2)).toContainText('good backend 2.0');
  // A name with a space is a working link, and the report it opens is that claim's.
  await rows.nth(2).locator('a').first().click();
  await expect(page).toHaveURL(/good%20backend\/index\.html$/);
  await expect(page.locator('#verdict h1')).toContainText('conformant');
  await expect(page.locator('#verdict h1')).not.toContainText('nonconformant');
  await expect(page.locator('#verdict')).toContainText('good backend');
  await page.goBack();
  await rows.nth(0).locator('a').first().click();
  await expect(page.locator('#verdict h1')).toContainText('nonconformant');
  expect(requests).toEqual([]);
  await page.close();
});
