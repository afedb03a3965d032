// `npm run bench`: validator throughput as ratios against JSON.parse, the stdio driver against
// a bare loop, the hostile corpus (wall time, peak RSS and leftovers per behaviour), and the
// certification of the reference backend and harness against bare baselines of the same work
// (docs/performance.md), all in the same run (absolute numbers vary by machine; ratios are
// what to compare between commits).
//
//   npm run bench -- [--only validator,launch,driver,harness-run,corpus,silence,certify] [--no-corpus] [--corpus all]
//                    [--no-certify] [--workers <n>] [--repeat <n>]
import { performance } from 'node:perf_hooks';
import { parseJsonBytes } from '../src/protocol/json.js';
import { ourSchemas } from '../src/protocol/schema-set.js';
import { validateRaw } from '../src/protocol/validator.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import YAML from 'yaml';
import { StdioProcess } from '../drivers/stdio.js';
import { Transcript } from '../drivers/transcript.js';
import { interceptRequest, toolBeforeEvent, HARMLESS_TOOL } from '../src/checks/probes.js';
import { packageRoot } from '../src/package-root.js';
import { defaultWorkers } from '../src/engine/playwright.js';
import { containment } from '../drivers/containment.js';
import { spawnTracked } from '../drivers/processes.js';
import { CORPUS, corpusNonce, removeBatch, runBatch, runnerPeak } from './hostile-corpus.js';

const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const only = flag('--only')?.split(',');
const want = (section: string): boolean => only === undefined || only.includes(section);

const request = {
  jsonrpc: '2.0',
  id: 'evt-1',
  method: 'hooks/intercept',
  params: {
    protocolVersion: 'draft',
    capabilities: { effects: ['deny', 'modify', 'message'], modify: { input: { replace: true, merge: true } } },
    event: {
      id: 'evt-1',
      source: 'ahp://harness/bench',
      type: 'tool.before',
      time: '2026-11-30T12:00:00.000Z',
      harness: { name: 'bench', version: '1.0.0' },
      session: { id: 's-1', cwd: '/work' },
      call: { id: 'call-1' },
      tool: { name: 'write_file', input: { path: 'a.txt', content: 'x'.repeat(2000) }, origin: 'native' },
      path: 'write_file',
      items: [{ id: 'p1', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'hello '.repeat(200) }],
    },
  },
};
const invalid = structuredClone(request) as typeof request & { params: { event: Record<string, unknown> } };
invalid.params.event.type = 'tool.unknown';
const bytes = new TextEncoder().encode(JSON.stringify(request));
const badBytes = new TextEncoder().encode(JSON.stringify(invalid));

function rate(name: string, fn: () => unknown, ms = 1500): { name: string; perSecond: number } {
  for (let i = 0; i < 200; i++) fn(); // warm up
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
    now = performance.now();
  }
  return { name, perSecond: (n * 1000) / (now - start) };
}

if (want('validator')) {
  const compileStart = performance.now();
  ourSchemas().forKind('intercept-request');
  const compileMs = performance.now() - compileStart;

  const decoder = new TextDecoder();
  const baseline = rate('JSON.parse (baseline)', () => JSON.parse(decoder.decode(bytes)));
  const rows = [
    baseline,
    rate('strict parse (UTF-8, duplicate keys)', () => parseJsonBytes(bytes)),
    rate('validateRaw: valid intercept request', () => validateRaw('intercept-request', bytes)),
    rate('validateRaw: invalid request, explained', () => validateRaw('intercept-request', badBytes), 1000),
    rate('validateRaw: any message (aggregate)', () => validateRaw('ahp', bytes)),
  ];
  process.stdout.write(
    `message size ${bytes.length} bytes; first compile of intercept-request ${compileMs.toFixed(0)} ms\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.name.padEnd(44)} ${Math.round(r.perSecond).toString().padStart(9)}/s   ${(baseline.perSecond / r.perSecond).toFixed(1)}x the baseline's time\n`,
    );
  }
}

// ---------------------------------------------------------------- drivers

const root = packageRoot();
const backend = [join(root, 'dist', 'reference', 'backend', 'main.js'), '--transport', 'stdio'];
const N = 2000;
const lines = Array.from({ length: N }, () => `${JSON.stringify(interceptRequest(toolBeforeEvent(HARMLESS_TOOL)))}\n`);

async function bareLoop(): Promise<number> {
  const child = spawn(process.execPath, backend, { stdio: ['pipe', 'pipe', 'ignore'] });
  const rl = createInterface({ input: child.stdout! });
  const it = rl[Symbol.asyncIterator]();
  const start = performance.now();
  for (const l of lines) {
    child.stdin!.write(l);
    await it.next();
  }
  const ms = performance.now() - start;
  child.kill();
  return ms;
}

async function driverLoop(): Promise<number> {
  const p = StdioProcess.start({
    command: process.execPath,
    args: backend,
    cwd: root,
    env: process.env as Record<string, string>,
    transcript: new Transcript(),
  });
  const start = performance.now();
  for (const l of lines) {
    p.send(l);
    await p.nextLine(5000);
  }
  const ms = performance.now() - start;
  await p.stop();
  return ms;
}

// The sandbox's launch cost: starting /bin/true contained (bash closing descriptors, bwrap
// building the sandbox, teardown) against a bare spawn of it, median of 40 each.
if (want('launch')) {
  const startOnce = (contained: boolean): Promise<number> =>
    new Promise((done) => {
      const t = performance.now();
      const child = contained
        ? spawnTracked('/bin/true', [], {
            cwd: tmpdir(),
            env: { PATH: '/usr/bin:/bin' },
            stdio: 'ignore',
            confine: { writable: [tmpdir()], hidden: [] },
          })
        : spawn('/bin/true', [], { stdio: 'ignore' });
      child.once('exit', () => done(performance.now() - t));
    });
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const times = async (contained: boolean): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < 40; i++) out.push(await startOnce(contained));
    return out;
  };
  const bare = median(await times(false));
  const kind = containment().kind;
  const boxed = median(await times(true));
  console.log(
    `\nlaunch (/bin/true, median of 40): bare ${bare.toFixed(1)} ms, ${kind} ${boxed.toFixed(1)} ms (x${(boxed / bare).toFixed(1)}; ${(boxed - bare).toFixed(1)} ms added per launch)`,
  );
}

if (want('driver')) {
  const bare = await bareLoop();
  const driven = await driverLoop();
  process.stdout.write(`\n${N} intercept exchanges over persistent stdio with the reference backend:\n`);
  process.stdout.write(
    `${'bare loop (child_process + readline)'.padEnd(44)} ${bare.toFixed(0).padStart(7)} ms   1.0x\n`,
  );
  process.stdout.write(
    `${'runner driver (StdioProcess + transcript)'.padEnd(44)} ${driven.toFixed(0).padStart(7)} ms   ${(driven / bare).toFixed(2)}x the bare loop's time\n`,
  );
}

// ---------------------------------------------------------------- one harness run
// Harness certification starts the adapter once per scenario: its start-up cost, against a
// bare Node.js start, is what a harness check costs beyond the exchanges themselves.
if (want('harness-run')) {
  const runs = 10;
  const dir = mkdtempSync(join(tmpdir(), 'ahp-bench-'));
  // The hook's backend is the reference backend: the scripted one reports to the runner's collector.
  const backendMain = join(root, 'dist', 'reference', 'backend', 'main.js');
  const config = {
    adapterContract: 1,
    registration: {
      protocolVersion: 'draft',
      hooks: [
        {
          id: 'dev.ahp-conformance.a',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [backendMain, '--transport', 'stdio'],
            lifecycle: 'persistent',
          },
          subscriptions: [
            {
              events: ['tool.before'],
              mode: 'intercept',
              timeoutMs: 2000,
              failurePolicy: 'fail-closed',
              content: { default: 'body' },
            },
          ],
        },
      ],
    },
    sentinel: { tool: 'ahp_sentinel' },
    scenario: {
      session: { id: 's' },
      steps: [
        {
          id: 't1',
          kind: 'tool',
          tool: { name: 'ahp_sentinel', input: { probe: 't1' } },
          marker: join(dir, 'm.json'),
          host: 'allow',
        },
      ],
    },
    report: join(dir, 'report.json'),
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const time = (args: string[]): number => {
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) spawnSync(process.execPath, args, { stdio: 'ignore' });
    return performance.now() - t0;
  };
  const bareNode = time(['-e', '0']);
  const harnessRun = time([
    join(root, 'dist', 'reference', 'harness', 'main.js'),
    '--config',
    join(dir, 'config.json'),
  ]);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    `\n${runs} runs of one intercepted tool call through the reference harness (adapter + reference stdio backend):\n`,
  );
  process.stdout.write(`${'bare node -e 0'.padEnd(44)} ${bareNode.toFixed(0).padStart(7)} ms   1.0x\n`);
  process.stdout.write(
    `${'reference harness run'.padEnd(44)} ${harnessRun.toFixed(0).padStart(7)} ms   ${(harnessRun / bareNode).toFixed(2)}x a bare Node.js start\n`,
  );
}

// ---------------------------------------------------------------- the hostile corpus
// test/hostile/README.md: each behaviour run alone through the CLI (one claim, its check),
// with the run's wall time, the peak RSS of the largest runner process (sampled every 100 ms
// from /proc, the implementation's own processes left out) and the processes it left 1 s
// after the run. A representative subset; `--corpus all` runs every row, `--no-corpus` none;
// skipped without kernel containment.
if (!want('corpus')) {
  // --only without corpus
} else if (!process.argv.includes('--no-corpus') && containment().kind !== 'sandbox') {
  process.stdout.write(
    `\nhostile corpus skipped: kernel containment unavailable (${containment().reason ?? ''}); its processes need a container to end them\n`,
  );
} else if (!process.argv.includes('--no-corpus')) {
  const all = process.argv.includes('all') && process.argv.includes('--corpus');
  const subset = new Set([
    'double-fork',
    'forge',
    'kill-all',
    'fork-storm',
    'short-lines',
    'braces',
    'endless-line',
    'gigabyte',
    'stderr-flood',
    'gzip-bomb',
    'chunked-endless',
    'ten-gb',
    'token-stderr-exit',
    'adapter-fifo',
    'adapter-sparse',
  ]);
  const nonce = corpusNonce();
  process.stdout.write(
    `\nhostile corpus (${all ? 'every row' : `${subset.size} rows; --corpus all for every row`}), each behaviour alone, containment ${containment().kind}:\n`,
  );
  process.stdout.write(
    `${'behaviour'.padEnd(26)} ${'run'.padStart(8)} ${'check'.padStart(8)} ${'peak RSS'.padStart(9)} ${'left'.padStart(5)}  verdict\n`,
  );
  for (const batch of CORPUS) {
    for (const row of batch.rows) {
      if (!all && !subset.has(row.id)) continue;
      const b = await runBatch(batch, nonce, { rows: [row.id] });
      const o = b.rows.get(row.id)!;
      const check = o.results?.checks.find((c) => c.status !== 'not-run');
      const peak = runnerPeak(b);
      process.stdout.write(
        `${row.id.padEnd(26)} ${`${(b.wallMs / 1000).toFixed(1)} s`.padStart(8)} ${`${((check?.durationMs ?? 0) / 1000).toFixed(1)} s`.padStart(8)} ` +
          `${`${(peak.rss / 1024 / 1024).toFixed(0)} MB`.padStart(9)} ${String(o.leftovers.length).padStart(5)}  ${o.results?.verdict ?? 'no results'}\n`,
      );
      removeBatch(b);
    }
  }
}

// ---------------------------------------------------------------- certification against bare baselines
// docs/performance.md. Each measurement runs a certification with a fixed --workers W on a
// temporary copy of the reference claim whose implementation traces its work (--trace, a
// bench instrument), then prices the same work bare, right after, so load hits both.

interface BackendProcess {
  transport: 'stdio' | 'http';
  exchanges: number;
}
interface HarnessRun {
  start: number;
  end?: number;
}

const mainOf = (what: 'backend' | 'harness'): string => join(root, 'dist', 'reference', what, 'main.js');

/** A copy of claims/reference-<what>.yaml tracing into <dir>/trace.log, cwd <dir>, absolute paths. */
function tracedClaim(what: 'backend' | 'harness', dir: string): string {
  const claim = YAML.parse(readFileSync(join(root, 'claims', `reference-${what}.yaml`), 'utf8')) as Record<string, any>;
  const trace = ['--trace', join(dir, 'trace.log')];
  const absolute = (args: string[]): string[] =>
    args.map((a) => (a.startsWith('../') ? resolve(root, 'claims', a) : a));
  if (what === 'backend') {
    for (const t of ['stdio', 'http'] as const)
      Object.assign(claim.backend[t], { args: [...absolute(claim.backend[t].args), ...trace], cwd: dir });
  } else {
    Object.assign(claim.harness, { args: [...absolute(claim.harness.args), ...trace], cwd: dir });
  }
  const file = join(dir, 'claim.yaml');
  writeFileSync(file, YAML.stringify(claim));
  return file;
}

interface Certified {
  ms: number;
  summary: string;
  checksMs: number;
  failed: string[];
  /** How many checks each Playwright project (one per claim and role: playwright.config.ts) ran. */
  perProject: number[];
}

/** Run `ahp-conformance run` on the claim: its wall time, closing line, the sum of its check times and its failures. */
async function certify(claim: string, workers: number): Promise<Certified> {
  const reports = mkdtempSync(join(tmpdir(), 'ahp-bench-reports-'));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(root, 'bin', 'ahp-conformance.js'), 'run', claim, '--workers', String(workers), '--reports', reports],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AHP_PROGRESS: 'line' },
    },
  );
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  await new Promise((done) => child.once('close', done));
  const ms = performance.now() - started;
  let checks: {
    id: string;
    status: string;
    role?: string;
    durationMs?: number;
    transport?: string;
    lifecycle?: string;
    message?: string;
  }[] = [];
  try {
    const name = (YAML.parse(readFileSync(claim, 'utf8')) as { implementation: { name: string } }).implementation.name;
    checks = (JSON.parse(readFileSync(join(reports, name, 'results.json'), 'utf8')) as { checks: typeof checks })
      .checks;
  } catch {
    /* no results: the closing line says why */
  }
  rmSync(reports, { recursive: true, force: true });
  return {
    ms,
    summary: out.trim().split('\n').pop() ?? '',
    checksMs: checks.reduce((n, c) => n + (c.durationMs ?? 0), 0),
    perProject: [
      ...checks
        .reduce((m, c) => m.set(c.role ?? '', (m.get(c.role ?? '') ?? 0) + 1), new Map<string, number>())
        .values(),
    ],
    failed: checks
      .filter((c) => c.status === 'failed')
      .map((c) => `${c.id} (${[c.transport, c.lifecycle].filter(Boolean).join('/')}): ${c.message ?? ''}`),
  };
}

function backendTrace(file: string): BackendProcess[] {
  const byId = new Map<string, BackendProcess>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [id, what, transport] = line.split(' ');
    if (!id) continue;
    if (what === 'start') byId.set(id, { transport: transport as 'stdio' | 'http', exchanges: 0 });
    else if (what === 'x') byId.get(id)!.exchanges++;
  }
  return [...byId.values()];
}

function harnessTrace(file: string): HarnessRun[] {
  const byId = new Map<string, HarnessRun>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [id, what, at] = line.split(' ');
    if (!id) continue;
    if (what === 'start') byId.set(id, { start: Number(at) });
    else if (what === 'exit') byId.get(id)!.end = Number(at);
  }
  return [...byId.values()];
}

/** Run the jobs with at most `width` at a time; the wall time of the whole pool. */
async function pool(jobs: (() => Promise<void>)[], width: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, lane));
  return performance.now() - started;
}

const exited = (child: ChildProcess): Promise<unknown> =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(undefined);
    else child.once('exit', done);
  });

/** One traced backend process, bare: the same command, its number of harmless intercepts, closed. */
async function replay(p: BackendProcess, cwd: string): Promise<void> {
  if (p.transport === 'stdio') {
    const child = spawn(process.execPath, [mainOf('backend'), '--transport', 'stdio'], {
      cwd,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const replies = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    for (let i = 0; i < p.exchanges; i++) {
      child.stdin!.write(lines[0]!);
      await replies.next();
    }
    child.stdin!.end();
    await exited(child);
    return;
  }
  const child = spawn(process.execPath, [mainOf('backend'), '--transport', 'http', '--port', '0'], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Wait for the port: the backend names it on stderr once it listens.
  const port = await new Promise<string>((found, failed) => {
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      const m = /listening on http:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) found(m[1]!);
    });
    child.once('exit', () => failed(new Error(`backend exited before listening: ${err}`)));
  });
  for (let i = 0; i < p.exchanges; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: lines[0]!,
    });
    await res.arrayBuffer();
  }
  child.kill('SIGTERM');
  await exited(child);
}

/**
 * Playwright alone: as many projects as the certification had (one per claim and role, its
 * targets sharing the project's workers), each with as many empty tests as that project had
 * checks, at the same workers, no reporter. What no runner built on Playwright can avoid: its
 * start, a worker per project and slot, its dispatch.
 */
async function engineFloor(testsPerProject: number[], workers: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-bench-floor-'));
  const testModule = import.meta.resolve('@playwright/test');
  testsPerProject.forEach((n, i) => {
    mkdirSync(join(dir, `p${i}`));
    writeFileSync(
      join(dir, `p${i}`, 'floor.spec.mjs'),
      `import { test } from ${JSON.stringify(testModule)};\nfor (let i = 0; i < ${n}; i++) test('t' + i, () => {});\n`,
    );
  });
  const projects = testsPerProject.map((_, i) => ({ name: `p${i}`, testDir: join(dir, `p${i}`) }));
  writeFileSync(
    join(dir, 'floor.config.mjs'),
    `export default ${JSON.stringify({ fullyParallel: true, workers, reporter: 'null', outputDir: join(dir, 'out'), projects })};\n`,
  );
  const cli = fileURLToPath(import.meta.resolve('@playwright/test/cli'));
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'test', '-c', join(dir, 'floor.config.mjs')], { stdio: 'ignore' });
  await exited(child);
  const ms = performance.now() - started;
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

/** Greedy list scheduling of the runs, in their traced start order, on `width` slots. */
function makespan(durations: number[], width: number): number {
  const slots = Array.from({ length: width }, () => 0);
  for (const d of durations) {
    const i = slots.indexOf(Math.min(...slots));
    slots[i]! += d;
  }
  return Math.max(...slots);
}

/** The time at least one run was alive. */
function busy(runs: { start: number; end: number }[]): number {
  let total = 0;
  let until = -Infinity;
  for (const r of [...runs].sort((a, b) => a.start - b.start)) {
    if (r.end <= until) continue;
    total += r.end - Math.max(r.start, until);
    until = r.end;
  }
  return total;
}

/** The most runs alive at one moment. */
function peakConcurrency(runs: { start: number; end: number }[]): number {
  const edges = runs
    .flatMap(
      (r) =>
        [
          [r.start, 1],
          [r.end, -1],
        ] as const,
    )
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let alive = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (alive += d));
  return peak;
}

async function certifySection(): Promise<void> {
  // The runner's default (src/engine/playwright.ts), unless --workers names it: passed to the run explicitly.
  const workers = Number(flag('--workers') ?? defaultWorkers());
  const repeat = Number(flag('--repeat') ?? 1);
  type Row = { what: string; cert: Certified; bare: number; floor: number; detail: string };
  const rows: Row[] = [];
  process.stdout.write(`\ncertification against its bare baseline, --workers ${workers}, ${repeat} time(s) each:\n`);
  for (let r = 0; r < repeat; r++) {
    {
      const dir = mkdtempSync(join(tmpdir(), 'ahp-bench-backend-'));
      const claim = tracedClaim('backend', dir);
      const cert = await certify(claim, workers);
      const procs = backendTrace(join(dir, 'trace.log'));
      const bareDir = mkdtempSync(join(tmpdir(), 'ahp-bench-bare-'));
      const bare = await pool(
        procs.map((p) => () => replay(p, bareDir)),
        workers,
      );
      rmSync(bareDir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
      const count = (t: string): string => {
        const ps = procs.filter((p) => p.transport === t);
        return `${ps.length} ${t} (${ps.reduce((n, p) => n + p.exchanges, 0)} exchanges)`;
      };
      rows.push({
        what: 'reference backend',
        cert,
        bare,
        floor: await engineFloor(cert.perProject, workers),
        detail: `replayed ${count('stdio')} and ${count('http')} process starts`,
      });
    }
    {
      const dir = mkdtempSync(join(tmpdir(), 'ahp-bench-harness-'));
      const claim = tracedClaim('harness', dir);
      const cert = await certify(claim, workers);
      const traced = harnessTrace(join(dir, 'trace.log'));
      rmSync(dir, { recursive: true, force: true });
      const runs = traced
        .filter((t): t is Required<HarnessRun> => t.end !== undefined)
        .sort((a, b) => a.start - b.start);
      // The bare cost: the time some adapter run was alive, i.e. the makespan of the same runs
      // at the parallelism they had, without the runner's time between them. The brief's
      // measure, their makespan on W slots, is no bound once scenarios run concurrently within
      // a worker (more than W adapters alive), so it is printed beside, with the makespan on
      // as many slots as were ever in use.
      const peak = peakConcurrency(runs);
      const durations = runs.map((t) => t.end - t.start);
      const sum = durations.reduce((n, d) => n + d, 0);
      const sec1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
      rows.push({
        what: 'reference harness',
        cert,
        bare: busy(runs),
        floor: await engineFloor(cert.perProject, workers),
        detail:
          `some adapter alive, ${runs.length} runs${traced.length > runs.length ? ` (+${traced.length - runs.length} without an exit)` : ''}, ` +
          `${sec1(sum)} in all, at most ${peak} at once; makespan on ${workers} slot(s) ${sec1(makespan(durations, workers))}` +
          `${peak > workers ? `, on ${peak} ${sec1(makespan(durations, peak))}` : ''}`,
      });
    }
  }
  const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  process.stdout.write(
    `${'certification'.padEnd(18)} ${'wall'.padStart(8)} ${'checks'.padStart(8)} ${'bare'.padStart(8)} ${'ratio'.padStart(6)} ${'floor'.padStart(8)} ${'least'.padStart(6)}  the bare work\n`,
  );
  const x = (n: number): string => `${n.toFixed(2)}x`.padStart(6);
  for (const r of rows) {
    process.stdout.write(
      `${r.what.padEnd(18)} ${sec(r.cert.ms)} ${sec(r.cert.checksMs)} ${sec(r.bare)} ${x(r.cert.ms / r.bare)} ${sec(r.floor)} ${x((r.floor + r.bare) / r.bare)}  ${r.detail}\n`,
    );
    if (r.cert.failed.length > 0 || !/: conformant /.test(r.cert.summary)) {
      process.stdout.write(
        `${''.padEnd(18)} ${r.cert.summary}\n${r.cert.failed.map((f) => `${''.padEnd(18)} failed: ${f.split('\n')[0]}\n`).join('')}`,
      );
    }
  }
  const spread = (what: string): string => {
    const ratios = rows.filter((r) => r.what === what).map((r) => r.cert.ms / r.bare);
    return `${what} ${Math.min(...ratios).toFixed(2)}x to ${Math.max(...ratios).toFixed(2)}x`;
  };
  if (repeat > 1)
    process.stdout.write(
      `spread over ${repeat} runs: ${spread('reference backend')}; ${spread('reference harness')}\n`,
    );
  process.stdout.write(
    `(checks: the sum of the check times in results.json; floor: Playwright alone, the same projects (one per claim and role) of empty tests;\n` +
      ` least: (floor + bare) / bare, the ratio of a runner that added nothing to Playwright; load average now ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})\n`,
  );
}

// ---------------------------------------------------------------- silence by causality
// A backend that answers what it accepts and is silent on what it refuses (the reference's
// silent-on-errors), against the conforming reference under the same claim, in the same run:
// each silent refusal costs its deadline and a fence, not the patience (drivers/channel.ts).
async function silenceSection(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-bench-silence-'));
  const claim = (name: string, fault?: string): string => {
    const file = join(dir, `${name}.yaml`);
    const args = [join(root, 'dist', 'reference', 'backend', 'main.js'), '--transport', 'stdio'];
    if (fault) args.push('--fault', fault);
    writeFileSync(
      file,
      YAML.stringify({
        implementation: { name, version: '1.0.0' },
        role: 'backend',
        transports: ['stdio'],
        profiles: ['tool-interception'],
        backend: { stdio: { command: process.execPath, args, lifecycles: ['persistent'] } },
      }),
    );
    return file;
  };
  const workers = Number(flag('--workers') ?? defaultWorkers());
  const good = await certify(claim('conforming'), workers);
  const silent = await certify(claim('silent', 'silent-on-errors'), workers);
  rmSync(dir, { recursive: true, force: true });
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  process.stdout.write(
    `\nsilence (stdio persistent, --workers ${workers}): conforming ${s(good.ms)}, silent on refusals ${s(silent.ms)}: ` +
      `ratio ${(silent.ms / good.ms).toFixed(2)}x (goal 1.5x; ${silent.failed.length} checks failed, as they must)\n`,
  );
}

if (want('silence')) await silenceSection();
// Last: the slowest section, and its declarations above must be initialized first.
if (want('certify') && !process.argv.includes('--no-certify')) await certifySection();
