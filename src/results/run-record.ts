// What a Playwright run hands to the CLI. Playwright runs as a child process of the CLI:
// the reporter (src/results/reporter.ts) records each claim's results in one file, the
// run outcome, and the CLI judges them and writes every view once (src/results/write.ts).
//
// The plan travels inside Playwright's config metadata (blob reports keep it, and
// `playwright merge-reports` unions it key by key), so a merge of shards knows the claims
// and targets without the machines' paths or environment.
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { join, relative, sep } from 'node:path';
import { packageRoot } from '../package-root.js';
import { readRegularFile, writeFileSafely } from '../safe-fs.js';
import type { CheckResult, ClaimResults, ClaimSummary, PlannedTarget, RunEnvironment, TargetKey } from './model.js';
import { stableJson } from './model.js';
import type { ClaimDeclarations } from './over-claim.js';

const PLAN_KEY = 'ahp-conformance-plan';
const SHARD_KEY = /^ahp-conformance-shard-(\d+)-of-(\d+)$/;

/** The metadata key one shard adds, naming the plan it ran. */
export const shardKey = (current: number, total: number): string => `ahp-conformance-shard-${current}-of-${total}`;

/** A check the plan left out because the claim cannot exercise it (declared, never run). */
export interface DeclaredNotApplicable extends TargetKey {
  id: string;
  reason: string;
}

/** The plan as Playwright's metadata records it: no paths it would follow, no environment. */
export interface RecordedPlan {
  runnerVersion: string;
  claims: {
    claim: Omit<ClaimSummary, 'lifecycles'>;
    /**
     * Each with the checks the claim needs judged there (every shard records the whole
     * plan's, so a merge or a partial run knows what did not run); blobs of earlier
     * versions recorded none.
     */
    targets: PlannedTarget[];
    /** Over the claim file's bytes: equal on every machine that ran a shard of it. */
    digest: string;
    notApplicable?: DeclaredNotApplicable[];
    /** What the claim says beyond its summary, to hold against the run (absent in plans of earlier versions). */
    declares?: ClaimDeclarations;
  }[];
  /** Over the runner version and every claim's digest: equal in every shard of one run. */
  digest: string;
  /** How the implementations were contained (results.json reports it). */
  containment?: ClaimResults['containment'];
  /** --grep / --grep-invert of the run (of every shard). */
  selection?: { grep?: string; grepInvert?: string };
  /** --full-transcripts of the run (of every shard): results.json keeps every transcript entry. */
  fullTranscripts?: true;
  /** --repeat of the run (of every shard), when more than 1. */
  repeat?: number;
  /** The machine that planned the run (for a merge: one of the shards'). */
  environment?: RunEnvironment;
}

/** This machine, as results.json records it. */
export function runEnvironment(): RunEnvironment {
  let playwright = 'unknown';
  try {
    const req = createRequire(join(packageRoot(), 'package.json'));
    playwright = (req('@playwright/test/package.json') as { version: string }).version;
  } catch {
    // Recorded as unknown rather than failing a run over a version string.
  }
  return { node: process.versions.node, platform: platform(), arch: arch(), playwright };
}

/**
 * A claim file's path as results record it: relative to the folder the run started in, with
 * `/`, so published results name no local home folder and a rerun command works from there.
 */
export const recordedClaimPath = (cwd: string, file: string): string => relative(cwd, file).split(sep).join('/') || '.';

/**
 * Config metadata for a run: the plan, and for a shard its own key with the plan's digest
 * and each claim's snapshot (merge-reports keeps one plan of all the shards' but every
 * shard key, so the merge can name a snapshot the shards disagree on).
 */
export function runMetadata(plan: RecordedPlan, shard?: { current: number; total: number }): Record<string, unknown> {
  return {
    [PLAN_KEY]: plan,
    ...(shard
      ? {
          [shardKey(shard.current, shard.total)]: {
            plan: plan.digest,
            snapshots: plan.claims.map((c) => c.claim.snapshot.id),
          },
        }
      : {}),
  };
}

/**
 * The first claim whose snapshot the shards disagree on, as one line; undefined when they
 * agree (or a shard of an earlier version recorded none).
 */
export function snapshotDisagreement(
  plan: RecordedPlan,
  shards: readonly { current: number; total: number; snapshots?: readonly string[] }[],
): string | undefined {
  const recorded = shards.filter((s) => Array.isArray(s.snapshots));
  const count = Math.max(0, ...recorded.map((s) => s.snapshots!.length));
  for (let i = 0; i < count; i++) {
    const by = new Map<string, string[]>();
    for (const s of recorded) {
      const id = s.snapshots![i];
      if (id === undefined) continue;
      by.set(id, [...(by.get(id) ?? []), `${s.current}/${s.total}`]);
    }
    if (by.size > 1) {
      const name = plan.claims[i]?.claim.implementation.name ?? `claim ${i + 1}`;
      const sides = [...by.entries()].map(
        ([id, which]) => `shard${which.length > 1 ? 's' : ''} ${which.join(', ')} by ${id}`,
      );
      return `the shards judged ${name} by different snapshots (${sides.join('; ')}); merge shards of one run only`;
    }
  }
  return undefined;
}

/** The plan a run's metadata records, if any. */
export const recordedPlan = (metadata: Record<string, unknown>): RecordedPlan | undefined => {
  const p = metadata[PLAN_KEY] as RecordedPlan | undefined;
  return p && Array.isArray(p.claims) ? p : undefined;
};

export type MergeCoverage =
  | { kind: 'error'; message: string }
  | { kind: 'ok'; plan: RecordedPlan; total: number; present: number[]; missing: number[] };

/** What merged metadata says about the shards: which are present, which missing, whether they belong together. */
export function mergeCoverage(metadata: Record<string, unknown>): MergeCoverage {
  const plan = recordedPlan(metadata);
  const shards = Object.entries(metadata).flatMap(([k, v]) => {
    const m = SHARD_KEY.exec(k);
    const value = v as { plan?: string; snapshots?: string[] } | null;
    return m
      ? [
          {
            current: Number(m[1]),
            total: Number(m[2]),
            plan: value?.plan,
            ...(Array.isArray(value?.snapshots) ? { snapshots: value.snapshots } : {}),
          },
        ]
      : [];
  });
  if (!plan) return { kind: 'error', message: 'the blob reports were not written by `ahp-conformance run --shard`' };
  if (shards.length === 0)
    return {
      kind: 'error',
      message: 'the blob reports carry no shard numbers (run each shard with `ahp-conformance run --shard i/n`)',
    };
  const totals = [...new Set(shards.map((s) => s.total))];
  if (totals.length > 1)
    return {
      kind: 'error',
      message: `the blob reports come from different shardings (${totals.map((t) => `/${t}`).join(', ')})`,
    };
  const disagreement = snapshotDisagreement(plan, shards);
  if (disagreement) return { kind: 'error', message: disagreement };
  if (shards.some((s) => s.plan !== plan.digest)) {
    return {
      kind: 'error',
      message:
        'the blob reports come from different runs (other claims, claim files that differ, other bytes of an implementation, other --grep, --timeout-ms, --full-transcripts or --repeat, or another ahp-conformance version); merge shards of one run only',
    };
  }
  const total = totals[0]!;
  const present = [...new Set(shards.map((s) => s.current))].sort((a, b) => a - b);
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !present.includes(i));
  return { kind: 'ok', plan, total, present, missing };
}

/** What one Playwright run (or merge) leaves for the CLI. */
export interface RunOutcome {
  /** One per claim of the plan, in plan order. */
  claims: ClaimResults[];
  /** A merge: the shards it found. */
  shards?: { total: number; present: number[]; missing: number[] };
  /** A merge that could not be judged (shards of different runs, no plan). */
  error?: string;
  /**
   * An error of the runner itself (a module that did not load in a worker, a reporter that
   * threw, a worker that died): the run judged nothing, so the CLI writes no verdict and
   * exits 3 (docs/cli.md). One line.
   */
  internalError?: string;
}

export function writeRunOutcome(file: string, outcome: RunOutcome): void {
  // Never through a link planted at its name (src/safe-fs.ts).
  writeFileSafely(file, stableJson(outcome));
}

const MAX_OUTCOME_BYTES = 512 * 1024 * 1024;

/** The outcome a run left, or undefined when it left none (Playwright failed before its end). */
export function readRunOutcome(file: string): RunOutcome | undefined {
  // Written by our reporter in the run's folder: a regular file, never followed through a
  // link, bounded (every claim's results of a run; each is far under 64 MiB).
  const read = readRegularFile(file, { maxBytes: MAX_OUTCOME_BYTES });
  if (read.kind !== 'ok') return undefined;
  try {
    const o = JSON.parse(read.bytes.toString('utf8')) as RunOutcome;
    return o && Array.isArray(o.claims) ? o : undefined;
  } catch {
    return undefined;
  }
}

/** The not-applicable entries of a claim's declared checks, as results. */
export function declaredResults(
  declared: readonly DeclaredNotApplicable[],
  spec: (id: string) => Omit<CheckResult, 'role' | 'transport' | 'lifecycle' | 'status' | 'message' | 'durationMs'>,
): CheckResult[] {
  return declared.map((d) => ({
    ...spec(d.id),
    role: d.role,
    transport: d.transport,
    ...(d.lifecycle ? { lifecycle: d.lifecycle } : {}),
    status: 'not-applicable',
    message: d.reason,
    durationMs: 0,
  }));
}
