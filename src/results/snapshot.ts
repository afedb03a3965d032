// The snapshot a claim was judged by, as every view names it: results.json records the
// identity (id, protocol version, full commit, schema digest) and what the claim asked for;
// the closing line, JUnit, the claim page, the matrix, --baseline and merge read it here.
import { resolveSnapshot, snapshotOf, type SnapshotId } from '../protocol/snapshots.js';

/** The snapshot of one claim's results (results.json `claim.snapshot`). */
export interface SnapshotSummary {
  /** `draft@2b5da580`; `unknown` for a claim that was incomplete before its snapshot resolved. */
  id: string;
  /** What the claim's `snapshot:` said (`draft` when it said nothing). */
  requested: string;
  /** Absent only when the id is `unknown`. */
  protocolVersion?: string;
  /** The full upstream commit. */
  commit?: string;
  /** sha256 of the upstream schema manifest (src/protocol/snapshots.ts says where each comes from). */
  schemaDigest?: string;
}

export const UNKNOWN_SNAPSHOT = 'unknown';

/**
 * Results of schema version 1 record `snapshot: "draft"`, a bare name. When they were
 * written the runner knew one snapshot only, upstream commit 2b5da580, so that is what
 * such results were judged by.
 */
export const LEGACY_SNAPSHOT: SnapshotId = 'draft@2b5da580';

export function snapshotSummary(id: SnapshotId, requested: string): SnapshotSummary {
  const s = snapshotOf(id);
  return { id, requested, protocolVersion: s.protocolVersion, commit: s.commit, schemaDigest: s.schemaDigest };
}

/** A claim that never resolved (incomplete before loading finished): its `snapshot:` text if it names one. */
export function requestedSnapshot(requested: string | undefined): SnapshotSummary {
  const s = requested === undefined ? undefined : resolveSnapshot(requested);
  if (s) return snapshotSummary(s.id, requested!);
  return { id: UNKNOWN_SNAPSHOT, requested: requested ?? UNKNOWN_SNAPSHOT };
}

/** A recorded `claim.snapshot` in the current shape, whatever results version wrote it. */
export function readSnapshot(recorded: unknown): SnapshotSummary {
  if (typeof recorded === 'string') {
    // Version 1: see LEGACY_SNAPSHOT. A name that was not `draft` cannot have been written by us.
    return recorded === 'draft' ? snapshotSummary(LEGACY_SNAPSHOT, 'draft') : requestedSnapshot(recorded);
  }
  const o = recorded as Partial<SnapshotSummary> | null | undefined;
  if (o && typeof o.id === 'string') return { ...o, id: o.id, requested: o.requested ?? o.id };
  return { id: UNKNOWN_SNAPSHOT, requested: UNKNOWN_SNAPSHOT };
}

/** `draft@1d98c19`, or `draft@1d98c19 (plain draft)` when the claim said `draft` and the runner chose. */
export function snapshotName(s: SnapshotSummary): string {
  if (s.id === UNKNOWN_SNAPSHOT)
    return s.requested === UNKNOWN_SNAPSHOT ? 'snapshot unknown' : `snapshot "${s.requested}" unknown`;
  return s.requested === s.id ? s.id : `${s.id} (the claim said ${s.requested})`;
}

/** `draft@1d98c19 (upstream commit 1d98c19bf455…, schema digest 43180d877394…)`. */
export function snapshotIdentity(s: SnapshotSummary): string {
  if (!s.commit) return snapshotName(s);
  return `${s.id} (upstream commit ${s.commit}, schema digest ${s.schemaDigest ?? 'unknown'})`;
}

/** The snapshot id if this runner knows it, for catalogue lookups. */
export function knownSnapshot(s: SnapshotSummary): SnapshotId | undefined {
  return resolveSnapshot(s.id)?.id === s.id ? (s.id as SnapshotId) : undefined;
}
