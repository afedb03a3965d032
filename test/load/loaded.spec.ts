// Verdicts that hold on a loaded machine (issue 10): while busy processes keep both cores
// occupied, the reference backend and harness are conformant on one target each, a
// backend that burns 1.5 s of CPU before its first line is conformant on every target at
// the default timeoutMs (with latency warnings where a reply came late), the harness's
// timing checks give the same verdict three times over (`run --repeat 3`: none flaky), and a
// backend that never answers still fails, naming the patience it was given.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ClaimResults } from '../../src/results/model.js';
import { ROOT } from '../support/paths.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const BACKEND = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');
const HARNESS = resolve(ROOT, 'dist', 'reference', 'harness', 'main.js');
const node = JSON.stringify(process.execPath);

let burners: ChildProcess[] = [];
let dir: string;

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ahp-load-'));
  // Two busy loops per core: the runner and the implementations compete for every core.
  burners = Array.from({ length: 2 * availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
});
test.afterAll(() => {
  for (const b of burners) b.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** One run of these claims (name: the claim after its name and snapshot), and each one's results. */
function certifyAll(
  claims: Record<string, string>,
  extra: string[] = [],
): { code: number | null; out: string; results: Record<string, ClaimResults> } {
  const files = Object.entries(claims).map(([name, claim]) => {
    const file = join(dir, `${name}.yaml`);
    // The reference implementations start in draft@2b5da580 unless told otherwise: the claims pin it.
    writeFileSync(file, `implementation: { name: ${name}, version: 1.0.0 }\nsnapshot: draft@2b5da580\n${claim}`);
    return file;
  });
  const reports = join(dir, 'reports');
  const r = spawnSync(process.execPath, [BIN, 'run', ...files, '--reports', reports, '--workers', '2', ...extra], {
    encoding: 'utf8',
    env: { ...process.env, AHP_PROGRESS: 'line' },
    timeout: 850_000,
  });
  const results = Object.fromEntries(
    Object.keys(claims).map((name) => [
      name,
      JSON.parse(readFileSync(join(reports, name, 'results.json'), 'utf8')) as ClaimResults,
    ]),
  );
  return { code: r.status, out: `${r.stdout}\n${r.stderr}`, results };
}

function certify(
  name: string,
  claim: string,
  extra: string[] = [],
): { code: number | null; out: string; results: ClaimResults } {
  const r = certifyAll({ [name]: claim }, extra);
  return { ...r, results: r.results[name]! };
}

const failing = (r: ClaimResults): string[] =>
  r.checks
    .filter((c) => c.status === 'failed')
    .map((c) => `${c.id} ${c.transport}/${c.lifecycle ?? ''}: ${c.message.split('\n')[0]}`);

test('the reference backend (stdio per_event) and harness (http) are conformant with both cores busy', () => {
  // One run of both claims: a run's own start and end are paid once (test:load keeps its time).
  const r = certifyAll({
    'loaded-backend':
      `role: backend\ntransports: [stdio]\nprofiles: [tool-interception, lifecycle-observation]\n` +
      `backend:\n  stdio: { command: ${node}, args: [${JSON.stringify(BACKEND)}, --transport, stdio], lifecycle: per_event }\n` +
      `  samples:\n    deny: [{ event: tool.before, tool: { name: rm_rf, input: { path: / } } }]\n`,
    'loaded-harness':
      `role: harness\ntransports: [http]\nprofiles: [tool-interception, lifecycle-observation]\n` +
      `harness: { command: ${node}, args: [${JSON.stringify(HARNESS)}, --config, "{config}"] }\n`,
  });
  for (const results of Object.values(r.results)) {
    expect(failing(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
  }
  expect(r.code).toBe(0);
});

/**
 * The harness checks judged against deadlines and tolerances measured in the run
 * (src/timing.ts: actToleranceMs, the deadline probes, the timeout class), on http, where
 * each runs in a few seconds. Not auth.acquisition-deadline: the same tolerance rule as
 * ti.deadline at twice its cost (two launches, a stalled token endpoint), which would take
 * test:load over its time.
 */
const TIMING_CHECKS = ['ti.deadline', 'ti.failure-policy', 'lo.observer-isolation'];

test('the timing checks give the same verdict three times over with both cores busy (run --repeat 3)', () => {
  const r = certify(
    'loaded-timing',
    `role: harness\ntransports: [http]\nprofiles: [tool-interception, lifecycle-observation]\n` +
      `harness: { command: ${node}, args: [${JSON.stringify(HARNESS)}, --config, "{config}"] }\n`,
    ['--repeat', '3', '--grep', `^(${TIMING_CHECKS.map((id) => id.replace(/\./g, '\\.')).join('|')}):`],
  );
  const flaky = r.results.checks
    .filter((c) => c.flaky)
    .map((c) => `${c.id}: ${c.repetitions?.map((x) => `${x.status} ${x.durationMs} ms`).join(', ')}`);
  expect(flaky).toEqual([]);
  expect(failing(r.results)).toEqual([]);
  expect(r.results.run?.repeat).toBe(3);
  expect(r.results.checks.map((c) => c.id).sort()).toEqual([...TIMING_CHECKS].sort());
  for (const c of r.results.checks) expect(c.repetitions, c.id).toHaveLength(3);
  expect(r.out).toContain('0 flaky across 3 repetitions');
  expect(r.code).toBe(0);
});

test('a backend that burns 1.5 s of CPU before its first line is conformant on every target at the default timeoutMs', () => {
  const env = '{ AHP_REFERENCE_START_BURN_MS: "1500" }';
  const r = certify(
    'slow-start',
    // Every target, one profile: each per_event exchange pays the start again, and the base
    // checks (notifications, unknown methods, versions) judge silence and refusals there
    // too; lifecycle-observation would add its checks' starts, not another kind of wait.
    `role: backend\ntransports: [stdio, http]\nprofiles: [tool-interception]\n` +
      `backend:\n  stdio: { command: ${node}, args: [${JSON.stringify(BACKEND)}, --transport, stdio], lifecycle: [persistent, per_event], env: ${env} }\n` +
      `  http: { command: ${node}, args: [${JSON.stringify(BACKEND)}, --transport, http, --port, "{port}"], url: "http://127.0.0.1:{port}/hooks", env: ${env} }\n` +
      `  samples:\n    deny: [{ event: tool.before, tool: { name: rm_rf, input: { path: / } } }]\n`,
  );
  expect(failing(r.results)).toEqual([]);
  expect(r.results.verdict).toBe('conformant');
  expect(r.code).toBe(0);
  // Late replies are judged on content, and say so.
  for (const c of r.results.checks.filter((x) => x.status === 'warning'))
    expect(c.message).toMatch(/came after timeoutMs|SHOULD|should/i);
});

test('a backend that never answers still fails, naming the patience it was given', () => {
  const silent = join(dir, 'silent.cjs');
  writeFileSync(silent, 'process.stdin.resume(); setInterval(() => {}, 1000);\n');
  const r = certify(
    'never-answers',
    `role: backend\ntransports: [stdio]\nprofiles: [tool-interception]\ntimeoutMs: 300\n` +
      `backend:\n  stdio: { command: ${node}, args: [${JSON.stringify(silent)}] }\n`,
    ['--grep', 'ti.response-id'],
  );
  expect(r.results.verdict).toBe('nonconformant');
  const check = r.results.checks.find((c) => c.id === 'ti.response-id')!;
  expect(check.status).toBe('failed');
  expect(check.message).toMatch(/no reply within 300 ms \(timeoutMs\); waited 1500 ms in all/);
});
