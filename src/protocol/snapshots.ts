// The upstream snapshots the runner can judge by, and what differs between them. One
// table: claims name a snapshot (`snapshot:`), the schema builders, validator, checks,
// reference implementations and every report read it from here.
//
// A snapshot of the Working Draft is named `draft@<short upstream commit>`; a released one,
// frozen by upstream and named by its release date, by that date alone (`2027-01-15`, its
// protocolVersion). Its identity is the
// protocol version, the full upstream commit and a schema-set digest. The digest is the
// sha256 of the upstream schema manifest (`schema/draft/manifest.json`, which lists every
// schema document with its own sha256) at that commit:
//  - 2b5da580: computed from the hash-verified manifest in ../shared/ahp-spec;
//  - 1d98c19: the value the official SDKs' codegen lock records as `schemaManifestSha256`
//    (../shared/ahp-spec-1d98c19/ahp-codegen.lock.json); the manifest itself is not published
//    with the SDKs. test/unit/snapshots.spec.ts checks both against the files.
// Plain `draft` in a claim means the newest snapshot the runner supports; the bundled claims
// pin theirs, so adding a snapshot never changes what an existing pinned claim is judged by.

/** A Working Draft snapshot: `draft@<short upstream commit>`. */
export type DraftSnapshotId = `draft@${string}`;
/** A released snapshot: its protocolVersion, the date of the release (`2027-01-15`). */
export type ReleasedSnapshotId = `${number}-${number}-${number}`;
/** Wide on purpose: the table below, not this type, says which snapshots exist (snapshotOf refuses others). */
export type SnapshotId = DraftSnapshotId | ReleasedSnapshotId;
/** The protocolVersion a snapshot's messages carry: `draft`, or a release's date. */
export type SnapshotProtocolVersion = 'draft' | ReleasedSnapshotId;

/** The date form of a released snapshot's id and protocolVersion. */
const RELEASE_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** Rules that differ between snapshots, each stated once and read where it is applied. */
export interface SnapshotRules {
  /**
   * `harness` ({name, version}) is required on every event by the schemas. When false, the
   * snapshot requires it only on `session.start` and the seed's base check 8 adds it as a
   * profile check on live traffic.
   */
  readonly harnessOnEveryEvent: boolean;
  /** `hooks/configuration` exists: a backend may serve it (nothing on the wire says so; its claim does: backend.configuration). */
  readonly configuration: boolean;
  /** A registration's backend may leave out `subscriptions` (the harness then asks `hooks/configuration`). */
  readonly subscriptionsOptional: boolean;
  /** An intercept result may leave out `effects` (no effect). */
  readonly effectsOptional: boolean;
  /**
   * Every intercept result (general, no-effect, deny) keeps out `manifest` and `configuration`
   * (intercept-*-response.schema.json@1d98c19); 2b5da580 keeps a manifest out of the general one only.
   */
  readonly interceptResultsExclusive: boolean;
  /**
   * The deny result's single effect may be any valid effect: intercept-deny-response.schema.json@1d98c19
   * refers to effect.schema.json where 2b5da580 named deny-effect.schema.json.
   */
  readonly denyResultAnyEffect: boolean;
  /**
   * A registration's HTTP transport may carry `headers` (literal values or env/secret sources) and a
   * stdio transport `env` (registration.schema.json@1d98c19 $defs httpHeaderValue/httpHeaderSource).
   */
  readonly transportHeadersAndEnv: boolean;
  /** `session.counters` is an object of non-negative integers (common.schema.json@1d98c19 $defs/SessionCounters). */
  readonly sessionCounters: boolean;
  /**
   * Modify values are typed further: an object answer at `content` is MCP form answers, a
   * `workspace` value a workspace state (effect.schema.json@1d98c19 ModifyFormEffect, ModifyWorkspaceEffect).
   */
  readonly modifyValuesTyped: boolean;
  /**
   * An intercept request's chain state is typed per event: `injections` are inject effects, and the
   * candidate value is a message list at model.request.before, a text-part list at
   * context.compact.before and an MCP elicitation result at user.elicitation.request
   * (intercept-request.schema.json@1d98c19 $defs MessagesState, TextState, ElicitResultState, ToolState).
   */
  readonly interceptStateTyped: boolean;
}

export interface Snapshot {
  /** `draft@<short commit>` for a draft snapshot; the protocolVersion for a released one. */
  readonly id: SnapshotId;
  readonly protocolVersion: SnapshotProtocolVersion;
  /** Full upstream commit of agenthooksprotocol/agent-hooks-protocol. */
  readonly commit: string;
  /** sha256 (hex) of the upstream schema manifest at that commit (see the header). */
  readonly schemaDigest: string;
  /** Where the digest comes from, for reports and docs. */
  readonly digestSource: string;
  /** The folder beside the project (`../shared/<specDir>`) that holds the snapshot's published material. */
  readonly specDir: string;
  /**
   * Which snapshot's material stands in where this one publishes none. Requirement texts,
   * fixtures and profiles of 1d98c19 are not available; 2b5da580's are used and marked.
   */
  readonly borrowed: {
    readonly fixtures?: SnapshotId;
    readonly requirements?: SnapshotId;
    readonly profiles?: SnapshotId;
  };
  readonly rules: SnapshotRules;
}

export const SNAPSHOTS: readonly Snapshot[] = [
  {
    id: 'draft@2b5da580',
    protocolVersion: 'draft',
    commit: '2b5da5809b9b638d4c368e39818ee8f3c19263dc',
    schemaDigest: 'e4690b48c58d4197edc64642b03d46f8cc92d3ef0bc02fcec136a7fdaa9d0318',
    digestSource: 'sha256 of schema/draft/manifest.json@2b5da580',
    specDir: 'ahp-spec',
    borrowed: {},
    rules: {
      harnessOnEveryEvent: false,
      configuration: false,
      subscriptionsOptional: false,
      effectsOptional: false,
      interceptResultsExclusive: false,
      denyResultAnyEffect: false,
      transportHeadersAndEnv: false,
      sessionCounters: false,
      modifyValuesTyped: false,
      interceptStateTyped: false,
    },
  },
  {
    id: 'draft@1d98c19',
    protocolVersion: 'draft',
    commit: '1d98c19bf4558d998ef8af32b2ac54f604899c20',
    schemaDigest: '43180d87739428062c5b0f1f7bef1342a128e1f45418a2ba8bb95d038ef3f5ec',
    digestSource: 'schemaManifestSha256 of the official SDKs’ ahp-codegen.lock.json (sourceCommit 1d98c19)',
    specDir: 'ahp-spec-1d98c19',
    borrowed: { fixtures: 'draft@2b5da580', requirements: 'draft@2b5da580', profiles: 'draft@2b5da580' },
    // Each difference is shown by the 1d98c19 file named in its rule's comment above.
    rules: {
      harnessOnEveryEvent: true,
      configuration: true,
      subscriptionsOptional: true,
      effectsOptional: true,
      interceptResultsExclusive: true,
      denyResultAnyEffect: true,
      transportHeadersAndEnv: true,
      sessionCounters: true,
      modifyValuesTyped: true,
      interceptStateTyped: true,
    },
  },
];

/** The newest snapshot the runner supports: what plain `draft` resolves to. */
export const NEWEST_SNAPSHOT: SnapshotId = 'draft@1d98c19';
/** The snapshot of the original schemas and fixtures, and the default of the API when none is given. */
export const OLDEST_SNAPSHOT: SnapshotId = 'draft@2b5da580';

export const SNAPSHOT_IDS: readonly SnapshotId[] = SNAPSHOTS.map((s) => s.id);

export function snapshotOf(id: SnapshotId, table: readonly Snapshot[] = SNAPSHOTS): Snapshot {
  const s = table.find((x) => x.id === id);
  if (s === undefined) throw new Error(`unknown snapshot ${id}`);
  return s;
}

/**
 * A claim's `snapshot:` value to a snapshot of `table`: `draft` is the newest; `draft@<commit>`
 * takes any unambiguous prefix of at least 7 hex digits of the full commit of a draft
 * snapshot; a date (`2027-01-15`) names the released snapshot whose protocolVersion it is.
 * Undefined when none fits. `table` is for self-tests that add a snapshot; callers leave it out.
 */
export function resolveSnapshot(name: string, table: readonly Snapshot[] = SNAPSHOTS): Snapshot | undefined {
  if (name === 'draft') return table.find((s) => s.id === NEWEST_SNAPSHOT);
  if (RELEASE_DATE.test(name)) {
    const hits = table.filter((s) => s.protocolVersion === name);
    return hits.length === 1 ? hits[0] : undefined;
  }
  const m = /^draft@([0-9a-f]{7,40})$/.exec(name);
  if (m === null) return undefined;
  const hits = table.filter((s) => s.protocolVersion === 'draft' && s.commit.startsWith(m[1]!));
  return hits.length === 1 ? hits[0] : undefined;
}

/** The one-line identity reports print: `draft@2b5da580 (commit 2b5da58…, schema digest e4690b48…)`. */
export function snapshotLabel(id: SnapshotId): string {
  const s = snapshotOf(id);
  return `${s.id} (upstream commit ${s.commit.slice(0, 12)}, schema digest ${s.schemaDigest.slice(0, 12)})`;
}
