// Sharding one run across machines, and what the shards record so that `merge` can put
// them back together.
//
// A shard is decided by the plan, not by Playwright's `--shard` (which splits by test
// count, so one shard got every cheap backend check and the other every harness check):
// the checks of every project are dealt to the shards by their cost, each to the shard
// with the least so far, and a shard's projects collect only its checks. Each shard
// records the plan in Playwright's config metadata with one key of its own
// (src/results/run-record.ts); the merge refuses shards of different claims or runner
// versions (first, in its own words, shards that judged a claim by different snapshots),
// and a claim whose checks are partly in a missing shard is partial (src/results/model.ts).
import { createHash } from 'node:crypto';
import { checkSpec } from '../checks/catalogue.js';
import { MAX_CLAIM_BYTES } from '../claims/limits.js';
import { readRegularFile } from '../safe-fs.js';
import { recordedClaimPath, runEnvironment, type RecordedPlan } from '../results/run-record.js';
import { snapshotSummary } from '../results/snapshot.js';
import { claimTargets, type PlannedProject, type RunPlan } from './plan.js';
import { claimDeclarations } from './claim-declarations.js';

/** Set by `ahp-conformance run --shard i/n` for playwright.config.ts (its checks, the blob reporter, metadata). */
export const SHARD_ENV = 'AHP_SHARD';
/** Set by `ahp-conformance merge`: where the merged reports go. */
export const MERGE_ENV = 'AHP_MERGE_REPORTS';

export interface Shard {
  current: number;
  total: number;
}

/** `2/3` -> { current: 2, total: 3 }; anything else is a usage error (returned as a message). */
export function parseShard(text: string): Shard | string {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  if (!m) return `--shard takes <shard>/<shards>, for example 1/3 (got "${text}")`;
  const current = Number(m[1]);
  const total = Number(m[2]);
  if (total < 1) return `--shard ${text}: the number of shards must be at least 1`;
  if (current < 1 || current > total)
    return `--shard ${text}: the shard must be between 1 and ${total} (there are ${total} shard${total === 1 ? '' : 's'})`;
  return { current, total };
}

export const shardLabel = (s: Shard): string => `${s.current}-of-${s.total}`;

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** The plan as shards record it. A claim's digest is over its file's bytes, so shards on machines with other paths still agree. */
export function recordPlan(plan: RunPlan, projects: readonly PlannedProject[]): RecordedPlan {
  const claims = plan.claims.map(({ claim, timeoutMsOverride, implementationFiles }, index) => {
    // Read bounded, as the loader read it (a file replaced since by a FIFO or a huge one is not read).
    const read = readRegularFile(claim.file, { maxBytes: MAX_CLAIM_BYTES });
    const bytes: Buffer | string =
      read.kind === 'ok'
        ? read.bytes
        : JSON.stringify([claim.implementation, claim.role, claim.transports, claim.profiles]);
    return {
      claim: {
        file: plan.cwd ? recordedClaimPath(plan.cwd, claim.file) : claim.file,
        implementation: claim.implementation,
        snapshot: snapshotSummary(claim.snapshot, claim.snapshotRequested),
        role: claim.role,
        transports: claim.transports,
        profiles: claim.profiles,
        ...(timeoutMsOverride ? { timeoutMsOverride } : {}),
        ...(implementationFiles ? { implementationFiles } : {}),
      },
      // What each target needs judged: the whole plan's checks, whatever this shard runs.
      targets: claimTargets(claim, index).map(({ role, transport, lifecycle }) => ({
        role,
        transport,
        ...(lifecycle ? { lifecycle } : {}),
        checks:
          projects.find(
            (p) =>
              p.target.claimIndex === index &&
              p.target.role === role &&
              p.target.transport === transport &&
              p.target.lifecycle === lifecycle,
          )?.checks ?? [],
      })),
      // Shards run with different --timeout-ms are of different runs.
      digest: timeoutMsOverride ? sha256(`${sha256(bytes)} timeoutMs=${timeoutMsOverride.run}`) : sha256(bytes),
      notApplicable: projects.filter((p) => p.target.claimIndex === index).flatMap((p) => p.notApplicable),
      declares: claimDeclarations(claim),
    };
  });
  return {
    runnerVersion: plan.runnerVersion,
    claims,
    // Shards that selected other checks, kept other transcripts or repeated them otherwise are not one run.
    digest: sha256(
      JSON.stringify([
        plan.runnerVersion,
        claims.map((c) => c.digest),
        // Shards that tested other bytes of an implementation are not one run either.
        claims.map((c) => (c.claim.implementationFiles ?? []).map((f) => [f.kind, f.name, f.sha256 ?? null])),
        ...(plan.selection ? [plan.selection] : []),
        ...(plan.fullTranscripts ? ['full-transcripts'] : []),
        ...(plan.repeat ? [`repeat=${plan.repeat}`] : []),
      ]),
    ),
    ...(plan.selection ? { selection: plan.selection } : {}),
    ...(plan.fullTranscripts ? { fullTranscripts: true } : {}),
    ...(plan.repeat ? { repeat: plan.repeat } : {}),
    ...(plan.containment ? { containment: plan.containment } : {}),
    environment: runEnvironment(),
  };
}

/**
 * What a check costs relative to others, for dealing checks to shards: the times it starts
 * the implementation (the catalogue's `launches`, else once). Rough on purpose: it only has
 * to keep the expensive checks apart.
 */
const cost = (id: string): number => checkSpec(id).launches ?? 1;

/**
 * The projects of one shard: every (project, check) dealt, most expensive first, to the
 * shard with the least cost so far (ties to the lowest shard number); a project with no check in this shard is left out. Every shard of a run
 * computes the same deal, so together they run each check exactly once.
 */
export function shardProjects(projects: readonly PlannedProject[], shard: Shard): PlannedProject[] {
  const items = projects.flatMap((p, pi) => p.checks.map((id, ci) => ({ pi, ci, id, cost: cost(id) })));
  // Equal costs in snake order (check 0 of every project, then check 1 backwards, ...), so
  // each project's checks alternate between shards instead of following one project.
  items.sort((a, b) => b.cost - a.cost || a.ci - b.ci || (a.ci % 2 ? b.pi - a.pi : a.pi - b.pi));
  const load = Array.from({ length: shard.total }, () => 0);
  const mine = new Set<string>();
  for (const item of items) {
    let to = 0;
    for (let i = 1; i < load.length; i++) if (load[i]! < load[to]!) to = i;
    load[to]! += item.cost;
    if (to === shard.current - 1) mine.add(`${item.pi}\u0000${item.id}`);
  }
  return projects.flatMap((p, pi) => {
    const checks = p.checks.filter((id) => mine.has(`${pi}\u0000${id}`));
    return checks.length ? [{ ...p, checks }] : [];
  });
}
