// Upstream's requirement catalogue as digests: for each snapshot that publishes one
// (`spec/<version>/requirements.json`), every requirement id with its level, profile and the
// sha256 upstream publishes of its text (`textSha256`). Digests and ids are facts about
// upstream's sentences, not the sentences: the texts stay upstream (our wording of each
// requirement is src/checks/requirements.ts). A certificate attests these digests for the
// requirements it judged, so that a later catalogue shows which of them moved
// (src/results/staleness.ts). test/unit/requirement-texts.spec.ts checks the table against
// the published file and recomputes every digest from its text.
import { createHash } from 'node:crypto';
import { snapshotOf, type SnapshotId } from '../protocol/snapshots.js';
import { CHECKS, type ProfileId } from './catalogue.js';
import { REQUIREMENTS } from './requirements.js';

export interface RequirementText {
  readonly id: string;
  readonly level: 'MUST' | 'MUST NOT';
  readonly profile: ProfileId;
  /** sha256 (hex) of the requirement's canonical line, {@link requirementLine}. */
  readonly textSha256: string;
}

/** The requirement catalogue a snapshot is judged by. */
export interface RequirementTexts {
  /** The snapshot that publishes it: the one asked about, or the one it borrows from (`borrowed.requirements`). */
  readonly publishedBy: SnapshotId;
  /** Where upstream publishes it. */
  readonly source: string;
  readonly requirements: readonly RequirementText[];
}

/**
 * The line upstream hashes into `textSha256`: `**<id> — <level>.** <text>` (an em dash,
 * U+2014), as UTF-8. The level is in the line, so a changed level is a changed requirement.
 */
export function requirementLine(id: string, level: string, text: string): string {
  return `**${id} \u2014 ${level}.** ${text}`;
}

/** sha256 (hex) of {@link requirementLine}. */
export function requirementTextSha256(id: string, level: string, text: string): string {
  return createHash('sha256')
    .update(requirementLine(id, level, text), 'utf8')
    .digest('hex');
}

const row = (id: string, level: RequirementText['level'], profile: ProfileId, textSha256: string): RequirementText => ({
  id,
  level,
  profile,
  textSha256,
});

const PUBLISHED: readonly RequirementTexts[] = [
  {
    publishedBy: 'draft@2b5da580',
    // The 26-requirement revision (../shared/ahp-spec/PROVENANCE.md says which mirror).
    source: 'spec/draft/requirements.json@2b5da580',
    requirements: [
      row('AHP-CORE-001', 'MUST', 'base', '0bb239abb3b7451ae87c13c2c5c73c987d3dacb1bdc11f20ac0985fedb08c674'),
      row('AHP-CORE-002', 'MUST', 'base', '1ad023ca323f0ee0056a36d08f1af480622303e50aee9d4cdce27e9194aef842'),
      row('AHP-RPC-001', 'MUST', 'base', 'd4229b96428bcc48dcd50d517e0ccf2345fe8ebdc91fdf61fbc1dd66bcea1a58'),
      row('AHP-RPC-002', 'MUST', 'base', 'fe80bc624747441b72ff64b7a079dfe9c8835d0d7c76dce6a89104d275373386'),
      row('AHP-VER-001', 'MUST', 'base', '376d3336d8770d0dcf8aef3bd724eacc39c49e3cb1c07abfb452f82296df935c'),
      row('AHP-CORE-003', 'MUST', 'base', 'f9de92ae4f25a4c5f46881c3063572866d1166816e7e615344729a14ccfb7e60'),
      row('AHP-EXT-001', 'MUST', 'base', 'e57db1a42e18ed24c60b2f4df5f85b46dd399f770dd1c010e19e48a3cc016079'),
      row(
        'AHP-TB-001',
        'MUST',
        'tool-interception',
        '629a842f092227f86782fab574be603bbe5336c9bfeefd2381b99244aa7c6c0e',
      ),
      row(
        'AHP-CAP-001',
        'MUST',
        'tool-interception',
        'c50eced1fde9ac1d5f727ae1b5fdffc139f6afebe073c620c30aedc43239d00b',
      ),
      row(
        'AHP-CAP-002',
        'MUST',
        'tool-interception',
        '04602846c0ff7ada491773b0b851977c6b3f812158e551dc83fc24c1a57cda71',
      ),
      row(
        'AHP-DEC-001',
        'MUST',
        'tool-interception',
        '576ba0380365629b7559ac0f1d6f7162e18ac828e1feeb5853a003bb0bd1c406',
      ),
      row(
        'AHP-DEC-002',
        'MUST',
        'tool-interception',
        'f5841d12c4394e435a238861b4eb3f8c65e247d252e981fdaac0eac7eec40449',
      ),
      row(
        'AHP-DEC-003',
        'MUST NOT',
        'tool-interception',
        '358a67acc4e87deb921386d04e7eb1517b0f2cfba915c3f7bb59ce651debb2d7',
      ),
      row(
        'AHP-COMP-001',
        'MUST',
        'tool-interception',
        '60ffbc107ae4683f69bf63eed8772701e893bf360235f96cc20e978d88f0bb91',
      ),
      row(
        'AHP-FAIL-001',
        'MUST',
        'tool-interception',
        '0bac900c7ce4de4c3440ca9e2e241778fcf7fc3919bcc7747454dcf9d0961dab',
      ),
      row(
        'AHP-FAIL-002',
        'MUST',
        'tool-interception',
        'ae7aaf195102958a927ba62db8c9237a91b4a9b27f89838d2790dce6b29d714f',
      ),
      row('AHP-CORE-004', 'MUST', 'base', '90663747e25b213f99ae76b0447e01c7236430f66573584a2800825ab884f0d2'),
      row('AHP-STDIO-001', 'MUST', 'stdio', '2b49c89fa4b45f23c1604f495db1611e33be01453dc617c8064f95bfeb040916'),
      row('AHP-HTTP-001', 'MUST', 'http', '6ef06ee239aeaccc1a6907e8406c75daeb7d9c4526c396ea3cb4678b6250ed61'),
      row('AHP-REG-001', 'MUST', 'base', 'e4f7e723f67e011798febdbb015141a3219a9756e1a100aa5bea266a65cc0d0d'),
      row('AHP-REG-002', 'MUST', 'base', 'eaa3c5300eab2f858c95820e17f8be2dfa4c50a5b030d7fc4e12ea74213a55b4'),
      row('AHP-SEC-001', 'MUST NOT', 'base', '6fc2a9742a1d78b50b624b304febc588f284dbb50f354d022fbfa6d1dfc9d745'),
      row('AHP-AUTH-001', 'MUST', 'http', '0ad14ee3e6886ea960de0e7b904de853ce16cc257262197de6b09bc837b81b65'),
      row('AHP-CONTENT-001', 'MUST', 'base', '041ccf7a6f156cf0aea654a2ee3fe38c64862f9c8ff71d24de2941c7bf728f38'),
      row('AHP-CONTENT-002', 'MUST', 'base', '7d379477eb24c40f4b84e3509e3d33e98f1bd0c5479e55aeca785c824ea78e27'),
      row('AHP-EDIT-001', 'MUST', 'base', '68335e7380d400b594219927b935dabbeae35d0a15fbdc29bc586feb35bc495f'),
    ],
  },
];

/**
 * The requirement catalogue of `snapshot`, its own or the one it borrows; undefined when
 * neither publishes one.
 */
export function requirementTexts(snapshot: SnapshotId): RequirementTexts | undefined {
  const s = snapshotOf(snapshot);
  const from = s.borrowed.requirements ?? s.id;
  return PUBLISHED.find((p) => p.publishedBy === from);
}

/** One requirement a certificate relies on: its digest when judged, and the checks that judged it. */
export interface AttestedRequirement {
  id: string;
  textSha256: string;
  /** Sorted check ids; empty for a requirement judged by claim validation (see below). */
  checks: string[];
}

/**
 * Requirements no check judges because the claim's validation does: a claim that breaks them
 * is refused or incomplete before any check runs, so every certificate relies on them.
 */
const JUDGED_BY_CLAIM_VALIDATION = new Set(
  REQUIREMENTS.filter((r) => r.coveredBy?.startsWith('claim validation')).map((r) => r.id),
);

/**
 * What a certificate of `snapshot` relies on, given the checks that judged the claim (passed
 * or failed; leave out those declared not applicable): every requirement of the snapshot's
 * catalogue that one of `checkIds` judges (CHECKS[].requirements), with the sorted check ids
 * that judge it, plus those judged by claim validation, with `checks: []`. In catalogue order.
 * Throws on a check id the catalogue does not know and on a snapshot with no requirement
 * catalogue: both are mistakes of the caller, not of the claim.
 */
export function attestedRequirements(snapshot: SnapshotId, checkIds: readonly string[]): AttestedRequirement[] {
  const texts = requirementTexts(snapshot);
  if (texts === undefined) throw new Error(`${snapshot} has no requirement catalogue (its own or borrowed)`);
  const judging = new Map<string, Set<string>>();
  for (const id of checkIds) {
    const check = CHECKS.find((c) => c.id === id);
    if (check === undefined) throw new Error(`unknown check ${id}`);
    for (const r of check.requirements) {
      if (!judging.has(r)) judging.set(r, new Set());
      judging.get(r)!.add(id);
    }
  }
  const out: AttestedRequirement[] = [];
  for (const r of texts.requirements) {
    const checks = judging.get(r.id);
    if (checks) out.push({ id: r.id, textSha256: r.textSha256, checks: [...checks].sort() });
    else if (JUDGED_BY_CLAIM_VALIDATION.has(r.id)) out.push({ id: r.id, textSha256: r.textSha256, checks: [] });
  }
  return out;
}
