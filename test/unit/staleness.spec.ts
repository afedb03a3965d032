// Staleness: a certificate's attested requirement digests against a copy of the upstream
// snapshot folder with one requirement edited, removed or added; and the catalogue read
// bounded, never through a symlink, one line for what is wrong.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import { CHECKS } from '../../src/checks/catalogue.js';
import { attestedRequirements, requirementTextSha256 } from '../../src/checks/requirement-texts.js';
import { CatalogueError, readRequirementCatalogue, staleness, stalenessLines } from '../../src/results/staleness.js';
import { SPEC_DIR } from '../support/paths.js';
import { tempFolders } from '../support/temp.js';

const PUBLISHED = resolve(SPEC_DIR, 'spec', 'draft', 'requirements.json');
test.skip(!existsSync(PUBLISHED), `${PUBLISHED} not found (set AHP_SPEC_DIR); staleness tests skipped`);

interface Doc {
  requirements: { id: string; level: string; text: string; textSha256: string; [k: string]: unknown }[];
  [k: string]: unknown;
}

const folder = tempFolders('ahp-staleness-');
/** A snapshot folder with upstream's spec/ and conformance/, its catalogue passed through `edit`. */
function snapshotCopy(edit: (doc: Doc) => void = () => {}): string {
  const dir = folder();
  for (const sub of ['spec', 'conformance']) cpSync(join(SPEC_DIR, sub), join(dir, sub), { recursive: true });
  const file = join(dir, 'spec', 'draft', 'requirements.json');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Doc;
  edit(doc);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return dir;
}

/** What a certificate of every check relies on: every requirement of the catalogue. */
const everything = () =>
  attestedRequirements(
    'draft@2b5da580',
    CHECKS.map((c) => c.id),
  );

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CatalogueError);
    const line = (e as Error).message;
    expect(line).not.toContain('\n');
    return line;
  }
  throw new Error('expected a refusal');
};

test('the same catalogue: every requirement unchanged, fresh, one closing line', () => {
  const catalogue = readRequirementCatalogue(snapshotCopy());
  expect(catalogue.version).toBe('draft');
  expect(catalogue.notes).toEqual([]);
  const s = staleness(everything(), catalogue);
  expect(s.fresh).toBe(true);
  expect(s.counts).toEqual({ unchanged: 26, changed: 0, removed: 0, new: 0 });
  const lines = stalenessLines(s, catalogue);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('26 unchanged, 0 changed, 0 removed, 0 new: fresh');
});

test("one requirement's text edited (its textSha256 field left as it was): exactly that one is changed", () => {
  const catalogue = readRequirementCatalogue(
    snapshotCopy((doc) => {
      doc.requirements.find((r) => r.id === 'AHP-CORE-003')!.text += ' Edited.';
    }),
  );
  const s = staleness(everything(), catalogue);
  expect(s.rows.filter((r) => r.state !== 'unchanged').map((r) => [r.id, r.state])).toEqual([
    ['AHP-CORE-003', 'changed'],
  ]);
  expect(s.fresh).toBe(false);
  // The published field is the old digest: noted, and not believed.
  expect(catalogue.notes).toHaveLength(1);
  expect(catalogue.notes[0]).toMatch(/^AHP-CORE-003: the published textSha256 \w+… is not the digest of its text/);
  const lines = stalenessLines(s, catalogue);
  expect(lines.filter((l) => l.startsWith('AHP-CORE-003: changed: '))).toHaveLength(1);
  expect(lines.at(-1)).toContain('25 unchanged, 1 changed, 0 removed, 0 new: STALE for 1 requirement it relied on');
});

test('a changed level is a changed requirement, even with a recomputed textSha256 field', () => {
  const catalogue = readRequirementCatalogue(
    snapshotCopy((doc) => {
      const r = doc.requirements.find((x) => x.id === 'AHP-RPC-001')!;
      r.level = 'SHOULD';
      r.textSha256 = requirementTextSha256(r.id, r.level, r.text);
    }),
  );
  const s = staleness(everything(), catalogue);
  expect(s.rows.filter((r) => r.state !== 'unchanged').map((r) => r.id)).toEqual(['AHP-RPC-001']);
  expect(catalogue.notes).toEqual([]);
});

test('one requirement removed: removed, and the certificate is stale', () => {
  const catalogue = readRequirementCatalogue(
    snapshotCopy((doc) => {
      doc.requirements = doc.requirements.filter((r) => r.id !== 'AHP-DEC-001');
    }),
  );
  const s = staleness(everything(), catalogue);
  expect(s.rows.filter((r) => r.state !== 'unchanged').map((r) => [r.id, r.state])).toEqual([
    ['AHP-DEC-001', 'removed'],
  ]);
  expect(s.fresh).toBe(false);
  expect(stalenessLines(s, catalogue)[0]).toMatch(/^AHP-DEC-001: removed: .*\(.*ti\./);
});

test('one requirement added: new, and the certificate stays fresh', () => {
  const catalogue = readRequirementCatalogue(
    snapshotCopy((doc) => {
      const base = doc.requirements[0]!;
      const text = 'Made up for the test.';
      doc.requirements.push({
        ...base,
        id: 'AHP-NEW-001',
        text,
        textSha256: requirementTextSha256('AHP-NEW-001', base.level, text),
      });
    }),
  );
  const s = staleness(everything(), catalogue);
  expect(s.rows.filter((r) => r.state !== 'unchanged').map((r) => [r.id, r.state])).toEqual([['AHP-NEW-001', 'new']]);
  expect(s.fresh).toBe(true);
  expect(stalenessLines(s, catalogue)).toEqual([
    'AHP-NEW-001: new: not covered by this certificate',
    expect.stringContaining('26 unchanged, 0 changed, 0 removed, 1 new: fresh'),
  ]);
});

test('a certificate of fewer checks: what they do not judge is new, and claim validation is attested', () => {
  const attested = attestedRequirements('draft@2b5da580', ['base.jsonrpc-utf8']);
  expect(attested.map((a) => [a.id, a.checks])).toEqual([
    ['AHP-CORE-001', []],
    ['AHP-CORE-002', []],
    ['AHP-RPC-001', ['base.jsonrpc-utf8']],
  ]);
  const s = staleness(attested, readRequirementCatalogue(snapshotCopy()));
  expect(s.counts).toEqual({ unchanged: 3, changed: 0, removed: 0, new: 23 });
  expect(s.fresh).toBe(true);
});

test('a symlinked or FIFO requirements.json is refused, as is a symlinked spec folder', () => {
  const dir = snapshotCopy();
  const file = join(dir, 'spec', 'draft', 'requirements.json');
  renameSync(file, join(dir, 'elsewhere.json'));
  symlinkSync(join(dir, 'elsewhere.json'), file);
  expect(refusal(() => readRequirementCatalogue(dir))).toBe(`${file}: it is a symbolic link; not read`);
  rmSync(file);
  execFileSync('mkfifo', [file]);
  expect(refusal(() => readRequirementCatalogue(dir))).toBe(`${file}: it is a named pipe (FIFO); not read`);

  const linked = folder();
  symlinkSync(join(dir, 'spec'), join(linked, 'spec'));
  expect(refusal(() => readRequirementCatalogue(linked))).toBe(
    `${join(linked, 'spec')} is a symbolic link; not followed`,
  );
});

test('a missing or invalid catalogue is one line', () => {
  expect(refusal(() => readRequirementCatalogue(folder()))).toMatch(/: no spec\/<version>\/requirements\.json/);
  expect(refusal(() => readRequirementCatalogue(join(folder(), 'nothing')))).toMatch(/: no such folder$/);
  const dir = snapshotCopy();
  const file = join(dir, 'spec', 'draft', 'requirements.json');
  const cases: [string, RegExp][] = [
    ['{"requirements": [', /is not valid JSON/],
    ['{"requirements": {}}', /: no requirements list$/],
    [
      '{"requirements": [{"id": "A", "level": "MUST", "text": "x"}, {"id": "A", "level": "MUST", "text": "y"}]}',
      /A is listed twice$/,
    ],
    [
      '{"requirements": [{"id": "A\\u001b[2J", "level": "MUST", "text": "x"}]}',
      /requirements\[0\]\.id is not a requirement id$/,
    ],
    ['{"requirements": [{"id": "A", "level": "must", "text": "x"}]}', /A: level is not a requirement level$/],
    ['{"requirements": [{"id": "A", "level": "MUST"}]}', /A: no text$/],
    [
      '{"requirements": [{"id": "A", "level": "MUST", "text": "x", "textSha256": "xyz"}]}',
      /A: textSha256 is not a sha256 in hex$/,
    ],
    ['{"requirements": [], "requirements": []}', /is not valid JSON/],
  ];
  for (const [text, line] of cases) {
    writeFileSync(file, text);
    expect(
      refusal(() => readRequirementCatalogue(dir)),
      text,
    ).toMatch(line);
  }
});

test('several versions under spec/: the one the conformance manifest names, else refused listing them', () => {
  const dir = snapshotCopy();
  mkdirSync(join(dir, 'spec', '2027-01-15'));
  cpSync(join(dir, 'spec', 'draft', 'requirements.json'), join(dir, 'spec', '2027-01-15', 'requirements.json'));
  // conformance/draft/manifest.json names spec/draft/requirements.json.
  expect(readRequirementCatalogue(dir).version).toBe('draft');
  expect(readRequirementCatalogue(dir, { version: '2027-01-15' }).version).toBe('2027-01-15');
  const manifest = join(dir, 'conformance', 'draft', 'manifest.json');
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
  delete m.canonicalRequirements;
  writeFileSync(manifest, JSON.stringify(m));
  expect(refusal(() => readRequirementCatalogue(dir))).toBe(
    `${dir}: requirement catalogues of several versions (spec/2027-01-15, spec/draft) and no conformance/<version>/manifest.json names one as canonicalRequirements`,
  );
});
