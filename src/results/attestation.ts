// The certificate that travels: one claim's results as an in-toto Statement v1 in a DSSE
// envelope (attestation.intoto.jsonl, one line, beside results.json), signed with an
// ed25519 key. docs/reports.md ("Attestation") documents the format with an example.
//
// - Subjects: results.json, junit.xml and index.html of the claim folder, the claim file,
//   and every file of the implementation hashed before launch (src/engine/implementation-files.ts).
// - Predicate: in-toto's test-result v0.1 (`result`, `configuration`, `passedTests`,
//   `warnedTests`, `failedTests`: what generic in-toto tooling reads) with our own fields
//   under `ahp` (what a conformance certificate needs): runner and its package digest,
//   snapshot identity, each requirement judged with its upstream textSha256 and the checks
//   that cover it, the check catalogue digest, containment, certification, verdicts.
// - DSSE signs the payload's exact bytes (PAE), so no canonical JSON is needed: the payload
//   is kept as the base64 of the bytes that were signed.
// Node's own crypto signs and verifies (ed25519): no dependency of ours is trusted with keys.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CHECKS } from '../checks/catalogue.js';
import { attestedRequirements, type AttestedRequirement } from '../checks/requirement-texts.js';
import { SNAPSHOTS, type SnapshotId } from '../protocol/snapshots.js';
import { packageRoot } from '../package-root.js';
import { readRegularFile, SafeFsError } from '../safe-fs.js';
import { stableJson, targetLabel, type ClaimResults, type ImplementationFile, type TargetKey } from './model.js';

export const ATTESTATION_FILE = 'attestation.intoto.jsonl';
export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'https://in-toto.io/attestation/test-result/v0.1';
/** The version of what `predicate.ahp` holds. */
export const AHP_PREDICATE_VERSION = 1;
/** The most bytes of an attestation, a key file or a statement anyone reads. */
export const MAX_ATTESTATION_BYTES = 16 * 1024 * 1024;
const MAX_KEY_BYTES = 64 * 1024;

/** Subject names of the claim folder's own files; the claim and implementation files are prefixed. */
export const CLAIM_SUBJECT = 'claim:';
export const IMPLEMENTATION_SUBJECT = 'implementation:';

export interface Subject {
  name: string;
  digest: { sha256: string };
}

export type { AttestedRequirement };

export interface AhpPredicate {
  version: number;
  /** When the statement was signed (ISO 8601, UTC). */
  signedAt: string;
  runner: { name: string; version: string; packageSha256: string };
  implementation: { name: string; version: string };
  claim: { file: string; sha256?: string };
  /** Only `id` when the results name no snapshot of the table (a claim that never resolved). */
  snapshot: { id: string; protocolVersion?: string; commit?: string; schemaDigest?: string; requirementsFrom?: string };
  /** sha256 of the check catalogue (every check's row, stable JSON): which checks "a check id" meant. */
  catalogueSha256: string;
  requirements: AttestedRequirement[];
  containment?: ClaimResults['containment'];
  certification: boolean;
  verdict: string;
  reason?: string;
  targets: (TargetKey & { verdict: string })[];
  /** Every file of the implementation, also those that could not be hashed (with why). */
  implementationFiles: ImplementationFile[];
}

export interface Statement {
  _type: string;
  subject: Subject[];
  predicateType: string;
  predicate: {
    result: 'PASSED' | 'WARNED' | 'FAILED';
    configuration: { name: string; digest?: { sha256: string } }[];
    passedTests: string[];
    warnedTests: string[];
    failedTests: string[];
    ahp: AhpPredicate;
  };
}

export interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

const sha256 = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** DSSE's pre-authentication encoding: what is signed, binding the payload to its type. */
export function pae(type: string, body: Buffer): Buffer {
  const t = Buffer.from(type, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body]);
}

/** A public key's id: the sha256 (hex) of its DER SubjectPublicKeyInfo, as keygen prints it. */
export function keyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return sha256(pub.export({ type: 'spki', format: 'der' }));
}

function readKeyFile(path: string, what: string): string {
  const r = readRegularFile(path, { maxBytes: MAX_KEY_BYTES });
  if (r.kind === 'missing') throw new SafeFsError(`${what} ${path}: no such file`);
  if (r.kind === 'refused') throw new SafeFsError(`${what} ${path}: ${r.why}; not read`);
  return r.bytes.toString('utf8');
}

/** An ed25519 private key (PKCS#8 PEM, as keygen writes it), or a one-line SafeFsError. */
export function loadSigningKey(path: string): KeyObject {
  const text = readKeyFile(path, '--sign-key');
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new SafeFsError(
      `--sign-key ${path}: not a PEM private key (make one with \`ahp-conformance keygen <prefix>\`)`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new SafeFsError(
      `--sign-key ${path}: its key type is ${key.asymmetricKeyType ?? 'not asymmetric'}; an ed25519 key signs`,
    );
  return key;
}

/** An ed25519 public key (SPKI PEM, as keygen writes it), or a one-line SafeFsError. */
export function loadPublicKey(path: string): KeyObject {
  const text = readKeyFile(path, '--key');
  // A private key would do (its public half is derived), but it must not travel to whoever verifies.
  if (text.includes('PRIVATE KEY'))
    throw new SafeFsError(`--key ${path}: a private key; give the public key (the <prefix>.pub keygen wrote)`);
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch {
    throw new SafeFsError(`--key ${path}: not a PEM public key (the <prefix>.pub keygen wrote)`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new SafeFsError(
      `--key ${path}: its key type is ${key.asymmetricKeyType ?? 'not asymmetric'}; an ed25519 key verifies`,
    );
  return key;
}

let packageDigest: string | undefined;
/**
 * The runner's own installed code: sha256 over the sorted list of `<sha256>  <path>` lines
 * of package.json and every regular file under bin/, dist/ (less dist/scripts/ and source
 * maps) and schemas/: what a run executes and validates with, not its docs.
 */
export function runnerPackageDigest(): string {
  if (packageDigest) return packageDigest;
  const root = packageRoot();
  const lines: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      const rel = relative(root, p).split(sep).join('/');
      if (rel === 'dist/scripts' || rel.endsWith('.map')) continue;
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        const r = readRegularFile(p, { maxBytes: 256 * 1024 * 1024 });
        lines.push(`${r.kind === 'ok' ? sha256(r.bytes) : '-'}  ${rel}`);
      }
    }
  };
  for (const d of ['bin', 'dist', 'schemas']) walk(join(root, d));
  const pkg = readRegularFile(join(root, 'package.json'), { maxBytes: MAX_KEY_BYTES });
  lines.push(`${pkg.kind === 'ok' ? sha256(pkg.bytes) : '-'}  package.json`);
  packageDigest = sha256(lines.sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1)).join('\n'));
  return packageDigest;
}

/** sha256 of the check catalogue as stable JSON. */
export const catalogueDigest = (): string => sha256(stableJson(CHECKS));

/**
 * The requirements a claim's results judged: each with its upstream text digest in the
 * snapshot's catalogue and the checks of the run that cover it (those that came to a
 * verdict: a check left out or not run proved nothing).
 */
export function judgedRequirements(r: ClaimResults): AttestedRequirement[] {
  const judged = new Set(['passed', 'failed', 'warning', 'incomplete']);
  // Only checks of this catalogue (results of another runner version may name others: they prove nothing here).
  const known = new Set(CHECKS.map((c) => c.id));
  const ids = [...new Set(r.checks.filter((c) => judged.has(c.status) && known.has(c.id)).map((c) => c.id))];
  // Results of a claim that never resolved name no snapshot of the table: nothing was judged by one.
  if (!SNAPSHOTS.some((s) => s.id === r.claim.snapshot.id)) return [];
  return attestedRequirements(r.claim.snapshot.id as SnapshotId, ids);
}

/** The digests of the views written into the claim folder (src/results/write.ts). */
export interface WrittenViews {
  results: string;
  junit: string;
  report: string;
}

export interface StatementInput {
  results: ClaimResults;
  views: WrittenViews;
  requirements: AttestedRequirement[];
  signedAt: string;
}

const testName = (c: { id: string } & TargetKey): string => `${c.id} ${targetLabel(c)}`;

/** The in-toto Statement of one claim's results. */
export function buildStatement({ results: r, views, requirements, signedAt }: StatementInput): Statement {
  const files = r.claim.implementationFiles ?? [];
  const claimName = `${CLAIM_SUBJECT}${r.claim.file}`;
  const subject: Subject[] = [
    { name: 'results.json', digest: { sha256: views.results } },
    { name: 'junit.xml', digest: { sha256: views.junit } },
    { name: 'index.html', digest: { sha256: views.report } },
    ...(r.claim.digest ? [{ name: claimName, digest: { sha256: r.claim.digest } }] : []),
    ...files.flatMap((f) =>
      f.sha256 ? [{ name: `${IMPLEMENTATION_SUBJECT}${f.name}`, digest: { sha256: f.sha256 } }] : [],
    ),
  ];
  const snap = SNAPSHOTS.find((s) => s.id === r.claim.snapshot.id);
  const warned = r.checks.some((c) => c.status === 'warning');
  return {
    _type: STATEMENT_TYPE,
    subject,
    predicateType: PREDICATE_TYPE,
    predicate: {
      // Generic tooling reads a pass only for a conformant verdict; partial and incomplete are not passes.
      result: r.verdict !== 'conformant' ? 'FAILED' : warned ? 'WARNED' : 'PASSED',
      configuration: [{ name: claimName, ...(r.claim.digest ? { digest: { sha256: r.claim.digest } } : {}) }],
      passedTests: r.checks.filter((c) => c.status === 'passed').map(testName),
      warnedTests: r.checks.filter((c) => c.status === 'warning').map(testName),
      failedTests: r.checks.filter((c) => c.status === 'failed' || c.status === 'incomplete').map(testName),
      ahp: {
        version: AHP_PREDICATE_VERSION,
        signedAt,
        runner: { name: r.runner.name, version: r.runner.version, packageSha256: runnerPackageDigest() },
        implementation: r.claim.implementation,
        claim: { file: r.claim.file, ...(r.claim.digest ? { sha256: r.claim.digest } : {}) },
        snapshot: snap
          ? {
              id: snap.id,
              protocolVersion: snap.protocolVersion,
              commit: snap.commit,
              schemaDigest: snap.schemaDigest,
              ...(snap.borrowed.requirements ? { requirementsFrom: snap.borrowed.requirements } : {}),
            }
          : { id: r.claim.snapshot.id },
        catalogueSha256: catalogueDigest(),
        requirements,
        ...(r.containment ? { containment: r.containment } : {}),
        certification: r.run?.certification === true,
        verdict: r.verdict,
        ...(r.reason ? { reason: r.reason } : {}),
        targets: r.targets.map((t) => ({
          role: t.role,
          transport: t.transport,
          ...(t.lifecycle ? { lifecycle: t.lifecycle } : {}),
          verdict: t.verdict,
        })),
        implementationFiles: files,
      },
    },
  };
}

/** The envelope line of a statement: signed with `key`, or with no signature when none is given. */
export function envelopeLine(statement: Statement, key?: KeyObject): string {
  const body = Buffer.from(JSON.stringify(statement), 'utf8');
  const signatures = key
    ? [{ keyid: keyId(key), sig: sign(null, pae(PAYLOAD_TYPE, body), key).toString('base64') }]
    : [];
  const envelope: Envelope = { payloadType: PAYLOAD_TYPE, payload: body.toString('base64'), signatures };
  return `${JSON.stringify(envelope)}\n`;
}

export type ReadAttestation =
  | { kind: 'missing' }
  | { kind: 'refused'; why: string }
  | { kind: 'invalid'; why: string }
  | { kind: 'ok'; envelope: Envelope; body: Buffer; statement: Statement };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isHex64 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** A claim folder's attestation, read bounded and checked for shape (not yet for its signature). */
export function readAttestation(dir: string): ReadAttestation {
  const r = readRegularFile(join(dir, ATTESTATION_FILE), { maxBytes: MAX_ATTESTATION_BYTES });
  if (r.kind !== 'ok') return r;
  const lines = r.bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (lines.length !== 1) return { kind: 'invalid', why: `it holds ${lines.length} envelopes, not 1` };
  let env: unknown;
  try {
    env = JSON.parse(lines[0]!);
  } catch {
    return { kind: 'invalid', why: 'it is not JSON' };
  }
  if (
    !isObj(env) ||
    env.payloadType !== PAYLOAD_TYPE ||
    typeof env.payload !== 'string' ||
    !Array.isArray(env.signatures) ||
    !env.signatures.every((s) => isObj(s) && typeof s.sig === 'string' && typeof (s.keyid ?? '') === 'string')
  )
    return { kind: 'invalid', why: `it is not a DSSE envelope of ${PAYLOAD_TYPE}` };
  const body = Buffer.from(env.payload, 'base64');
  let st: unknown;
  try {
    st = JSON.parse(body.toString('utf8'));
  } catch {
    return { kind: 'invalid', why: 'its payload is not JSON' };
  }
  if (
    !isObj(st) ||
    st._type !== STATEMENT_TYPE ||
    st.predicateType !== PREDICATE_TYPE ||
    !Array.isArray(st.subject) ||
    !st.subject.every((s) => isObj(s) && typeof s.name === 'string' && isObj(s.digest) && isHex64(s.digest.sha256)) ||
    !isObj(st.predicate) ||
    !isObj(st.predicate.ahp)
  )
    return {
      kind: 'invalid',
      why: `its payload is not an in-toto Statement v1 of ${PREDICATE_TYPE} by ahp-conformance`,
    };
  return { kind: 'ok', envelope: env as unknown as Envelope, body, statement: st as unknown as Statement };
}

/** The key id of the signature `key` verifies, or undefined when none does. */
export function signatureBy(a: { envelope: Envelope; body: Buffer }, key: KeyObject): string | undefined {
  const signed = pae(a.envelope.payloadType, a.body);
  for (const s of a.envelope.signatures) {
    let ok = false;
    try {
      ok = verify(null, signed, key, Buffer.from(s.sig, 'base64'));
    } catch {
      ok = false;
    }
    if (ok) return keyId(key);
  }
  return undefined;
}
