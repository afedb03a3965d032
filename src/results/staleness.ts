// Whether a certificate still holds for a newer upstream catalogue. A certificate attests,
// for every requirement it relied on, the sha256 of the requirement's text
// (src/checks/requirement-texts.ts); a snapshot folder laid out like ../shared/ahp-spec
// publishes the current texts in `spec/<version>/requirements.json`. Each requirement is then
// unchanged, changed (the certificate is stale for it), removed, or new (in the catalogue and
// not covered by the certificate). The certificate is fresh when nothing it relied on changed
// or was removed: a new requirement is a gap in coverage, not a stale proof.
//
// The digest of each requirement is recomputed from its text, never taken from the
// published `textSha256` field: an edited text with a stale field is still a changed
// requirement. A field that disagrees with its text is noted.
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { requirementTextSha256, type AttestedRequirement } from '../checks/requirement-texts.js';
import { isObject, parseJsonBytes } from '../protocol/json.js';
import { readRegularFile } from '../safe-fs.js';

/** One line saying what is wrong with the snapshot folder or its catalogue: bad input (exit 2). */
export class CatalogueError extends Error {}

/** Today's catalogue has 13 KB; a thousand times that is still a catalogue, more is not. */
export const MAX_CATALOGUE_BYTES = 16 * 1024 * 1024;
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export interface CatalogueRequirement {
  readonly id: string;
  readonly level: string;
  readonly profile?: string;
  /** sha256 of the requirement's canonical line, recomputed from its text. */
  readonly textSha256: string;
  /** The published `textSha256` field, only when it is not the digest of the text. */
  readonly recordedSha256?: string;
}

export interface RequirementCatalogue {
  /** The file read, as the folder given names it. */
  readonly path: string;
  /** `<version>` of `spec/<version>/`: `draft`, or a release date. */
  readonly version: string;
  /** The file's `protocolVersion`, when it states one. */
  readonly protocolVersion?: string;
  readonly requirements: readonly CatalogueRequirement[];
  /** One line per published `textSha256` that is not its text's digest. */
  readonly notes: readonly string[];
}

const VERSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const REQUIREMENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const LEVEL = /^[A-Z]+( [A-Z]+){0,3}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** A folder of the snapshot folder, never reached through a symlink; false when absent. */
function realFolder(path: string): boolean {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return false;
  }
  if (st.isSymbolicLink()) throw new CatalogueError(`${path} is a symbolic link; not followed`);
  if (!st.isDirectory()) throw new CatalogueError(`${path} is not a folder`);
  return true;
}

/** A JSON file of the snapshot folder: bounded, never through a symlink, strictly parsed. */
function readJson(path: string, maxBytes: number): unknown {
  const r = readRegularFile(path, { maxBytes });
  if (r.kind === 'missing') throw new CatalogueError(`${path} does not exist`);
  if (r.kind === 'refused') throw new CatalogueError(`${path}: ${r.why}; not read`);
  const parsed = parseJsonBytes(r.bytes);
  if (!parsed.ok) {
    const f = parsed.findings[0]!;
    throw new CatalogueError(`${path} is not valid JSON (${f.path || 'document'}: ${f.message})`);
  }
  return parsed.value;
}

/** The versions under `spec/` that hold a requirements.json (whatever it is: reading it decides). */
function catalogueVersions(folder: string): string[] {
  const spec = join(folder, 'spec');
  if (!realFolder(spec)) return [];
  return readdirSync(spec)
    .filter((v) => VERSION_NAME.test(v))
    .filter((v) => {
      try {
        lstatSync(join(spec, v, 'requirements.json'));
        return true;
      } catch {
        return false;
      }
    })
    .sort();
}

/** The versions the conformance manifests name as `canonicalRequirements` (`spec/<version>/requirements.json`). */
function canonicalVersions(folder: string): string[] {
  const conformance = join(folder, 'conformance');
  if (!realFolder(conformance)) return [];
  const named = new Set<string>();
  for (const v of readdirSync(conformance).filter((n) => VERSION_NAME.test(n))) {
    const path = join(conformance, v, 'manifest.json');
    let exists = true;
    try {
      lstatSync(path);
    } catch {
      exists = false;
    }
    if (!exists) continue;
    const manifest = readJson(path, MAX_MANIFEST_BYTES);
    const canonical = isObject(manifest) ? manifest.canonicalRequirements : undefined;
    if (canonical === undefined) continue;
    const m = typeof canonical === 'string' ? /^spec\/([^/]+)\/requirements\.json$/.exec(canonical) : null;
    if (m === null || !VERSION_NAME.test(m[1]!))
      throw new CatalogueError(`${path}: canonicalRequirements is not spec/<version>/requirements.json`);
    named.add(m[1]!);
  }
  return [...named].sort();
}

/**
 * Which `spec/<version>/` to read: `version` when given; else the only one there is; else the
 * one the conformance manifests name as canonicalRequirements. Several and no single one
 * named is refused, listing them: comparing with the wrong version would be a wrong answer.
 */
function chooseVersion(folder: string, version: string | undefined): string {
  if (version !== undefined) {
    if (!VERSION_NAME.test(version)) throw new CatalogueError(`${JSON.stringify(version)} is not a version name`);
    return version;
  }
  const versions = catalogueVersions(folder);
  if (versions.length === 0)
    throw new CatalogueError(
      `${folder}: no spec/<version>/requirements.json (give a snapshot folder laid out like upstream's repository)`,
    );
  if (versions.length === 1) return versions[0]!;
  const named = canonicalVersions(folder).filter((v) => versions.includes(v));
  if (named.length === 1) return named[0]!;
  throw new CatalogueError(
    `${folder}: requirement catalogues of several versions (${versions.map((v) => `spec/${v}`).join(', ')}) and ` +
      (named.length === 0
        ? 'no conformance/<version>/manifest.json names one as canonicalRequirements'
        : `the conformance manifests name ${named.length} of them as canonicalRequirements`),
  );
}

/**
 * The requirement catalogue of a snapshot folder: `<folder>/spec/<version>/requirements.json`,
 * read bounded and never through a symlink, every digest recomputed from its text. Throws a
 * {@link CatalogueError} (one line) for a folder or file that is missing, refused or invalid.
 */
export function readRequirementCatalogue(folder: string, opts: { version?: string } = {}): RequirementCatalogue {
  try {
    if (!statSync(folder).isDirectory()) throw new CatalogueError(`${folder} is not a folder`);
  } catch (e) {
    if (e instanceof CatalogueError) throw e;
    throw new CatalogueError(`${folder}: no such folder`);
  }
  const version = chooseVersion(folder, opts.version);
  if (!realFolder(join(folder, 'spec')) || !realFolder(join(folder, 'spec', version)))
    throw new CatalogueError(`${join(folder, 'spec', version)}: no such folder`);
  const path = join(folder, 'spec', version, 'requirements.json');
  const doc = readJson(path, MAX_CATALOGUE_BYTES);
  const bad = (what: string): CatalogueError => new CatalogueError(`${path}: ${what}`);
  if (!isObject(doc) || !Array.isArray(doc.requirements)) throw bad('no requirements list');
  const requirements: CatalogueRequirement[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  doc.requirements.forEach((r: unknown, i: number) => {
    const at = `requirements[${i}]`;
    if (!isObject(r)) throw bad(`${at} is not an object`);
    const { id, level, text, profile, textSha256: recorded } = r;
    if (typeof id !== 'string' || !REQUIREMENT_ID.test(id)) throw bad(`${at}.id is not a requirement id`);
    if (seen.has(id)) throw bad(`${id} is listed twice`);
    seen.add(id);
    if (typeof level !== 'string' || !LEVEL.test(level)) throw bad(`${id}: level is not a requirement level`);
    if (typeof text !== 'string') throw bad(`${id}: no text`);
    if (profile !== undefined && (typeof profile !== 'string' || !VERSION_NAME.test(profile)))
      throw bad(`${id}: profile is not a profile id`);
    if (recorded !== undefined && (typeof recorded !== 'string' || !SHA256.test(recorded)))
      throw bad(`${id}: textSha256 is not a sha256 in hex`);
    const digest = requirementTextSha256(id, level, text);
    const disagrees = typeof recorded === 'string' && recorded !== digest;
    if (disagrees)
      notes.push(
        `${id}: the published textSha256 ${short(recorded)} is not the digest of its text (${short(digest)}); the text counts`,
      );
    requirements.push({
      id,
      level,
      ...(profile !== undefined ? { profile } : {}),
      textSha256: digest,
      ...(disagrees ? { recordedSha256: recorded } : {}),
    });
  });
  const pv = doc.protocolVersion;
  return {
    path,
    version,
    ...(typeof pv === 'string' && VERSION_NAME.test(pv) ? { protocolVersion: pv } : {}),
    requirements,
    notes,
  };
}

export type RequirementState = 'unchanged' | 'changed' | 'removed' | 'new';

export interface StalenessRow {
  readonly id: string;
  readonly state: RequirementState;
  /** The digest the certificate attests (absent for `new`). */
  readonly certified?: string;
  /** The digest of the catalogue's text (absent for `removed`). */
  readonly current?: string;
  /** The checks that judged it, as attested (empty: claim validation, or `new`). */
  readonly checks: readonly string[];
}

export interface Staleness {
  /** The catalogue's requirements in its order, then those it no longer has. */
  readonly rows: readonly StalenessRow[];
  readonly counts: Readonly<Record<RequirementState, number>>;
  /** Nothing the certificate relied on changed or was removed. */
  readonly fresh: boolean;
}

/** Compare what a certificate attests (ids unique) with a catalogue. */
export function staleness(
  attested: readonly AttestedRequirement[],
  catalogue: Pick<RequirementCatalogue, 'requirements'>,
): Staleness {
  const certified = new Map(attested.map((a) => [a.id, a]));
  const rows: StalenessRow[] = [];
  for (const r of catalogue.requirements) {
    const a = certified.get(r.id);
    if (a === undefined) rows.push({ id: r.id, state: 'new', current: r.textSha256, checks: [] });
    else
      rows.push({
        id: r.id,
        state: a.textSha256.toLowerCase() === r.textSha256 ? 'unchanged' : 'changed',
        certified: a.textSha256,
        current: r.textSha256,
        checks: a.checks,
      });
  }
  const present = new Set(catalogue.requirements.map((r) => r.id));
  for (const a of certified.values())
    if (!present.has(a.id)) rows.push({ id: a.id, state: 'removed', certified: a.textSha256, checks: a.checks });
  const counts = { unchanged: 0, changed: 0, removed: 0, new: 0 };
  for (const r of rows) counts[r.state]++;
  return { rows, counts, fresh: counts.changed === 0 && counts.removed === 0 };
}

const short = (hex: string): string => `${hex.slice(0, 12)}…`;
const judgedBy = (checks: readonly string[]): string => (checks.length === 0 ? 'claim validation' : checks.join(', '));

/**
 * What `verify --snapshot` prints: the catalogue's notes, one line per requirement that is
 * not unchanged, and a closing line with the counts and whether the certificate is fresh.
 */
export function stalenessLines(s: Staleness, catalogue: Pick<RequirementCatalogue, 'path' | 'notes'>): string[] {
  const lines = [...catalogue.notes];
  for (const r of s.rows) {
    if (r.state === 'changed')
      lines.push(
        `${r.id}: changed: its text is not the one certified (sha256 ${short(r.certified!)} certified, ${short(r.current!)} now); the certificate is stale for it (judged by ${judgedBy(r.checks)})`,
      );
    else if (r.state === 'removed')
      lines.push(
        `${r.id}: removed: no longer in the catalogue; the certificate relied on it (judged by ${judgedBy(r.checks)})`,
      );
    else if (r.state === 'new') lines.push(`${r.id}: new: not covered by this certificate`);
  }
  const c = s.counts;
  const stale = c.changed + c.removed;
  lines.push(
    `${catalogue.path}: ${c.unchanged} unchanged, ${c.changed} changed, ${c.removed} removed, ${c.new} new: ` +
      (s.fresh
        ? 'fresh (nothing the certificate relied on changed)'
        : `STALE for ${stale} requirement${stale === 1 ? '' : 's'} it relied on`),
  );
  return lines;
}
