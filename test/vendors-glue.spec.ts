// The glue of `npm run vendors` (docs/vendors.md), without the SDKs or a network: the Python
// harness adapter run against a stand-in SDK (vendors/python/stub/, first on PYTHONPATH) to
// check how it maps the adapter contract onto SDK calls and what it reports; and the
// orchestration script's claim list and stamp logic.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import {
  readStamp,
  reusable,
  rustBinaries,
  tellingLine,
  vendorClaims,
  vendorPaths,
  wantedStamp,
} from '../scripts/vendors.js';
import { ROOT } from './support/paths.js';

const ADAPTER = join(ROOT, 'vendors', 'python', 'harness_adapter.py');
const STUB = join(ROOT, 'vendors', 'python', 'stub');
const HAVE_PYTHON = spawnSync('python3', ['--version']).status === 0;

interface Logged {
  call: string;
  input?: Record<string, unknown> & { input?: Record<string, unknown> };
  harness?: Record<string, string>;
}

function runAdapter(dir: string, config: Record<string, unknown>, how: 'flag' | 'env' = 'flag') {
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ adapterContract: 1, report: join(dir, 'report.json'), ...config }));
  const log = join(dir, 'log.jsonl');
  const result = spawnSync('python3', how === 'flag' ? [ADAPTER, '--config', path] : [ADAPTER], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      PYTHONPATH: STUB,
      PYTHONDONTWRITEBYTECODE: '1',
      STUB_LOG: log,
      AHP_ADAPTER_CONFIG: path,
    },
  });
  const read = <T>(file: string): T | undefined =>
    existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
  return {
    status: result.status,
    stderr: result.stderr,
    report: read<Record<string, unknown>>(join(dir, 'report.json')),
    marker: (id: string) => read<{ executedInput: unknown }>(join(dir, `${id}.json`)),
    log: existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Logged)
      : [],
  };
}

function toolStep(dir: string, id: string, input: Record<string, unknown>, host = 'allow', name = 'ahp_sentinel') {
  return { id, kind: 'tool', tool: { name, input: { ...input, probe: id } }, marker: join(dir, `${id}.json`), host };
}

test.describe('the Python harness adapter over a stand-in SDK', () => {
  test.skip(!HAVE_PYTHON, 'python3 is not installed');
  let dir: string;
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vendors-glue-'));
  });
  test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('maps each step onto one SDK boundary, plays the host, and reports what the SDK settled', () => {
    const steps = [
      { id: 'start', kind: 'session.start' },
      toolStep(dir, 'plain', {}),
      toolStep(dir, 'denied', { stub: 'deny' }),
      toolStep(dir, 'closed', { stub: 'fail-closed' }),
      toolStep(dir, 'edited', { stub: 'modify', path: 'a.txt' }),
      toolStep(dir, 'host-deny', {}, 'deny'),
      toolStep(dir, 'host-ask', {}, 'ask-refuse'),
      toolStep(dir, 'asked', { stub: 'ask' }),
      { id: 'both', kind: 'parallel', steps: [toolStep(dir, 'p1', {}), toolStep(dir, 'p2', {})] },
      { id: 'end', kind: 'session.end', outcome: 'completed' },
    ];
    const registration = { protocolVersion: 'draft', hooks: [{ id: 'h' }] };
    const run = runAdapter(dir, {
      registration,
      sentinel: { tool: 'ahp_sentinel' },
      scenario: { session: { id: 's-9', cwd: dir }, steps },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // The report names the SDK's harness identity (the one it writes on every event).
    expect(run.report).toEqual({
      adapterContract: 1,
      harness: { name: 'agenthooksprotocol-python', version: '0.10.1' },
      registration: 'accepted',
      steps: [
        { id: 'plain', outcome: 'executed' },
        { id: 'denied', outcome: 'denied-by-backend', reason: 'stub denies' },
        { id: 'closed', outcome: 'denied-by-failure-policy' },
        { id: 'edited', outcome: 'executed' },
        { id: 'host-deny', outcome: 'denied-by-host' },
        { id: 'host-ask', outcome: 'denied-by-host' },
        { id: 'asked', outcome: 'denied-by-host' },
        { id: 'p1', outcome: 'executed' },
        { id: 'p2', outcome: 'executed' },
      ],
    });
    // The sentinel runs only for executed calls, with the input the SDK settled.
    expect(run.marker('plain')).toEqual({ executedInput: { probe: 'plain' } });
    expect(run.marker('edited')).toEqual({
      executedInput: { stub: 'modify', path: 'a.txt', probe: 'edited', mode: '0644' },
    });
    for (const id of ['denied', 'closed', 'host-deny', 'host-ask', 'asked']) expect(run.marker(id)).toBeUndefined();
    // One session_start, a tool_before and a tool_after per call (same call id, the effective
    // input, ok or denied/skipped), one session_end, and the SDK closed at the end.
    const calls = run.log.map((l) => l.call);
    expect(calls[0]).toBe('construct');
    expect(calls[1]).toBe('session_start');
    expect(calls.at(-2)).toBe('session_end');
    expect(calls.at(-1)).toBe('close');
    expect(calls.filter((c) => c === 'tool_before')).toHaveLength(9);
    const befores = run.log.filter((l) => l.call === 'tool_before');
    const afters = run.log.filter((l) => l.call === 'tool_after');
    expect(afters).toHaveLength(9);
    for (const before of befores) {
      const probe = before.input?.input?.probe as string;
      const after = afters.find((a) => a.input?.call_id === before.input?.call_id);
      expect(after, probe).toBeDefined();
      const ran = ['plain', 'edited', 'p1', 'p2'].includes(probe);
      expect(after?.input?.outcome, probe).toBe(ran ? 'ok' : 'denied');
      expect(after?.input?.execution, probe).toEqual(
        ran ? { status: 'executed' } : { status: 'skipped', reason: 'policy' },
      );
      expect(before.input).toMatchObject({ name: 'ahp_sentinel', path: 'ahp_sentinel', origin: 'native' });
    }
    expect(afters.find((a) => a.input?.input?.probe === 'edited')?.input?.input).toMatchObject({ mode: '0644' });
    expect(run.log[1].input).toMatchObject({ session: { id: 's-9', cwd: dir } });
    expect(run.log.at(-2)?.input).toMatchObject({ outcome: 'completed' });
  });

  test('a registration the SDK refuses is reported rejected, exit 1, and nothing is dispatched', () => {
    const run = runAdapter(
      dir,
      {
        registration: { protocolVersion: 'draft', hooks: [{ id: 'h', invalid: true }] },
        sentinel: { tool: 'ahp_sentinel' },
        scenario: { session: { id: 's' }, steps: [toolStep(dir, 't1', {})] },
      },
      'env',
    );
    expect(run.status).toBe(1);
    expect(run.report).toMatchObject({ adapterContract: 1, registration: 'rejected' });
    expect(String(run.report?.rejectionReason)).toContain('invalid registration');
    expect(run.report?.steps).toBeUndefined();
    expect(run.log).toEqual([]);
    expect(run.marker('t1')).toBeUndefined();
  });
});

test.describe('npm run vendors: claims and stamp', () => {
  test('every vendor claim pins draft@1d98c19 and launches what the install makes, never a launcher', () => {
    const paths = vendorPaths(ROOT);
    const claims = vendorClaims(paths);
    expect(claims).toEqual(
      expect.arrayContaining([
        'vendors/claims/python-backend.yaml',
        'vendors/claims/python-harness.yaml',
        'vendors/claims/rust-backend.yaml',
      ]),
    );
    const binaries = rustBinaries(paths).map((b) => b.split('/').at(-1));
    for (const file of claims) {
      const claim = YAML.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, any>;
      expect(claim.snapshot, file).toBe('draft@1d98c19');
      const commands = [claim.backend?.stdio?.command, claim.backend?.http?.command, claim.harness?.command].filter(
        Boolean,
      ) as string[];
      expect(commands.length, file).toBeGreaterThan(0);
      for (const command of commands) {
        if (file.includes('python')) expect(command, file).toBe('../.work/venv/bin/python');
        else {
          expect(command, file).toMatch(/^\.\.\/\.work\/cargo-target\/release\/[a-z_]+$/);
          expect(binaries, file).toContain(command.split('/').at(-1));
        }
      }
    }
  });

  test('the stamp reuses an install only when its pins, toolchain and artefacts all match', () => {
    const root = mkdtempSync(join(tmpdir(), 'vendors-stamp-'));
    try {
      mkdirSync(join(root, 'vendors', 'python'), { recursive: true });
      mkdirSync(join(root, 'vendors', 'rust', 'src', 'bin'), { recursive: true });
      writeFileSync(join(root, 'vendors', 'python', 'requirements.txt'), 'agenthooksprotocol==0.10.1\n');
      writeFileSync(join(root, 'vendors', 'rust', 'Cargo.toml'), 'agenthooksprotocol = "=0.10.1"\n');
      writeFileSync(join(root, 'vendors', 'rust', 'src', 'bin', 'backend.rs'), 'fn main() {}\n');
      const paths = vendorPaths(root);
      const tools = { python: 'Python 3.11.7', cargo: 'cargo 1.95.0' };
      const first = wantedStamp(paths, tools);
      expect(wantedStamp(paths, tools)).toEqual(first);
      // A new Python pin changes only the Python part.
      writeFileSync(join(root, 'vendors', 'python', 'requirements.txt'), 'agenthooksprotocol==0.10.2\n');
      const repinned = wantedStamp(paths, tools);
      expect(repinned.python).not.toBe(first.python);
      expect(repinned.rust).toBe(first.rust);
      // A changed Rust source or another cargo changes only the Rust part.
      writeFileSync(join(root, 'vendors', 'rust', 'src', 'bin', 'backend.rs'), 'fn main() { }\n');
      expect(wantedStamp(paths, tools).rust).not.toBe(repinned.rust);
      expect(wantedStamp(paths, { ...tools, cargo: 'cargo 1.96.0' }).python).toBe(repinned.python);
      expect(rustBinaries(paths)).toEqual([join(root, 'vendors', '.work', 'cargo-target', 'release', 'backend')]);

      const artefact = join(root, 'made');
      expect(reusable(first.python, first.python, [artefact])).toBe(false); // not made yet
      writeFileSync(artefact, '');
      expect(reusable(first.python, first.python, [artefact])).toBe(true);
      expect(reusable(undefined, first.python, [artefact])).toBe(false);
      expect(reusable(repinned.python, first.python, [artefact])).toBe(false);

      mkdirSync(paths.work, { recursive: true });
      expect(readStamp(paths.stamp)).toEqual({});
      writeFileSync(paths.stamp, 'not json');
      expect(readStamp(paths.stamp)).toEqual({});
      writeFileSync(paths.stamp, JSON.stringify(first));
      expect(readStamp(paths.stamp)).toEqual(first);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('a failed install is told in its most telling line', () => {
    const pip = [
      'Looking in indexes: https://pypi.org/simple',
      "WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError'",
      'ERROR: Could not find a version that satisfies the requirement agenthooksprotocol==0.10.1 (from versions: none)',
      'ERROR: No matching distribution found for agenthooksprotocol==0.10.1',
    ].join('\n');
    expect(tellingLine(pip)).toMatch(/^ERROR: Could not find a version/);
    expect(
      tellingLine('   Updating crates.io index\nerror: failed to get `agenthooksprotocol` as a dependency\n'),
    ).toBe('error: failed to get `agenthooksprotocol` as a dependency');
    expect(tellingLine('')).toBe('no output');
  });
});
