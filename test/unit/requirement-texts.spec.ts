// The requirement digests we keep agree with the catalogue upstream publishes, and a
// certificate attests the requirements its checks judge.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import { CHECKS } from '../../src/checks/catalogue.js';
import { REQUIREMENTS } from '../../src/checks/requirements.js';
import { attestedRequirements, requirementTexts, requirementTextSha256 } from '../../src/checks/requirement-texts.js';
import { SNAPSHOTS } from '../../src/protocol/snapshots.js';
import { SPEC_DIR } from '../support/paths.js';

const PUBLISHED = resolve(SPEC_DIR, 'spec', 'draft', 'requirements.json');

test('draft@2b5da580: every id, level, profile and textSha256 is the published one, and each digest is its text', () => {
  test.skip(!existsSync(PUBLISHED), `${PUBLISHED} not found (set AHP_SPEC_DIR)`);
  const upstream = (
    JSON.parse(readFileSync(PUBLISHED, 'utf8')) as {
      requirements: { id: string; level: string; profile: string; text: string; textSha256: string }[];
    }
  ).requirements;
  for (const r of upstream) expect(requirementTextSha256(r.id, r.level, r.text), r.id).toBe(r.textSha256);
  const ours = requirementTexts('draft@2b5da580')!;
  expect(ours.publishedBy).toBe('draft@2b5da580');
  expect(ours.requirements).toEqual(
    upstream.map((r) => ({ id: r.id, level: r.level, profile: r.profile, textSha256: r.textSha256 })),
  );
});

test('every snapshot has a requirement catalogue, its own or borrowed, naming every requirement we judge', () => {
  const judged = new Set([...CHECKS.flatMap((c) => c.requirements), ...REQUIREMENTS.map((r) => r.id)]);
  for (const s of SNAPSHOTS) {
    const texts = requirementTexts(s.id);
    expect(texts, s.id).toBeDefined();
    expect(texts!.publishedBy).toBe(s.borrowed.requirements ?? s.id);
    const ids = texts!.requirements.map((r) => r.id);
    expect(new Set(ids).size, `${s.id}: ids are unique`).toBe(ids.length);
    expect(
      [...judged].filter((id) => !ids.includes(id)),
      s.id,
    ).toEqual([]);
  }
  expect(requirementTexts('draft@1d98c19')).toBe(requirementTexts('draft@2b5da580'));
});

test('attested: the requirements the given checks judge, each with its checks sorted, and those claim validation judges', () => {
  const given = ['base.unsupported-version', 'base.protocol-version', 'base.jsonrpc-utf8'];
  const a = attestedRequirements('draft@1d98c19', given);
  const ids = a.map((r) => r.id);
  // Claim validation judges these for every claim.
  expect(a.filter((r) => r.checks.length === 0).map((r) => r.id)).toEqual(['AHP-CORE-001', 'AHP-CORE-002']);
  const texts = requirementTexts('draft@1d98c19')!.requirements;
  for (const r of a) {
    expect(r.textSha256).toBe(texts.find((t) => t.id === r.id)!.textSha256);
    expect(r.checks).toEqual([...r.checks].sort());
    for (const c of r.checks) expect(CHECKS.find((x) => x.id === c)!.requirements).toContain(r.id);
  }
  // Exactly the requirements those checks name, in catalogue order.
  const named = new Set(given.flatMap((c) => CHECKS.find((x) => x.id === c)!.requirements));
  expect(a.find((r) => r.id === 'AHP-VER-001')!.checks).toEqual(['base.protocol-version', 'base.unsupported-version']);
  expect(ids).toEqual(
    texts.map((t) => t.id).filter((id) => named.has(id) || id === 'AHP-CORE-001' || id === 'AHP-CORE-002'),
  );
  // Every check: every requirement of the catalogue is relied on.
  const all = attestedRequirements(
    'draft@2b5da580',
    CHECKS.map((c) => c.id),
  );
  expect(all.map((r) => r.id)).toEqual(texts.map((t) => t.id));
  expect(() => attestedRequirements('draft@2b5da580', ['no.such-check'])).toThrow('unknown check no.such-check');
});
