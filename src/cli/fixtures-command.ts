// `ahp-conformance fixtures <specDir> [--spec <dir>]`
import { crossCheck, SnapshotError, type CrossCheckReport } from '../fixtures/cross-check.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';

function print(report: CrossCheckReport, io: Io, suffix: string): void {
  for (const d of report.disagreements) {
    io.out(
      `DISAGREE ${d.caseId} ${d.expectation}${suffix}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.got)}: ${d.detail}`,
    );
  }
}

export function fixturesCommand(positional: string[], options: Record<string, string>, io: Io): number {
  if (positional.length !== 1) throw new UsageError('fixtures needs exactly one <specDir>');
  const specDir = positional[0] as string;
  try {
    const ours = crossCheck(specDir);
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
