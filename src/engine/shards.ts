// Sharding one run across machines with Playwright's own `--shard i/n` and blob reports,
// and merging the shards back into one set of conformance reports.
//
// Each shard records in Playwright's config metadata (which blob reports keep, and which
// `playwright merge-reports` unions key by key) what the merge needs and cannot otherwise
// know: the claims as results.json describes them, their targets, and one key per shard.
// The merge refuses shards of different claims or runner versions, and marks every claim
// incomplete while a shard is missing: a missing shard silently drops checks, and a
// verdict over fewer checks than planned would be a false certificate.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClaimSummary, TargetKey } from '../results/model.js';
import { claimTargets, type RunPlan } from './plan.js';
import type { ContainmentState } from '../../drivers/containment.js';

/** Set by `ahp-conformance run --shard i/n` for playwright.config.ts (blob reporter, metadata). */
export const SHARD_ENV = 'AHP_SHARD';
/** Set by `ahp-conformance merge`: where the merged reports go. */
export const MERGE_ENV = 'AHP_MERGE_REPORTS';

const PLAN_KEY = 'ahp-conformance-plan';
const SHARD_KEY = /^ahp-conformance-shard-(\d+)-of-(\d+)$/;

export interface Shard {
  current: number;
  total: number;
}

/** `2/3` -> { current: 2, total: 3 }; anything else is a usage error (returned as a message). */
export function parseShard(text: string): Shard | string {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  if (!m) return `--shard takes <i>/<n>, for example 1/3 (got "${text}")`;
  const current = Number(m[1]);
  const total = Number(m[2]);
  if (total < 1 || current < 1 || current > total) return `--shard ${text}: <i> must be between 1 and <n>`;
  return { current, total };
}

export const shardLabel = (s: Shard): string => `${s.current}-of-${s.total}`;

/** What the merge needs to rebuild each claim's results: no paths it would follow, no environment. */
export interface MergeablePlan {
  runnerVersion: string;
  claims: { claim: Omit<ClaimSummary, 'lifecycles'>; targets: TargetKey[]; digest: string }[];
  /** Over the runner version and every claim's digest: equal in every shard of one run. */
  digest: string;
  /** How the shard's implementations were contained (results.json reports it). */
  containment?: ContainmentState;
}

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** The plan as shards record it. A claim's digest is over its file's bytes, so shards on machines with other paths still agree. */
export function mergeablePlan(plan: RunPlan): MergeablePlan {
  const claims = plan.claims.map(({ claim }, index) => {
    let bytes: Buffer | string;
    try {
      bytes = readFileSync(claim.file);
    } catch {
      bytes = JSON.stringify([claim.implementation, claim.role, claim.transports, claim.profiles]);
    }
    return {
      claim: {
        file: claim.file, implementation: claim.implementation, snapshot: claim.snapshot,
        role: claim.role, transports: claim.transports, profiles: claim.profiles,
      },
      targets: claimTargets(claim, index).map(({ role, transport, lifecycle }) => ({ role, transport, ...(lifecycle ? { lifecycle } : {}) })),
      digest: sha256(bytes),
    };
  });
  return {
    runnerVersion: plan.runnerVersion, claims, digest: sha256(JSON.stringify([plan.runnerVersion, claims.map((c) => c.digest)])),
    ...(plan.containment ? { containment: plan.containment } : {}),
  };
}

/** Config metadata for a run: the plan, and for a shard its own key. */
export function runMetadata(plan: RunPlan, shard: Shard | undefined): Record<string, unknown> {
  const p = mergeablePlan(plan);
  return { [PLAN_KEY]: p, ...(shard ? { [`ahp-conformance-shard-${shardLabel(shard)}`]: { plan: p.digest } } : {}) };
}

export type MergeCoverage =
  | { kind: 'error'; message: string }
  | { kind: 'ok'; plan: MergeablePlan; total: number; present: number[]; missing: number[] };

/** What the merged metadata says about the shards: which are present, which missing, whether they belong together. */
export function mergeCoverage(metadata: Record<string, unknown>): MergeCoverage {
  const plan = metadata[PLAN_KEY] as MergeablePlan | undefined;
  const shards = Object.entries(metadata).flatMap(([k, v]) => {
    const m = SHARD_KEY.exec(k);
    return m ? [{ current: Number(m[1]), total: Number(m[2]), plan: (v as { plan?: string } | null)?.plan }] : [];
  });
  if (!plan || !Array.isArray(plan.claims)) return { kind: 'error', message: 'the blob reports were not written by `ahp-conformance run --shard`' };
  if (shards.length === 0) return { kind: 'error', message: 'the blob reports carry no shard numbers (run each shard with `ahp-conformance run --shard i/n`)' };
  const totals = [...new Set(shards.map((s) => s.total))];
  if (totals.length > 1) return { kind: 'error', message: `the blob reports come from different shardings (${totals.map((t) => `/${t}`).join(', ')})` };
  if (shards.some((s) => s.plan !== plan.digest)) {
    return { kind: 'error', message: 'the blob reports come from different runs (other claims, claim files that differ, or another ahp-conformance version); merge shards of one run only' };
  }
  const total = totals[0]!;
  const present = [...new Set(shards.map((s) => s.current))].sort((a, b) => a - b);
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !present.includes(i));
  return { kind: 'ok', plan, total, present, missing };
}
