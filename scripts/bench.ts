// `npm run bench`: validator throughput as ratios against JSON.parse, the stdio driver against
// a bare loop, the hostile corpus (wall time, peak RSS and leftovers per behaviour), and the
// wall time of a full certification of the reference backend, all in the same run
// (absolute numbers vary by machine; ratios are what to compare between commits).
import { performance } from 'node:perf_hooks';
import { parseJsonBytes } from '../src/protocol/json.js';
import { ourSchemas } from '../src/protocol/schema-set.js';
import { validateRaw } from '../src/protocol/validator.js';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { StdioProcess } from '../drivers/stdio.js';
import { Transcript } from '../drivers/transcript.js';
import { interceptRequest, toolBeforeEvent, HARMLESS_TOOL } from '../src/checks/probes.js';
import { packageRoot } from '../src/package-root.js';
import { containment } from '../drivers/containment.js';
import { CORPUS, corpusNonce, removeBatch, runBatch, runnerPeak } from './hostile-corpus.js';

const request = {
  jsonrpc: '2.0', id: 'evt-1', method: 'hooks/intercept',
  params: {
    protocolVersion: 'draft',
    capabilities: { effects: ['deny', 'modify', 'message'], modify: { input: { replace: true, merge: true } } },
    event: {
      id: 'evt-1', source: 'ahp://harness/bench', type: 'tool.before', time: '2026-11-30T12:00:00.000Z',
      harness: { name: 'bench', version: '1.0.0' }, session: { id: 's-1', cwd: '/work' },
      call: { id: 'call-1' }, tool: { name: 'write_file', input: { path: 'a.txt', content: 'x'.repeat(2000) }, origin: 'native' },
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
process.stdout.write(`message size ${bytes.length} bytes; first compile of intercept-request ${compileMs.toFixed(0)} ms\n`);
for (const r of rows) {
  process.stdout.write(`${r.name.padEnd(44)} ${Math.round(r.perSecond).toString().padStart(9)}/s   ${(baseline.perSecond / r.perSecond).toFixed(1)}x the baseline's time\n`);
}

// ---------------------------------------------------------------- drivers and a full certification

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
  const p = StdioProcess.start({ command: process.execPath, args: backend, cwd: root, env: process.env as Record<string, string>, transcript: new Transcript() });
  const start = performance.now();
  for (const l of lines) {
    p.send(l);
    await p.nextLine(5000);
  }
  const ms = performance.now() - start;
  await p.stop();
  return ms;
}

const bare = await bareLoop();
const driven = await driverLoop();
process.stdout.write(`\n${N} intercept exchanges over persistent stdio with the reference backend:\n`);
process.stdout.write(`${'bare loop (child_process + readline)'.padEnd(44)} ${bare.toFixed(0).padStart(7)} ms   1.0x\n`);
process.stdout.write(`${'runner driver (StdioProcess + transcript)'.padEnd(44)} ${driven.toFixed(0).padStart(7)} ms   ${(driven / bare).toFixed(2)}x the bare loop's time\n`);

// ---------------------------------------------------------------- one harness run
// Harness certification starts the adapter once per scenario: its start-up cost, against a
// bare Node.js start, is what a harness check costs beyond the exchanges themselves.
{
  const runs = 10;
  const dir = mkdtempSync(join(tmpdir(), 'ahp-bench-'));
  const stdioMain = join(root, 'dist', 'drivers', 'scripted-backend', 'stdio-main.js');
  writeFileSync(join(dir, 'script.json'), '{"hooks":{}}');
  writeFileSync(join(dir, 'wire.jsonl'), '');
  const config = {
    adapterContract: 1,
    registration: {
      protocolVersion: 'draft',
      hooks: [{
        id: 'dev.ahp-conformance.a',
        transport: { type: 'stdio', command: process.execPath, args: [stdioMain, '--run', dir, '--hook', 'a', '--lifecycle', 'persistent'], lifecycle: 'persistent' },
        subscriptions: [{ events: ['tool.before'], mode: 'intercept', timeoutMs: 2000, failurePolicy: 'fail-closed', content: { default: 'body' } }],
      }],
    },
    sentinel: { tool: 'ahp_sentinel' },
    scenario: { session: { id: 's' }, steps: [{ id: 't1', kind: 'tool', tool: { name: 'ahp_sentinel', input: { probe: 't1' } }, marker: join(dir, 'm.json'), host: 'allow' }] },
    report: join(dir, 'report.json'),
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const time = (args: string[]): number => {
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) spawnSync(process.execPath, args, { stdio: 'ignore' });
    return performance.now() - t0;
  };
  const bareNode = time(['-e', '0']);
  const harnessRun = time([join(root, 'dist', 'reference', 'harness', 'main.js'), '--config', join(dir, 'config.json')]);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`\n${runs} runs of one intercepted tool call through the reference harness (adapter + scripted stdio backend):\n`);
  process.stdout.write(`${'bare node -e 0'.padEnd(44)} ${bareNode.toFixed(0).padStart(7)} ms   1.0x\n`);
  process.stdout.write(`${'reference harness run'.padEnd(44)} ${harnessRun.toFixed(0).padStart(7)} ms   ${(harnessRun / bareNode).toFixed(2)}x a bare Node.js start\n`);
}

// ---------------------------------------------------------------- the hostile corpus
// test/hostile/README.md: each behaviour run alone through the CLI (one claim, its check),
// with the run's wall time, the peak RSS of the largest runner process (sampled every 100 ms
// from /proc, the implementation's own processes left out) and the processes it left 1 s
// after the run. A representative subset; `--corpus all` runs every row, `--no-corpus` none;
// skipped without kernel containment.
if (!process.argv.includes('--no-corpus') && containment().kind !== 'pid-namespace') {
  process.stdout.write(`\nhostile corpus skipped: kernel containment unavailable (${containment().reason ?? ''}); its processes need a container to end them\n`);
} else if (!process.argv.includes('--no-corpus')) {
  const all = process.argv.includes('all') && process.argv.includes('--corpus');
  const subset = new Set(['double-fork', 'forge', 'kill-all', 'fork-storm', 'short-lines', 'braces', 'endless-line', 'gigabyte', 'stderr-flood',
    'gzip-bomb', 'chunked-endless', 'ten-gb', 'token-stderr-exit', 'adapter-fifo', 'adapter-sparse']);
  const nonce = corpusNonce();
  process.stdout.write(`\nhostile corpus (${all ? 'every row' : `${subset.size} rows; --corpus all for every row`}), each behaviour alone, containment ${containment().kind}:\n`);
  process.stdout.write(`${'behaviour'.padEnd(26)} ${'run'.padStart(8)} ${'check'.padStart(8)} ${'peak RSS'.padStart(9)} ${'left'.padStart(5)}  verdict\n`);
  for (const batch of CORPUS) {
    for (const row of batch.rows) {
      if (!all && !subset.has(row.id)) continue;
      const b = await runBatch(batch, nonce, { rows: [row.id] });
      const o = b.rows.get(row.id)!;
      const check = o.results?.checks.find((c) => c.status !== 'skipped');
      const peak = runnerPeak(b);
      process.stdout.write(`${row.id.padEnd(26)} ${`${(b.wallMs / 1000).toFixed(1)} s`.padStart(8)} ${`${((check?.durationMs ?? 0) / 1000).toFixed(1)} s`.padStart(8)} ` +
        `${`${(peak.rss / 1024 / 1024).toFixed(0)} MB`.padStart(9)} ${String(o.leftovers.length).padStart(5)}  ${o.results?.verdict ?? 'no results'}\n`);
      removeBatch(b);
    }
  }
}

if (!process.argv.includes('--no-certify')) {
  for (const [what, claim] of [['backend', 'reference-backend.yaml'], ['harness', 'reference-harness.yaml']] as const) {
    const started = performance.now();
    const r = spawnSync(process.execPath, [join(root, 'bin', 'ahp-conformance.js'), 'run', join(root, 'claims', claim), '--reports', join(root, 'reports', '.bench')], {
      encoding: 'utf8', env: { ...process.env, AHP_PROGRESS: 'line' },
    });
    const summary = r.stdout.trim().split('\n').pop() ?? '';
    process.stdout.write(`\nfull certification of the reference ${what} (stdio persistent + per_event + http): ${((performance.now() - started) / 1000).toFixed(1)} s wall\n  ${summary}\n`);
  }
}
