// The traceability ledger (src/checks/ledger.ts) accounts for every sentence of the profile
// documents and every requirement, names only checks that exist, and is shown where a reader
// of a certificate looks: the claim report, results.json and `--checks --trace`.
//
// The sentences of the user's Base Protocol profile are extracted here mechanically, by the
// rules the head of src/checks/ledger.ts states, from ../shared/seeds/*.txt; the items of the
// other profiles from our digest (../shared/spec-notes/spec-core.md 13.2-13.5). Without
// ../shared those tests skip.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import { CHECKS } from '../../src/checks/catalogue.js';
import {
  claimScope,
  LEDGER,
  LEDGER_DOCUMENTS,
  ledgerFor,
  sentenceSha256,
  type LedgerDocument,
  type LedgerEntry,
} from '../../src/checks/ledger.js';
import { REQUIREMENTS } from '../../src/checks/requirements.js';
import { main } from '../../src/cli/main.js';
import { claimPage } from '../../src/results/html/claim-page.js';
import type { ClaimResults } from '../../src/results/model.js';
import { resultsWith, validResults } from '../support/results-fixture.js';
import { ROOT, SPEC_DIR } from '../support/paths.js';

const SHARED = resolve(ROOT, '..', 'shared');
const SEEDS = resolve(SHARED, 'seeds');
const SPEC_CORE = resolve(SHARED, 'spec-notes', 'spec-core.md');

// ------------------------------------------------------------------ sentence extraction

interface Unit {
  item: string;
  text: string;
  sha256: string;
}

const normalise = (s: string): string => s.replace(/\s+/g, ' ').trim();
/** Sentences end at a full stop followed by a capital (or an opening quote or bracket). */
const sentences = (s: string): string[] => normalise(s).split(/(?<=\.)\s+(?=[A-Z"“(])/);

/**
 * Every sentence of a profile document, with its location: a block of one line without
 * closing punctuation is a heading (the section); `N.` lines are numbered items, `•` lines
 * bullets, the rest prose paragraphs.
 */
function profileUnits(text: string): { title: string; units: Unit[] } {
  const blocks = text
    .split(/\n[ \t]*\n/)
    .map((b) =>
      b
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    )
    .filter((b) => b.length > 0);
  const units: Unit[] = [];
  let title = '';
  let section = '';
  let para = 0;
  let bullet = 0;
  const add = (item: string, t: string): void => {
    units.push({ item, text: t, sha256: createHash('sha256').update(t).digest('hex') });
  };
  for (const b of blocks) {
    if (b.length === 1 && !/[.:;]$/.test(b[0]!)) {
      section = b[0]!;
      title ||= section;
      para = 0;
      bullet = 0;
      continue;
    }
    let prose = false;
    for (const line of b) {
      const bulleted = /^•\s*(.*)$/.exec(line);
      const numbered = /^(\d+)\.\s+(.*)$/.exec(line);
      if (bulleted) add(`${section} bullet ${++bullet}`, normalise(bulleted[1]!));
      else if (numbered) {
        const all = sentences(numbered[2]!);
        all.forEach((s, k) => add(`${section} ${numbered[1]}${all.length > 1 ? `.${k + 1}` : ''}`, s));
      } else {
        if (!prose) para++;
        prose = true;
        const all = sentences(line);
        all.forEach((s, k) => add(`${section} para ${para}${all.length > 1 ? `.${k + 1}` : ''}`, s));
      }
    }
  }
  return { title, units };
}

/** The profile documents among the seeds, by title. */
const SEED_DOCUMENTS: Record<string, LedgerDocument> = { 'Base Protocol profile': 'base-profile' };

const rowsOf = (document: LedgerDocument) => LEDGER.filter((r) => r.source.document === document);

/** Lower-cased word runs of n words. */
function runs(text: string, n: number): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const out = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}

// ------------------------------------------------------------------ (a) the seed's sentences

test('every sentence of the Base Protocol profile seed has a row, by location and sha256, and no row points elsewhere', () => {
  test.skip(!existsSync(SEEDS), `${SEEDS} not found`);
  const seeds = readdirSync(SEEDS).filter((f) => f.endsWith('.txt'));
  let judged = 0;
  for (const file of seeds) {
    const bytes = readFileSync(resolve(SEEDS, file));
    const { title, units } = profileUnits(bytes.toString('utf8'));
    // A seed that is no profile document (a note, a request) is not the ledger's.
    if (!/profile$/i.test(title)) continue;
    const document = SEED_DOCUMENTS[title];
    expect(document, `${file}: a profile document the ledger does not know ("${title}")`).toBeDefined();
    expect(LEDGER_DOCUMENTS[document!].sha256, `${file}: the ledger records another version`).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
    const rows = rowsOf(document!);
    const missing = units.filter((u) => !rows.some((r) => r.source.item === u.item && r.source.sha256 === u.sha256));
    expect(
      missing.map((u) => `${u.item} ${u.sha256}`),
      'sentences no row accounts for',
    ).toEqual([]);
    const stray = rows.filter((r) => !units.some((u) => u.item === r.source.item && u.sha256 === r.source.sha256));
    expect(
      stray.map((r) => `${r.source.item} ${r.source.sha256}`),
      'rows naming a sentence that is not there',
    ).toEqual([]);
    // The sha256 is of the normalised sentence: what sentenceSha256 computes.
    for (const u of units) expect(sentenceSha256(u.text)).toBe(u.sha256);
    // Our words: no row repeats its sentence, nor a run of seven of its words.
    const quoted = units.flatMap((u) => {
      const says = rows.find((r) => r.source.item === u.item)!.says;
      return [...runs(u.text, 7)].filter((x) => runs(says, 7).has(x)).map((x) => `${u.item}: ${x}`);
    });
    expect(quoted, 'rows quoting their sentence').toEqual([]);
    judged += units.length;
  }
  expect(judged, 'no profile document among the seeds').toBeGreaterThan(0);
});

// ------------------------------------------------------------------ (b) our digest's items of the other profiles

const DIGEST_SECTIONS: [string, LedgerDocument][] = [
  ['13.2', 'tool-interception-profile'],
  ['13.3', 'lifecycle-observation-profile'],
  ['13.4', 'stdio-binding-profile'],
  ['13.5', 'http-binding-profile'],
];

/** The numbered items of a section of spec-core.md (`H1.`, `LO3.`), its auth list `(a)`..., and its upload list. */
function digestItems(text: string, section: string): string[] {
  const start = text.indexOf(`### ${section} `);
  const end = text.slice(start + 4).search(/\n##+ /);
  const body = text.slice(start, end < 0 ? undefined : start + 4 + end);
  const items = [...body.matchAll(/^([A-Z]{1,2}\d+)\.\s/gm)].map((m) => m[1]!);
  const auth = /\*\*\[L2\] authentication coverage\*\*([\s\S]*?)(?:\n>|\n\*\*)/.exec(body);
  if (auth) items.push(...[...auth[1]!.matchAll(/\(([a-f])\)\s/g)].map((m) => `auth (${m[1]})`));
  if (/\*\*\[L2\] content-upload checks\*\*/.test(body)) items.push('content-upload');
  return items;
}

test('every item of our digest of the other profiles (spec-core 13.2-13.5) has a row, and every row an item', () => {
  test.skip(!existsSync(SPEC_CORE), `${SPEC_CORE} not found`);
  const text = readFileSync(SPEC_CORE, 'utf8');
  for (const [section, document] of DIGEST_SECTIONS) {
    const items = digestItems(text, section);
    expect(items.length, `section ${section} has items`).toBeGreaterThan(0);
    const rows = rowsOf(document).map((r) => r.source.item);
    expect(rows.sort(), `${document} rows`).toEqual([...new Set(items)].sort());
  }
});

// ------------------------------------------------------------------ (c) requirements and checks

test('every requirement and every check appears; every check a row names exists; rows are unique and say why where unjudged', () => {
  const requirementRows = rowsOf('requirements').map((r) => r.source.item);
  expect(requirementRows).toEqual(REQUIREMENTS.map((q) => q.id));
  const named = new Set(LEDGER.flatMap((r) => r.checks));
  const ids = new Set(CHECKS.map((c) => c.id));
  expect(
    [...named].filter((id) => !ids.has(id)),
    'unknown checks named',
  ).toEqual([]);
  expect(
    [...ids].filter((id) => !named.has(id)),
    'checks that judge no row',
  ).toEqual([]);
  const keys = LEDGER.map((r) => `${r.source.document} ${r.source.item}`);
  expect(keys.length).toBe(new Set(keys).size);
  for (const r of LEDGER) {
    const where = `${r.source.document} ${r.source.item}`;
    expect(r.checks.length > 0 || r.claimValidation !== undefined || r.unjudged !== undefined, where).toBe(true);
    expect(new Set(r.checks).size, `${where}: a check named twice`).toBe(r.checks.length);
    // A row a check judges names whose duty it is; an informative one names nobody.
    if (r.unjudged?.kind === 'informative' && r.checks.length === 0) expect(r.roles, where).toEqual([]);
    else expect(r.roles.length, where).toBeGreaterThan(0);
    // A check judges a row only for a role it plays there.
    for (const id of r.checks) {
      const c = CHECKS.find((x) => x.id === id)!;
      expect(
        c.roles.some((role) => r.roles.includes(role)),
        `${where}: ${id} judges no role of the row`,
      ).toBe(true);
    }
  }
  // A requirement row lists exactly the checks the catalogue says judge it.
  for (const q of REQUIREMENTS) {
    const row = rowsOf('requirements').find((r) => r.source.item === q.id)!;
    expect(row.checks).toEqual(CHECKS.filter((c) => c.requirements.includes(q.id)).map((c) => c.id));
  }
});

test("the requirement rows are the snapshot catalogue's ids", () => {
  const file = resolve(SPEC_DIR, 'spec', 'draft', 'requirements.json');
  test.skip(!existsSync(file), `${file} not found`);
  const upstream = JSON.parse(readFileSync(file, 'utf8')) as { requirements: { id: string }[] };
  expect(
    rowsOf('requirements')
      .map((r) => r.source.item)
      .sort(),
  ).toEqual(upstream.requirements.map((q) => q.id).sort());
});

test('a check of another snapshot, role, profile or transport does not count; a row it alone judged says so', () => {
  const entry = (l: { entries: LedgerEntry[] }, item: string): LedgerEntry =>
    l.entries.find((e) => e.source.item === item)!;
  const old = ledgerFor({ snapshot: 'draft@2b5da580' });
  const newer = ledgerFor({ snapshot: 'draft@1d98c19' });
  expect(entry(old, 'Observable checks 7').checks).not.toContain('base.configuration-unoffered');
  expect(entry(newer, 'Observable checks 7').checks).toContain('base.configuration-unoffered');
  expect(ledgerFor().entries.every((e) => e.status !== 'not-claimed')).toBe(true);

  const backendStdio = ledgerFor(
    claimScope({
      snapshot: 'draft@2b5da580',
      roles: ['backend'],
      transports: ['stdio'],
      profiles: ['tool-interception'],
      lifecycles: ['per_event'],
    }),
  );
  expect(entry(backendStdio, 'AHP-HTTP-001').status).toBe('not-claimed');
  expect(entry(backendStdio, 'LO3').reason).toMatch(/lifecycle-observation profile is not claimed/);
  expect(entry(backendStdio, 'H1')).toMatchObject({ status: 'not-claimed', reason: expect.stringMatching(/harness/) });
  // The credential echo is an HTTP check, persistent-only checks do not judge a per_event claim.
  expect(entry(backendStdio, 'AHP-SEC-001').checks).toEqual([]);
  expect(entry(backendStdio, 'AHP-SEC-001').status).toBe('gap');
  expect(entry(backendStdio, 'AHP-SEC-001').reason).toMatch(/base\.no-secret-leak/);
  expect(entry(backendStdio, 'B2').checks).toEqual(['ti.advertised-effects']);
  // A part left unjudged for the harness only does not make a backend's row partly judged.
  expect(entry(backendStdio, 'AHP-CAP-001').status).toBe('judged');
  const harness = ledgerFor({ snapshot: 'draft@2b5da580', roles: ['harness'] });
  expect(entry(harness, 'AHP-CAP-001')).toMatchObject({ status: 'partly-judged', unjudged: 'gap' });
  expect(entry(harness, 'Observable checks 9')).toMatchObject({ status: 'partly-judged', unjudged: 'not-observable' });
  expect(entry(harness, 'LO6').status).toBe('gap');
  expect(entry(harness, 'Checker scope para 2.1').status).toBe('informative');
  expect(entry(harness, 'Claim inputs bullet 1').status).toBe('claim-validation');
  const counts = Object.values(harness.counts).reduce((a, b) => a + b, 0);
  expect(counts).toBe(LEDGER.length);
});

// ------------------------------------------------------------------ (d) the report and results.json

test('results.json carries the claim ledger, valid against the schema; the report shows the ledger section and column', () => {
  const r = resultsWith({
    'base.unknown-method': 'passed',
    'ti.result-valid': 'failed',
    'ti.deny-samples': 'not-applicable',
  });
  expect(r.ledger?.snapshot).toBe('draft@2b5da580');
  expect(r.ledger?.entries.length).toBe(LEDGER.length);
  expect(validResults(JSON.parse(JSON.stringify(r))), JSON.stringify(validResults.errors)).toBe(true);
  // The fixture is a backend http claim of tool-interception: a harness duty is not claimed.
  const byItem = (item: string) => r.ledger!.entries.find((e) => e.source.item === item)!;
  expect(byItem('H1').status).toBe('not-claimed');
  expect(byItem('B1').status).toBe('judged');

  const html = claimPage(r);
  expect(html).toContain('<h2 id="ledger">Traceability ledger</h2>');
  expect(html).toContain('<th>Ledger</th>');
  expect(html).toContain('href="#ledger"');
  // Each requirement row of the matrix links to its ledger row, which exists.
  const cell = /<tr data-req="AHP-RPC-001"[^\n]*?<a href="#(ledger-requirements-AHP-RPC-001)"/.exec(html);
  expect(cell).not.toBeNull();
  expect(html).toContain(`id="${cell![1]}"`);
  // Every entry is a row, and the counts are shown.
  expect(html.match(/data-ledger-status="/g)?.length).toBe(LEDGER.length);
  expect(html).toContain(`id="ledger-counts">${LEDGER.length} rows: `);
  // A sentence is named by its sha256, never quoted; what a row does not prove is said.
  const seedRow = r.ledger!.entries.find((e) => e.source.item === 'Observable checks 9')!;
  expect(html).toContain(seedRow.source.sha256!.slice(0, 12));
  expect(html).toContain('not observable from outside: ');
  // This run's outcome of a row's checks: the failure shows; checks that judged nothing here say so.
  expect(rowHtml(html, 'B1')).toContain('s-failed');
  expect(rowHtml(html, 'HT2')).toContain('not exercised here');
});

/** The ledger row of an item in a claim page. */
const rowHtml = (html: string, item: string): string =>
  new RegExp(`<tr id="ledger-[^"]*-${item}"[^\\n]*?</tr>`).exec(html)?.[0] ?? '';

test('a ledger read from results.json is shown escaped; results without one say so', () => {
  const r = resultsWith({ 'base.unknown-method': 'passed' });
  const hostile: ClaimResults = {
    ...r,
    ledger: {
      ...r.ledger!,
      entries: [
        {
          source: { document: 'requirements', item: 'AHP-RPC-001"><script>x()</script>' },
          profile: 'base',
          roles: ['backend'],
          says: '<img src=x onerror=alert(1)>',
          status: '<b>judged</b>' as never,
          checks: ['<i>'],
          reason: '<script>',
        },
      ],
    },
  };
  const html = claimPage(hostile);
  expect(html).not.toMatch(/<script>x|<img src|<b>judged|<i>|<script>(?!\()/);
  const { ledger: _, ...older } = r;
  expect(claimPage(older as ClaimResults)).toContain('These results carry no ledger');
});

// ------------------------------------------------------------------ (e) --checks --trace

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('--checks --trace lists every row in text, and --json the same rows as data', async () => {
  const text = await cli('--checks', '--trace');
  expect(text.code).toBe(0);
  expect(text.out).toMatch(new RegExp(`^Traceability ledger of every snapshot: ${LEDGER.length} rows: \\d+ judged, `));
  for (const d of Object.values(LEDGER_DOCUMENTS)) expect(text.out).toContain(`== ${d.title}`);
  expect(text.out).toContain('Observable checks 9  [partly-judged]');
  expect(text.out).toContain('    not observable from outside: ');
  expect(text.out).toContain('    gap, no check yet: ');
  expect(text.out).toContain('base.configuration-unoffered [draft@1d98c19 only]');
  const json = await cli('--checks', '--trace', '--json');
  const data = JSON.parse(json.out) as { entries: LedgerEntry[]; counts: Record<string, number> };
  expect(data.entries.length).toBe(LEDGER.length);
  expect(data.entries.map((e) => e.source.item)).toEqual(LEDGER.map((r) => r.source.item));
});

test('--checks --trace honours --role, --profile and --snapshot; --trace alone is refused', async () => {
  const json = async (...argv: string[]) =>
    JSON.parse((await cli('--checks', '--trace', '--json', ...argv)).out) as {
      snapshot?: string;
      entries: LedgerEntry[];
    };
  const backend = await json('--role', 'backend');
  expect(backend.entries.length).toBeGreaterThan(0);
  expect(backend.entries.every((e) => e.roles.length === 0 || e.roles.includes('backend'))).toBe(true);
  const backendChecks = new Set(CHECKS.filter((c) => c.roles.includes('backend')).map((c) => c.id));
  expect(backend.entries.flatMap((e) => e.checks).every((id) => backendChecks.has(id))).toBe(true);
  const http = await json('--profile', 'http');
  expect(new Set(http.entries.map((e) => e.profile))).toEqual(new Set(['http']));
  expect(http.entries.map((e) => e.source.item)).toContain('HT5');
  const old = await json('--snapshot', 'draft@2b5da580');
  expect(old.snapshot).toBe('draft@2b5da580');
  const only1d = new Set(CHECKS.filter((c) => c.snapshots && !c.snapshots.includes('draft@2b5da580')).map((c) => c.id));
  expect(old.entries.flatMap((e) => e.checks).filter((id) => only1d.has(id))).toEqual([]);
  const text = (await cli('--checks', '--trace', '--role', 'harness', '--snapshot', 'draft')).out;
  expect(text.split('\n')[0]).toMatch(/^Traceability ledger of draft@1d98c19 \(role harness\): \d+ rows: /);
  expect(text).not.toContain(' only]');
  const alone = await cli('--trace');
  expect(alone.code).toBe(2);
  expect(alone.err).toBe('ahp-conformance: --trace goes with --checks');
  expect((await cli('--checks', '--trace', '--role', 'editor')).code).toBe(2);
});
