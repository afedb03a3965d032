// The command line: argument parsing, wiring and exit codes. No protocol logic here.
//
// Exit codes (documented in README.md):
//   0  success (everything agrees / every message is valid)
//   1  a finding: a fixture disagreement, or a message invalid at the wire layer
//   2  bad input: usage error, missing or unreadable file or directory, not UTF-8/JSON
//   3  internal error (a bug in ahp-conformance)
import { CHECKS, checkSpec, type ProfileId, type Role } from '../checks/catalogue.js';
import {
  ledgerFor,
  LEDGER_DOCUMENTS,
  LEDGER_STATUSES,
  UNJUDGED_WORDS,
  unjudgedKind,
  type Ledger,
} from '../checks/ledger.js';
import { NEWEST_SNAPSHOT, resolveSnapshot, SNAPSHOT_IDS, SNAPSHOTS } from '../protocol/snapshots.js';
import { packageVersion } from '../package-root.js';
import { fixturesCommand } from './fixtures-command.js';
import { UsageError, parseArgs } from './args.js';
import { EXIT, guardProcessStreams, processIo, type Io } from './io.js';
import { SafeFsError } from '../safe-fs.js';
import { mergeCommand } from './merge-command.js';
import { runCommand } from './run-command.js';
import { showReportCommand } from './show-report-command.js';
import { terminalJson, terminalLine } from '../terminal.js';
import { validateCommand } from './validate-command.js';
import { verifyCommand } from './verify-command.js';
import { keygenCommand } from './keygen-command.js';

// The snapshots named from the one table (src/protocol/snapshots.ts), so the help never lags it.
const SNAPSHOT_LIST = SNAPSHOTS.map((s) => `${s.id} (upstream commit ${s.commit.slice(0, 12)})`).join(', ');

const HELP = `ahp-conformance: black-box conformance testing for the Agent Hooks Protocol (AHP)
Snapshots this runner judges by: ${SNAPSHOT_LIST}. A claim picks one with snapshot:;
plain draft means the newest, ${NEWEST_SNAPSHOT} (docs/claims.md).

Usage:
  ahp-conformance run <claim.yaml>... [--grep <regex>] [--grep-invert <regex>] [--workers <n>] [--reports <dir>]
                  [--baseline <results.json|reports dir>] [--expected-failures <file.yaml>] [--certify [--allow-weak-containment]] [--shard <i>/<n>]
                  [--list] [--reporter list|line|dot|json] [--quiet] [--retries <n>] [--repeat <n>] [--max-failures <n> | -x]
                  [--timeout-ms <ms>] [--full-transcripts] [--sign-key <file.key>] [--no-color]
      Certify the implementations the claims describe: launch each one, play scripted
      traffic over its claimed transports, and write reports/<implementation>/
      (results.json, junit.xml, playwright/). Exit 0 conformant (or partial: --grep or -x
      left out checks, and every check that ran passed), 1 nonconformant, 2 bad or
      incomplete claim or an implementation that could not be started.
      --shard <i>/<n> runs shard i of n of the same claims and writes only a blob
      report (reports/blob/<i>-of-<n>/); it gives no verdict (exit 0 once it ran).
      --list lists the checks the run would run, and runs nothing. --retries retries a
      failed check; a pass on retry is recorded as flaky (and fails under --certify).
      --repeat runs every check n times (1 to 100) and records each repetition; a check
      whose repetitions differ is flaky (not with --certify).
      --timeout-ms overrides the claims' timeoutMs (recorded; refused under --certify).
      --full-transcripts keeps every transcript entry of passing checks in results.json too
      (a passing check keeps 40 without it; recorded as run.fullTranscripts).
      --certify needs the sandbox (bubblewrap): where it cannot start, the run is refused
      unless --allow-weak-containment is given (and the report then says how it ran).
      Each claim folder gets attestation.intoto.jsonl (an in-toto statement over the
      results, the claim and the implementation's files), signed with --sign-key.
      docs/cli.md describes every option.
  ahp-conformance merge <blob folder or .zip>... [--reports <dir>] [--baseline <...>] [--expected-failures <file.yaml>] [--certify] [--allow-weak-containment] [--sign-key <file.key>]
      Merge the blob reports of every shard into the reports one unsharded run writes,
      and judge them like run (same exit codes). A missing shard leaves the claims
      partial and exits 2; shards of different claims or runner versions are refused.
  ahp-conformance show-report [<reports dir or report folder>] [--host <host>] [--port <port>]
      Serve a conformance report on localhost (default: reports/) and open it.
  ahp-conformance verify <reports dir or claim report folder>... [--key <file.pub>] [--implementation <file>]
                  [--snapshot <snapshot folder>] [--sha256 <hex>]
      Check that published reports are what a run wrote: results.json against the sha256
      its report records (and --sha256, the one the run's closing line printed), junit.xml
      against results.json, the attestation's subjects against the files. --key: the
      attestation must be signed by that public key (says which key signed and when).
      --implementation: that file must be one the run tested. --snapshot: the requirement
      texts the certificate proved, against a newer upstream snapshot folder (stale when
      one changed or was removed). Exit 0 verified (and not stale), 1 not.
  ahp-conformance keygen <prefix>
      Write an ed25519 key pair for signing: <prefix>.key (owner-only) and <prefix>.pub.
  ahp-conformance fixtures <specDir> [--spec <dir>] [--snapshot draft|draft@<commit>|<release date>]
      Judge every case of <specDir>/fixtures/draft/manifest.json with our validator of the
      snapshot and compare with the manifest's expectations. --spec also judges them with
      that snapshot's own published schemas (a second closing line). The snapshot defaults
      to the one --spec (else <specDir>) holds, recognised by its schema digest. For a
      snapshot without fixtures of its own (draft@1d98c19), --spec names its schemas and
      our verdicts are compared with theirs (no expected verdicts exist).
  ahp-conformance validate <file.json|file.jsonl> [--as <kind>] [--spec <dir>]
                  [--snapshot draft|draft@<commit>|<release date>] [--json]
      Validate one captured message or a transcript (one message per line) by the rules of
      a snapshot (default draft = the newest; the first line says which judged). The kind
      is inferred from each message unless --as names it (see --kinds).
  ahp-conformance --checks [--role backend|harness] [--profile <profile>] [--snapshot <snapshot>] [--json] [--trace]
                                list the conformance checks (id, level, profile, requirements);
                                with --snapshot, those judging a rule it lacks are marked n/a;
                                --trace lists the traceability ledger instead: every requirement
                                and profile sentence, the checks that judge it, or why none does
  ahp-conformance --kinds [--snapshot draft|draft@<commit>|<release date>]
                                list the kinds the validator knows in a snapshot (default the newest)
  ahp-conformance --version, -v
  ahp-conformance --help, -h

Output is never coloured (so --no-color and NO_COLOR change nothing).
Exit codes: 0 ok, 1 disagreement or invalid message, 2 bad input, 3 internal error.
`;

function version(): string {
  try {
    return packageVersion();
  } catch {
    return 'unknown';
  }
}

/** The catalogue, filtered by `--role` and `--profile`, as lines or (`--json`) one JSON array. */
function listChecks(options: Record<string, string>, json: boolean, io: Io, trace = false): number {
  const roles = ['backend', 'harness'];
  if (options.role !== undefined && !roles.includes(options.role))
    throw new UsageError(`--role takes backend or harness (got "${options.role}")`);
  const profiles = [...new Set(CHECKS.map((c) => c.profile))];
  if (options.profile !== undefined && !profiles.includes(options.profile as (typeof profiles)[number]))
    throw new UsageError(`--profile takes one of ${profiles.join(', ')} (got "${options.profile}")`);
  const snapshot = options.snapshot === undefined ? undefined : resolveSnapshot(options.snapshot)?.id;
  if (options.snapshot !== undefined && snapshot === undefined)
    throw new UsageError(
      `--snapshot takes one of ${SNAPSHOT_IDS.join(', ')} or draft (the newest) (got "${options.snapshot}")`,
    );
  if (trace)
    return listTrace(
      {
        ...(snapshot ? { snapshot } : {}),
        ...(options.role ? { roles: [options.role as Role] } : {}),
        ...(options.profile ? { profiles: [options.profile as ProfileId] } : {}),
      },
      json,
      io,
    );
  const checks = CHECKS.filter(
    (c) =>
      (options.role === undefined || c.roles.includes(options.role as 'backend')) &&
      (options.profile === undefined || c.profile === options.profile),
  );
  // Listed, not hidden: a check of another snapshot's rule is not applicable to this one's claims (src/engine/plan.ts).
  const notApplicable = (c: (typeof CHECKS)[number]): boolean =>
    snapshot !== undefined && c.snapshots !== undefined && !c.snapshots.includes(snapshot);
  if (json) {
    io.out(
      terminalJson(
        checks.map((c) => ({
          id: c.id,
          title: c.title,
          level: c.level,
          profile: c.profile,
          requirements: c.requirements,
          roles: c.roles,
          transports: c.transports,
          lifecycles: c.lifecycles,
          ...(c.snapshots ? { snapshots: c.snapshots } : {}),
          ...(snapshot ? { applicable: !notApplicable(c) } : {}),
        })),
        2,
      ),
    );
    return EXIT.ok;
  }
  for (const c of checks) {
    const where = [c.roles.join('+'), c.transports.join('+'), c.lifecycles.length < 2 ? c.lifecycles.join('') : '']
      .filter(Boolean)
      .join(' ');
    const only = c.snapshots ? ` [${notApplicable(c) ? 'n/a: ' : ''}${c.snapshots.join(', ')} only]` : '';
    io.out(
      `${c.id.padEnd(28)} ${(notApplicable(c) ? 'n/a' : c.level).padEnd(6)} ${c.profile.padEnd(22)} ${c.requirements.join(',').padEnd(40)} ${where.padEnd(26)} ${c.title}${only}`,
    );
  }
  return EXIT.ok;
}

/**
 * `--checks --trace`: the ledger of the filters (src/checks/ledger.ts), rows outside them left
 * out. Without --snapshot every check counts; one of a single snapshot's rule says so.
 */
function listTrace(scope: Parameters<typeof ledgerFor>[0], json: boolean, io: Io): number {
  const all = ledgerFor(scope);
  const entries = all.entries.filter((e) => e.status !== 'not-claimed');
  const counts = Object.fromEntries(
    LEDGER_STATUSES.filter((s) => s !== 'not-claimed').map((s) => [s, entries.filter((e) => e.status === s).length]),
  ) as Ledger['counts'];
  if (json) {
    io.out(terminalJson({ ...all, counts: { ...counts, 'not-claimed': 0 }, entries }, 2));
    return EXIT.ok;
  }
  const filters = [
    scope?.roles ? `role ${scope.roles.join(', ')}` : '',
    scope?.profiles ? `profile ${scope.profiles.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  io.out(
    `Traceability ledger of ${scope?.snapshot ?? 'every snapshot'}${filters ? ` (${filters})` : ''}: ${entries.length} rows: ${Object.entries(
      counts,
    )
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}`,
  );
  const only = (id: string): string => {
    const c = checkSpec(id);
    return !scope?.snapshot && c.snapshots ? ` [${c.snapshots.join(', ')} only]` : '';
  };
  for (const [document, info] of Object.entries(LEDGER_DOCUMENTS)) {
    const mine = entries.filter((e) => e.source.document === document);
    if (mine.length === 0) continue;
    io.out(`\n== ${info.title}${info.sha256 ? ` (sha256 ${info.sha256})` : ''}`);
    for (const e of mine) {
      io.out(`${e.source.item}  [${e.status}]  ${e.says}`);
      if (e.source.sha256) io.out(`    sentence sha256: ${e.source.sha256}`);
      if (e.checks.length) io.out(`    judged by: ${e.checks.map((id) => `${id}${only(id)}`).join(', ')}`);
      if (e.status === 'claim-validation') io.out(`    judged by the claim file: ${e.claimValidation}`);
      const kind = unjudgedKind(e);
      if (e.reason && kind) io.out(`    ${UNJUDGED_WORDS[kind]}: ${e.reason}`);
    }
  }
  return EXIT.ok;
}

/** Options that only `run` takes: refused elsewhere rather than silently ignored. */
const RUN_ONLY = [
  'list',
  'quiet',
  'x',
  'reporter',
  'retries',
  'repeat',
  'max-failures',
  'timeout-ms',
  'grep',
  'grep-invert',
  'workers',
  'shard',
  'full-transcripts',
];

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  if (io === processIo) guardProcessStreams();
  try {
    const args = parseArgs(argv, {
      boolean: [
        'help',
        'version',
        'json',
        'kinds',
        'checks',
        'trace',
        'certify',
        'allow-weak-containment',
        'list',
        'quiet',
        'no-color',
        'full-transcripts',
      ],
      string: [
        'spec',
        'snapshot',
        'as',
        'grep',
        'grep-invert',
        'workers',
        'reports',
        'baseline',
        'expected-failures',
        'shard',
        'sha256',
        'reporter',
        'retries',
        'repeat',
        'max-failures',
        'timeout-ms',
        'role',
        'profile',
        'snapshot',
        'host',
        'port',
        'sign-key',
        'key',
        'implementation',
      ],
      short: { h: 'help', v: 'version', x: 'x' },
    });
    if (args.flags.help || argv.length === 0) {
      io.out(HELP.trimEnd());
      return argv.length === 0 ? EXIT.badInput : EXIT.ok;
    }
    if (args.flags.version) {
      io.out(`ahp-conformance ${version()}`);
      return EXIT.ok;
    }
    const [command, ...rest] = args.positional;
    if (args.flags.kinds) return validateCommand.listKinds(io, args.options);
    if (args.flags.checks) return listChecks(args.options, args.flags.json === true, io, args.flags.trace === true);
    if (args.flags.trace) throw new UsageError('--trace goes with --checks');
    // --snapshot also picks the rules of validate and fixtures, and names the newer snapshot of verify.
    const filters =
      command === 'validate' || command === 'fixtures' || command === 'verify'
        ? ['role', 'profile']
        : ['role', 'profile', 'snapshot'];
    for (const o of filters) if (args.options[o] !== undefined) throw new UsageError(`--${o} filters --checks`);
    const runOnly = RUN_ONLY.filter((o) => args.flags[o] || args.options[o] !== undefined);
    if (command !== 'run' && command !== undefined && runOnly.length)
      throw new UsageError(`${runOnly.map((o) => (o === 'x' ? '-x' : `--${o}`)).join(', ')}: only \`run\` takes this`);
    if (args.options['sign-key'] !== undefined && command !== 'run' && command !== 'merge')
      throw new UsageError('--sign-key: only `run` and `merge` take this (they write the attestations)');
    const verifyOnly = ['key', 'implementation'].filter((o) => args.options[o] !== undefined);
    if (verifyOnly.length && command !== 'verify')
      throw new UsageError(`${verifyOnly.map((o) => `--${o}`).join(', ')}: only \`verify\` takes this`);
    const flagged = (names: string[]): Record<string, string> =>
      Object.fromEntries(names.filter((n) => args.flags[n]).map((n) => [n, 'yes']));
    switch (command) {
      case 'fixtures':
        return fixturesCommand(rest, args.options, io);
      case 'validate':
        return validateCommand.run(rest, args.options, args.flags, io);
      case 'run':
        return await runCommand(
          rest,
          {
            ...args.options,
            ...flagged(['certify', 'allow-weak-containment', 'list', 'quiet', 'x', 'full-transcripts']),
          },
          io,
        );
      case 'verify':
        return verifyCommand(rest, args.options, io);
      case 'merge':
        return await mergeCommand(rest, { ...args.options, ...flagged(['certify', 'allow-weak-containment']) }, io);
      case 'keygen':
        return keygenCommand(rest, io);
      case 'show-report':
        return await showReportCommand(rest, args.options, io);
      case undefined:
        throw new UsageError(
          'no command given: run, merge, show-report, verify, keygen, fixtures or validate (try --help)',
        );
      default:
        throw new UsageError(`unknown command "${command}" (try --help)`);
    }
  } catch (err) {
    // A path the runner will not follow or read (a link planted where it writes, a FIFO
    // given as a file) is a problem with what it was given: one line, exit 2.
    if (err instanceof UsageError || err instanceof SafeFsError) {
      io.err(terminalLine(`ahp-conformance: ${err.message}`));
      return EXIT.badInput;
    }
    io.err(terminalLine(`ahp-conformance: internal error: ${(err as Error).message}`));
    return EXIT.internal;
  }
}
