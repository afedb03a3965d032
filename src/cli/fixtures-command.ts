// `ahp-conformance fixtures <specDir> [--spec <dir>] [--snapshot draft|draft@<commit>]`
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agreementCheck, crossCheck, SnapshotError, type CrossCheckReport } from '../fixtures/cross-check.js';
import { STRUCTURAL_ACCEPTANCE_FILE, structuralAcceptance } from '../fixtures/structural-acceptance.js';
import { snapshotOfSpecDir } from '../protocol/snapshot-dir.js';
import { OLDEST_SNAPSHOT, snapshotLabel, type SnapshotId } from '../protocol/snapshots.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { snapshotOption } from './validate-command.js';

function print(report: CrossCheckReport, io: Io, suffix: string): void {
  for (const d of report.disagreements) {
    io.out(
      `DISAGREE ${d.caseId} ${d.expectation}${suffix}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.got)}: ${d.detail}`,
    );
  }
}

/**
 * The snapshot that judges: --snapshot, else the one --spec holds, else the one <specDir>
 * holds (each recognised by its schema digest), else the oldest (whose fixtures these are).
 */
function judgingSnapshot(specDir: string, options: Record<string, string>): SnapshotId {
  if (options.snapshot !== undefined) return snapshotOption(options.snapshot);
  return (
    (options.spec !== undefined ? snapshotOfSpecDir(options.spec) : undefined) ??
    snapshotOfSpecDir(specDir) ??
    OLDEST_SNAPSHOT
  );
}

export function fixturesCommand(positional: string[], options: Record<string, string>, io: Io): number {
  if (positional.length !== 1) throw new UsageError('fixtures needs exactly one <specDir>');
  const specDir = positional[0] as string;
  const snapshot = judgingSnapshot(specDir, options);
  const fixturesOf = snapshotOfSpecDir(specDir) ?? OLDEST_SNAPSHOT;
  try {
    if (snapshot !== fixturesOf) return borrowedFixtures(specDir, snapshot, fixturesOf, options, io);
    io.out(`fixtures: judged by ${snapshotLabel(snapshot)}`);
    const ours = crossCheck(specDir, { snapshot });
    const reports: [CrossCheckReport, string][] = [[ours, '']];
    if (options.spec !== undefined) {
      // The fixtures come from <specDir>; the schemas that judge them from --spec.
      const theirs = crossCheck(specDir, { snapshotSchemas: true, schemaDir: options.spec });
      reports.push([theirs, ' (snapshot schemas)']);
    }
    for (const [r, suffix] of reports) print(r, io, suffix);
    for (const [r, suffix] of reports)
      io.out(`fixtures${suffix}: ${r.agree} agree, ${r.disagree} disagree (of ${r.total})`);
    return reports.some(([r]) => r.disagree > 0) ? EXIT.finding : EXIT.ok;
  } catch (err) {
    if (err instanceof SnapshotError) {
      io.err(`ahp-conformance: ${err.message}`);
      return EXIT.badInput;
    }
    throw err;
  }
}

/**
 * A snapshot judging another snapshot's fixtures has no expected verdicts for them: our
 * verdicts are compared with its published schemas (--spec), and with its SDKs'
 * structural acceptance cases when the folder has them.
 */
function borrowedFixtures(
  specDir: string,
  snapshot: SnapshotId,
  fixturesOf: SnapshotId,
  options: Record<string, string>,
  io: Io,
): number {
  if (options.spec === undefined)
    throw new UsageError(
      `${specDir} holds the fixtures of ${fixturesOf}, with no expected verdicts for ${snapshot}; give --spec <dir> with ${snapshot}'s published schemas to compare our verdicts with them`,
    );
  const held = snapshotOfSpecDir(options.spec);
  if (held !== snapshot)
    throw new UsageError(`--spec ${options.spec} holds ${held ?? 'no snapshot this runner knows'}, not ${snapshot}`);
  io.out(`fixtures: judged by ${snapshotLabel(snapshot)}`);
  const report = agreementCheck(specDir, options.spec, snapshot);
  print(report, io, ' (published schemas)');
  let failed = report.disagree > 0;
  io.out(
    `fixtures of ${fixturesOf} (no expected verdicts for ${snapshot}): ours and the published schemas agree on ${report.agree}, disagree on ${report.disagree} (of ${report.total})`,
  );
  if (existsSync(join(options.spec, STRUCTURAL_ACCEPTANCE_FILE))) {
    const rows = structuralAcceptance(options.spec, snapshot);
    const differ = rows.filter((r) => r.ours !== r.published);
    for (const r of differ)
      io.out(`DISAGREE ${r.id} structural-acceptance: published ${r.published}, ours ${r.ours}: ${r.detail}`);
    // `accepted` is structural acceptance, not validity (the file's contract): reported, not judged.
    const notAccepted = rows.filter((r) => r.accepted !== r.ours).map((r) => `${r.id}${r.warning ? ' (warning)' : ''}`);
    io.out(
      `structural acceptance: ours and the published schemas agree on ${rows.length - differ.length} of ${rows.length}; ` +
        `differ from the SDK's structural 'accepted' on ${notAccepted.length}${notAccepted.length ? ` (${notAccepted.join(', ')})` : ''}`,
    );
    failed ||= differ.length > 0;
  }
  return failed ? EXIT.finding : EXIT.ok;
}
