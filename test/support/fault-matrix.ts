// What the two fault-matrix self-tests (reference backend and reference harness) share:
// running their claims, and the judgement. The conforming claim passes everything, and
// each fault mode fails exactly the checks it targets plus its documented overlaps, with
// the right status and verdict. Each spec keeps only its own table and claim files.
//
// Two scopes, named by AHP_FAULT_MATRIX (without it `npm test` leaves the matrices out).
// `npm run test:faults` (targets) runs each mode on its targets and overlaps only: every mode
// is caught, every check is shown failing, and the conforming claim passes every check.
// `npm run test:matrix` (every-check; a step of .ci/run) also proves that no mode fails any
// other check of its target, by causality rather than by running modes x checks: the
// conforming reference first runs once in the shape of each mode's claim with fault tracing
// on (reference/fault-probe.ts), which tells, per check, every mode its code asked about.
// A mode whose code a check never reaches cannot change that check, so each mode then runs
// only the checks that asked about it, plus its targets and overlaps. AHP_MATRIX_BRUTE=1
// runs every check for every mode instead (the same verdicts; the proof by force, for
// checking the causal one).
import { expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import YAML from 'yaml';
import { checkSpec } from '../../src/checks/catalogue.js';
import { checkGrep, escapeRegExp } from '../../src/results/check-title.js';
import { consultedModes } from '../../reference/fault-probe.js';
import type { CheckResult, ClaimResults } from '../../src/results/model.js';
import { ROOT } from './paths.js';

/** What this run of the matrix proves (see the top of this file). */
export const MATRIX_SCOPE: 'targets' | 'every-check' =
  process.env.AHP_FAULT_MATRIX === 'every-check' ? 'every-check' : 'targets';

/** Every-check scope: run every check for every mode, not only those whose code asked about it. */
const BRUTE = process.env.AHP_MATRIX_BRUTE === '1';
/** The every-check scope proving by causality (a matrix with trace claims); the trace then picks each mode's checks. */
export const MATRIX_CAUSAL = MATRIX_SCOPE === 'every-check' && !BRUTE;

/** How a matrix test says what it proves in this scope. */
export const matrixClaim = (implementation: string): string =>
  `the reference ${implementation} passes every check and each fault mode fails ${MATRIX_SCOPE === 'every-check' ? 'exactly its targets' : 'its targets'}`;

/** The checks a mode must run in any scope: its targets, overlaps and required passes. */
const ownChecks = (table: FaultTable, m: string): string[] => [
  ...table.targets(m),
  ...table.alsoFails(m),
  ...(table.passes?.(m) ?? []),
];

/** The grep that keeps the conforming claim whole and, of each mode, the checks `checksOf` names. */
function modesGrep(modes: readonly string[], checksOf: (mode: string) => readonly string[] | undefined): string {
  const perMode = modes.map((m) => {
    const checks = checksOf(m);
    return `(^| )fault-${escapeRegExp(m)}:${checks ? `\\S* .*${checkGrep([...checks])}` : ''}`;
  });
  return ['(^| )conforming:', ...perMode].join('|');
}

export interface FaultTable {
  modes: readonly string[];
  targets: (mode: string) => readonly string[];
  alsoFails: (mode: string) => readonly string[];
  /** Checks the mode must run and pass, in either scope (a mode another snapshot tolerates). */
  passes?: (mode: string) => readonly string[];
}

/**
 * The table of a reference implementation's fault modes (its targets, or for a mode that
 * breaks no rule the checks it must pass) and their documented overlaps.
 */
export function faultTable(
  faults: Readonly<Record<string, { readonly targets: readonly string[]; readonly passes?: readonly string[] }>>,
  alsoFails: Readonly<Partial<Record<string, { checks: string[] }>>>,
): FaultTable {
  return {
    modes: Object.keys(faults),
    targets: (m) => faults[m]!.targets,
    alsoFails: (m) => alsoFails[m]?.checks ?? [],
    passes: (m) => faults[m]!.passes ?? [],
  };
}

/** Reads reports/<name>/results.json, checked against schemas/results.schema.json. */
export function resultsReader(reports: string): (name: string) => ClaimResults {
  const validate = new Ajv2020({ allErrors: true, strict: false, logger: false }).compile(
    JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object,
  );
  return (name) => {
    const r = JSON.parse(readFileSync(join(reports, name, 'results.json'), 'utf8')) as ClaimResults;
    expect(validate(r), `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    return r;
  };
}

const bad = (r: ClaimResults): CheckResult[] => r.checks.filter((c) => c.status === 'failed' || c.status === 'warning');

export function expectConforming(r: ClaimResults): void {
  expect(bad(r).map((c) => `${c.id} ${c.role} ${c.transport}/${c.lifecycle ?? ''}: ${c.message}`)).toEqual([]);
  expect(r.verdict).toBe('conformant');
  // Only checks of another snapshot's rule, of the other hooks/configuration case, or of
  // authentication the claim does not claim, may be not applicable: the plan declares them
  // so for every claim of that kind.
  const byClaimKind = (id: string): boolean =>
    checkSpec(id).snapshots !== undefined ||
    checkSpec(id).configuration !== undefined ||
    checkSpec(id).auth !== undefined;
  expect(
    r.checks
      .filter((c) => c.status === 'not-applicable' && !byClaimKind(c.id))
      .map((c) => `${c.id} ${c.transport}/${c.lifecycle ?? ''}: ${c.message}`),
  ).toEqual([]);
}

/** Problems of the fault matrix (empty when every mode fails exactly what it should), and the checks caught. */
export function faultMatrixProblems(
  table: FaultTable,
  results: (name: string) => ClaimResults,
): { problems: string[]; caught: Set<string> } {
  const problems: string[] = [];
  const caught = new Set<string>();
  for (const mode of table.modes) {
    const r = results(`fault-${mode}`);
    const expected = new Set([...table.targets(mode), ...table.alsoFails(mode)]);
    const got = bad(r);
    for (const c of got) {
      const wantStatus = checkSpec(c.id).level === 'SHOULD' ? 'warning' : 'failed';
      if (!expected.has(c.id))
        problems.push(`${mode}: ${c.id} ${c.status} but the mode does not target it: ${c.message.split('\n')[0]}`);
      else if (c.status !== wantStatus)
        problems.push(`${mode}: ${c.id} is ${c.status}, expected ${wantStatus}: ${c.message.split('\n')[0]}`);
      else caught.add(c.id);
    }
    for (const id of table.passes?.(mode) ?? [])
      if (!r.checks.some((c) => c.id === id && c.status === 'passed'))
        problems.push(`${mode}: ${id} must pass (${r.checks.find((c) => c.id === id)?.status ?? 'not run'})`);
    for (const id of expected)
      if (!got.some((c) => c.id === id))
        problems.push(`${mode}: ${id} was not caught (${r.checks.find((c) => c.id === id)?.status ?? 'not run'})`);
    // A narrowed run (the targets scope's --grep, the harness matrix's --grep-invert) leaves
    // out checks the claim needs: a mode that breaks no MUST is partial there, never conformant.
    const narrowed = r.coverage !== undefined && r.coverage.ran < r.coverage.needed;
    const wantVerdict =
      verdictOf(table, mode) === 'nonconformant' ? 'nonconformant' : narrowed ? 'partial' : 'conformant';
    if (r.verdict !== wantVerdict) problems.push(`${mode}: verdict ${r.verdict}, expected ${wantVerdict}`);
    if (MATRIX_SCOPE === 'targets' && !narrowed)
      problems.push(`${mode}: the targets scope ran every check of its claim (coverage ${JSON.stringify(r.coverage)})`);
  }
  return { problems, caught };
}

/** A mode is nonconformant when it breaks a MUST; breaking only SHOULDs leaves warnings. */
function verdictOf(table: FaultTable, mode: string): 'conformant' | 'nonconformant' {
  return [...table.targets(mode), ...table.alsoFails(mode)].some((id) => checkSpec(id).level === 'MUST')
    ? 'nonconformant'
    : 'conformant';
}

/** One `ahp-conformance run` of a fault matrix. */
export interface MatrixRun {
  /** The claim that must pass everything; its implementation name must be `conforming`. */
  readonly conforming?: string;
  /** Mode → claim YAML whose implementation name is `fault-<mode>` (the report folder's name). */
  readonly faults: Readonly<Record<string, string>>;
  /** Options for this run only. */
  readonly args?: readonly string[];
}

/** The claim of the conforming reference in the shape of a mode's claim, tracing its fault probe. */
export interface TraceClaim {
  /** Modes whose claims have the same shape share one trace (same key). */
  readonly shape: string;
  /** The mode the entry's claim turns on (an entry's key may name a mode under another snapshot). */
  readonly mode: string;
  /** The claim YAML, named `name`, with AHP_REFERENCE_FAULT_TRACE=1 in the implementation's env. */
  readonly yaml: (name: string) => string;
}

export interface FaultMatrix {
  readonly tempPrefix: string;
  /** Runs with no claims are skipped. */
  readonly runs: readonly MatrixRun[];
  /** Targets and overlaps; the modes judged are those given claims in `runs`. */
  readonly table: FaultTable;
  readonly workers: number;
  /** For each run. */
  readonly timeoutMs: number;
  /**
   * Every-check scope: the trace claim of each mode. Without one (no `trace`, or undefined for
   * an entry that is not a fault mode, such as another configuration of the reference) every
   * check runs for that entry.
   */
  readonly trace?: (mode: string) => TraceClaim | undefined;
  /** With `trace`: every mode name of the reference (a traced name outside it means a cut line). */
  readonly modeNames?: readonly string[];
  /** Only for a run of every mode: the checks some mode must catch, given the conforming results. */
  readonly everyCheck?: (conforming: ClaimResults) => readonly string[];
  /**
   * The conforming claim's results from a run made earlier on the same build (see
   * provenResults), used instead of running the conforming claim again; undefined: it runs.
   */
  readonly proven?: ClaimResults;
}

/** Results of a run are our own files, but read bounded all the same. */
const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

/**
 * AHP_MATRIX_PROVEN=<reports folder>: the results an earlier `ahp-conformance run` of this
 * build wrote there for `claimFile` (.ci/run: `npm run conformance` certifies the bundled
 * claims just before), when they are of that very file (its sha256) and conformant, so the
 * matrix need not certify the same claim a second time. Anything else: undefined (the
 * matrix runs its conforming claim itself), with the reason on the console.
 */
export function provenResults(claimFile: string): ClaimResults | undefined {
  const folder = process.env.AHP_MATRIX_PROVEN;
  if (!folder) return undefined;
  const bytes = readFileSync(claimFile);
  const name = (YAML.parse(bytes.toString('utf8')) as { implementation: { name: string } }).implementation.name;
  const file = join(resolve(ROOT, folder), name, 'results.json');
  const why = (reason: string): undefined => {
    console.log(`AHP_MATRIX_PROVEN: ${file} ${reason}; the conforming claim runs here`);
    return undefined;
  };
  try {
    if (statSync(file).size > MAX_RESULTS_BYTES) return why(`is over ${MAX_RESULTS_BYTES} bytes`);
  } catch (err) {
    return why(`cannot be read (${(err as Error).message})`);
  }
  // Checked against schemas/results.schema.json, as the matrix's own results are.
  const r = resultsReader(resolve(ROOT, folder))(name);
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (r.claim?.digest !== digest) return why(`is of another claim than ${claimFile} (digest ${r.claim?.digest})`);
  if (r.verdict !== 'conformant') return why(`says ${r.verdict}`);
  console.log(`AHP_MATRIX_PROVEN: the conforming claim's results are ${file} (claim ${claimFile}, sha256 ${digest})`);
  return r;
}

/** One `ahp-conformance run` of claim files; its exit status must be `wantExit`. */
function runClaims(
  m: FaultMatrix,
  files: readonly string[],
  reports: string,
  args: readonly string[],
  wantExit?: number,
): number {
  const r = spawnSync(
    process.execPath,
    [
      resolve(ROOT, 'bin', 'ahp-conformance.js'),
      'run',
      ...files,
      '--reports',
      reports,
      '--workers',
      // AHP_MATRIX_WORKERS: another count, for measuring what the matrix's parallelism buys.
      process.env.AHP_MATRIX_WORKERS ?? String(m.workers),
      ...args,
    ],
    {
      encoding: 'utf8',
      cwd: ROOT,
      timeout: m.timeoutMs,
      // Failing content checks print whole frames as evidence: the default 1 MiB would kill the run.
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, AHP_PROGRESS: 'line' },
    },
  );
  const why = `${r.error?.message ?? ''}\n${r.stderr}${r.stdout.slice(-3000)}`;
  // Without a wanted code: 0 or 1, a judgement (the caller reads the results); anything else broke.
  if (wantExit !== undefined) expect(r.status, why).toBe(wantExit);
  else expect([0, 1], why).toContain(r.status);
  return r.status!;
}

/** Which checks asked about each mode, per shape: from the trace claims' whole transcripts. */
type Consults = Map<string, Map<string, Set<string>>>;

/**
 * Runs the conforming reference once per shape of the modes' claims with tracing on (with
 * the conforming claim, when `conforming` is given) and reads, per check, the modes its code
 * asked about. Every trace check must pass: it is the conforming reference.
 */
function traceConsults(
  m: FaultMatrix,
  trace: (mode: string) => TraceClaim | undefined,
  modes: readonly string[],
  write: (name: string, yaml: string) => string,
  reports: string,
  conforming: string | undefined,
): Consults {
  const shapes = new Map<string, string>(); // shape -> claim name
  const files: string[] = conforming !== undefined ? [write('conforming', conforming)] : [];
  for (const mode of modes) {
    const t = trace(mode);
    if (t === undefined || shapes.has(t.shape)) continue;
    const name = `trace-${shapes.size + 1}`;
    shapes.set(t.shape, name);
    files.push(write(name, t.yaml(name)));
  }
  runClaims(m, files, reports, ['--full-transcripts'], 0);
  const known = new Set(m.modeNames ?? m.table.modes);
  const results = resultsReader(reports);
  const consults: Consults = new Map();
  for (const [shape, name] of shapes) {
    const r = results(name);
    expect(bad(r).map((c) => `${name} (${shape}): ${c.id} ${c.status}: ${c.message.split('\n')[0]}`)).toEqual([]);
    const byMode = new Map<string, Set<string>>();
    for (const c of r.checks) {
      const transcript = c.transcript ?? [];
      // A transcript cut at the recorder's limits (drivers/transcript.ts) may have lost a
      // consult: that check counts as asking about every mode (it runs for all of them).
      const cut = transcript.some((e) => /transcript limit of|truncated: kept|left out here/.test(e.note ?? ''));
      // The stderr of every process of the check, in order: a line cut across two chunks joins again.
      const stderr = transcript
        .filter((e) => e.dir === 'stderr')
        .map((e) => e.text ?? '')
        .join('');
      for (const mode of cut ? known : consultedModes(stderr)) {
        expect(known.has(mode), `${name}: ${c.id} names an unknown mode ${JSON.stringify(mode)}`).toBe(true);
        byMode.set(mode, (byMode.get(mode) ?? new Set()).add(c.id));
      }
    }
    consults.set(shape, byMode);
  }
  return consults;
}

/** Writes the claims, runs them, and judges the matrix; a targeted run (some modes) proves only those. */
export function checkFaultMatrix(m: FaultMatrix): void {
  const dir = mkdtempSync(join(tmpdir(), m.tempPrefix));
  try {
    const reports = join(dir, 'reports');
    const write = (name: string, yaml: string): string => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, yaml);
      return file;
    };
    const allModes = m.runs.flatMap((r) => Object.keys(r.faults));
    const causal = MATRIX_CAUSAL && m.trace !== undefined;
    let conforming = false;
    let consults: Consults | undefined;
    if (causal) {
      const given = m.proven ? undefined : m.runs.find((r) => r.conforming !== undefined)?.conforming;
      consults = traceConsults(m, m.trace!, allModes, write, reports, given);
      conforming = given !== undefined;
    }
    let ran = 0;
    let runs = 0;
    const exits: number[] = [];
    const whole: string[] = [];
    for (const run of m.runs) {
      const files = Object.entries(run.faults).map(([mode, yaml]) => write(`fault-${mode}`, yaml));
      if (run.conforming !== undefined && !causal && !m.proven) {
        files.unshift(write('conforming', run.conforming));
        conforming = true;
      }
      if (!files.length) continue;
      const modes = Object.keys(run.faults);
      const checksOf = (mode: string): string[] | undefined => {
        const t = m.trace!(mode);
        if (t === undefined) return undefined;
        return [...new Set([...ownChecks(m.table, mode), ...(consults?.get(t.shape)?.get(t.mode) ?? [])])];
      };
      const scope =
        MATRIX_SCOPE === 'targets'
          ? ['--grep', modesGrep(modes, (mode) => ownChecks(m.table, mode))]
          : causal
            ? ['--grep', modesGrep(modes, checksOf)]
            : [];
      if (causal)
        for (const mode of modes) {
          const checks = checksOf(mode);
          if (checks) ran += checks.length;
          else whole.push(mode);
        }
      // Every check a mode must fail, on the run's --expected-failures list: Playwright then
      // keeps the worker that failed it (it replaces one after every unexpected failure, about
      // a second of CPU each), and the run exits 0 only when each listed check failed and no
      // other did. The verdicts are judged below from each check's own status.
      const listed = modes.flatMap((mode) =>
        [...m.table.targets(mode), ...m.table.alsoFails(mode)]
          .filter((id) => checkSpec(id).level === 'MUST')
          .map((check) => ({ check, implementation: `fault-${mode}`, reason: 'the fault mode breaks it' })),
      );
      const list = listed.length ? write(`expected-${runs}`, YAML.stringify({ expected: listed })) : undefined;
      runs += 1;
      exits.push(
        runClaims(m, files, reports, [...scope, ...(run.args ?? []), ...(list ? ['--expected-failures', list] : [])]),
      );
    }
    if (causal)
      console.log(
        `${m.tempPrefix} causal matrix: ${allModes.length - whole.length} modes ran ${ran} checks in all${whole.length ? `; ${whole.join(', ')} ran every check` : ''}`,
      );
    const results = resultsReader(reports);
    const conformingResults = m.proven ?? (conforming ? results('conforming') : undefined);
    if (conformingResults) expectConforming(conformingResults);
    const { problems, caught } = faultMatrixProblems(
      { ...m.table, modes: m.runs.flatMap((r) => Object.keys(r.faults)) },
      results,
    );
    expect(problems).toEqual([]);
    // Each run's judgement: every listed check failed, and nothing else did (0).
    expect(exits).toEqual(exits.map(() => 0));
    if (m.everyCheck) {
      expect(conformingResults, 'the every-check assertion needs the conforming claim').toBeDefined();
      expect(m.everyCheck(conformingResults!).filter((id) => !caught.has(id))).toEqual([]);
    }
  } finally {
    // AHP_MATRIX_KEEP=1 keeps the matrix's claims and reports (for measuring where its time goes).
    if (process.env.AHP_MATRIX_KEEP === '1') console.log(`${m.tempPrefix} kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
