// The reports folder a run leaves, opened in Chromium (issue 12): every link is relative and
// leads to a file that exists (the matrix, each claim report, Playwright's report, the
// requirement rows), a matrix cell opens its claim's checks of that profile, and a claim
// report leads back to the matrix. Written by the same functions `run` uses.
import { test, expect, chromium, type Browser, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applicableChecks } from '../../src/checks/catalogue.js';
import type { ClaimResults } from '../../src/results/model.js';
import { writeClaimResults } from '../../src/results/write.js';
import { finishReports, reportContext } from '../../src/cli/report-layout.js';
import { playwrightReportDir } from '../../src/engine/run-folder.js';
import { ROOT } from '../support/paths.js';
import { stdioClaimResults } from '../support/results-fixture.js';
import { tempFolders } from '../support/temp.js';

const CHROMIUM = process.env.AHP_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
test.skip(!existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (.ci/run installs the Debian package)`);

const workspace = tempFolders('ahp-links-');

const claim = (name: string, failed: string[]): ClaimResults =>
  stdioClaimResults({ name, failed, run: { certification: false } });

let browser: Browser;
let reports: string;
test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  reports = join(workspace(), 'reports');
  // Two claims, as `run` writes them: each report, Playwright's shared report, the matrix.
  const names = ['acme', 'good backend'];
  const playwright = playwrightReportDir(
    reports,
    names.map((n) => join(reports, n)),
  );
  mkdirSync(playwright, { recursive: true });
  writeFileSync(join(playwright, 'index.html'), '<!doctype html><title>Playwright Test Report</title>');
  const written = names.map((n, i) => {
    const dir = join(reports, n);
    const results = claim(n, i === 0 ? ['ti.deny-samples'] : []);
    writeClaimResults(dir, results, {}, undefined, reportContext(reports, reports, playwright, dir));
    return { results, dir };
  });
  finishReports(reports, reports, playwright, written);
});
test.afterAll(async () => {
  await browser?.close();
});

/** Every href of the page, and for each link to a file, whether that file exists. */
async function links(page: Page): Promise<{ href: string; resolved: string }[]> {
  return page
    .locator('a[href]')
    .evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href')!, resolved: (a as HTMLAnchorElement).href })));
}

/** Open each page and check its links: relative, each to an element or a file that exists. */
async function checkLinks(root: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const page = await browser.newPage();
    await page.goto(`file://${join(root, file)}`);
    const all = await links(page);
    expect(all.length).toBeGreaterThan(3);
    for (const { href, resolved } of all) {
      expect(href, `${file}: ${href}`).not.toMatch(/^([a-z]+:|\/)/i);
      if (href.startsWith('#')) {
        await expect(page.locator(`[id="${decodeURIComponent(href.slice(1))}"]`), `${file}: ${href}`).toHaveCount(1);
        continue;
      }
      const url = new URL(resolved);
      url.search = '';
      url.hash = '';
      expect(existsSync(fileURLToPath(url)), `${file}: ${href}`).toBe(true);
    }
    await page.close();
  }
}

test('every link of the matrix and the claim reports is relative and leads to a file that exists', async () => {
  await checkLinks(reports, ['index.html', 'acme/index.html', 'good backend/index.html']);
});

test('the reports of a real run, and of a --grep rerun beside them, link only to what is there', async () => {
  test.setTimeout(120_000);
  const dir = workspace();
  const main = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
  for (const name of ['demo', 'other'])
    writeFileSync(
      join(dir, `${name}.yaml`),
      `implementation: { name: ${name}, version: 1.0.0 }\nrole: backend\ntransports: [stdio]\nprofiles: [tool-interception]\n` +
        `backend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(main)}, --transport, stdio], lifecycle: persistent }\n`,
    );
  const run = (...args: string[]): void => {
    const r = spawnSync(process.execPath, [resolve(ROOT, 'bin', 'ahp-conformance.js'), 'run', ...args], {
      encoding: 'utf8',
      cwd: dir,
      timeout: 100_000,
      env: { ...process.env, AHP_PROGRESS: 'line' },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  };
  run('demo.yaml', 'other.yaml', '--reports', 'site');
  run('demo.yaml', '--reports', 'site', '--grep', 'ti\\.state-independent');
  await checkLinks(join(dir, 'site'), [
    'index.html',
    'demo/index.html',
    'other/index.html',
    'partial/index.html',
    'partial/demo/index.html',
  ]);
});

test('a matrix cell opens its claim report filtered to that profile, which links back to the matrix', async () => {
  const page = await browser.newPage();
  await page.goto(`file://${join(reports, 'index.html')}`);
  const cell = page.locator('table.matrix tbody tr').first().locator('td[data-cell="failed"] a');
  await expect(page.locator('table.matrix tbody tr').first().locator('td[data-cell="failed"]')).toContainText(
    '1 failed',
  );
  await cell.click();
  await expect(page).toHaveURL(/acme\/index\.html\?profile=tool-interception&transport=stdio#checks$/);
  await expect(page.locator('#filters [name=profile]')).toHaveValue('tool-interception');
  const shown = await page.locator('details.check:visible').count();
  expect(shown).toBe(
    applicableChecks('backend', 'stdio', 'persistent', ['tool-interception']).filter(
      (c) => c.profile === 'tool-interception',
    ).length,
  );
  // A requirement id of a check leads to its row of the requirement matrix.
  const req = page.locator('details.check[data-status="failed"] a[href^="#req-"]').first();
  const target = (await req.getAttribute('href'))!;
  await req.click();
  await expect(page).toHaveURL(new RegExp(`${target}$`));
  await expect(page.locator(target)).toBeInViewport();
  await page.locator('#link-playwright').click();
  await expect(page).toHaveTitle('Playwright Test Report');
  await page.goBack();
  await page.locator('#link-matrix').click();
  await expect(page.locator('.banner h1')).toContainText('2 implementations');
  await page.close();
});
