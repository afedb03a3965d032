// The reference harness (reference/harness), in isolation: the events and messages it
// builds are schema-valid, an invalid registration is refused before anything starts,
// a scenario against a tiny persistent stdio backend ends with the right markers and
// report, and the command line accepts every fault mode. Build first:
// `npm run build`.
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHECKS, checkSpec } from '../../src/checks/catalogue.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { FAULTS, FAULT_MODES } from '../../reference/harness/faults.js';
import {
  HARNESS,
  SOURCE,
  TOOL_BEFORE_CAPABILITIES,
  newCallId,
  newEventId,
  sessionEndEvent,
  sessionStartEvent,
  toolAfterEvent,
  toolBeforeEvent,
  withInput,
} from '../../reference/harness/events.js';
import { interceptMessage, observeMessage, stdioFrame } from '../../reference/harness/messages.js';
import { ROOT } from '../support/paths.js';

const MAIN = resolve(ROOT, 'dist', 'reference', 'harness', 'main.js');
/** Upper bound for one harness run; the harness bounds itself well below it. */
const RUN_LIMIT_MS = 30_000;

type Obj = Record<string, unknown>;

// ------------------------------------------------------------------ helpers

function tempDir(t: { dirs: string[] }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-ref-harness-'));
  t.dirs.push(dir);
  return dir;
}

interface HarnessRun {
  code: number | null;
  stderr: string;
}

/** Run the compiled harness to its end (killed if it overran, which fails the test). */
function runHarness(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<HarnessRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`harness did not exit within ${RUN_LIMIT_MS} ms; stderr: ${stderr}`));
    }, RUN_LIMIT_MS);
    child.once('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

const readJson = (path: string): Obj => JSON.parse(readFileSync(path, 'utf8')) as Obj;

/** Every finding of both layers (wire and profile): a message we build must have none. */
function expectClean(kind: string, value: unknown): void {
  const findings = validate(kind, value);
  expect(findings, `${kind}: ${JSON.stringify(findings)}`).toEqual([]);
}

function writeConfig(
  dir: string,
  registration: unknown,
  steps: unknown[],
  cwd?: string,
): { path: string; report: string } {
  const report = join(dir, 'report.json');
  const path = join(dir, 'config.json');
  const session = cwd === undefined ? { id: 'sess-ref' } : { id: 'sess-ref', cwd };
  writeFileSync(
    path,
    JSON.stringify({
      adapterContract: 1,
      registration,
      sentinel: { tool: 'ahp_sentinel' },
      scenario: { session, steps },
      report,
      futureMember: 'ignored', // unknown config members are ignored (contract section 2)
    }),
  );
  return { path, report };
}

/**
 * A persistent stdio backend as a few lines of node: it logs every stdin line (with its
 * pid) and answers intercepts: deny for input {n: 2}, a merge of {mode: "0644"} otherwise.
 */
const BACKEND_SOURCE = String.raw`
const { appendFileSync } = require('node:fs');
const log = process.argv[2];
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    appendFileSync(log, JSON.stringify({ pid: process.pid, line }) + '\n');
    let msg;
    try { msg = JSON.parse(line); } catch { continue; }
    if (!('id' in msg)) continue;
    const input = msg.params.event.tool.input;
    const effects = input.n === 2
      ? [{ type: 'deny', reason: 'n=2 is never allowed' }]
      : [{ type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } }];
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 'draft', effects } }) + '\n');
  }
});
`;

function stdioHook(id: string, command: string, args: string[], subscriptions: unknown[]): Obj {
  return { id, transport: { type: 'stdio', command, args, lifecycle: 'persistent' }, subscriptions };
}
const INTERCEPT = {
  events: ['tool.before'],
  mode: 'intercept',
  timeoutMs: 5000,
  failurePolicy: 'fail-closed',
  content: { default: 'body' },
};
const OBSERVE = {
  events: ['tool.after', 'session.start', 'session.end'],
  mode: 'observe',
  content: { default: 'body' },
};

const state = { dirs: [] as string[] };
test.afterAll(() => {
  for (const d of state.dirs) rmSync(d, { recursive: true, force: true });
});

// ------------------------------------------------------------------ 1. what it builds

test.describe('events and messages', () => {
  const session = { id: 'sess-1', cwd: '/tmp/work' };
  const ids = { eventId: newEventId(), callId: newCallId() };
  const tool = { name: 'ahp_sentinel', input: { path: 'a.txt' } };

  test('every event kind the harness builds is valid under its event schema, with harness metadata', () => {
    const built: [string, Obj][] = [
      ['session.start', sessionStartEvent(session)],
      ['session.start', sessionStartEvent({ id: 'no-cwd' })],
      ...(['completed', 'cancelled', 'error', 'unknown'] as const).map((o): [string, Obj] => [
        'session.end',
        sessionEndEvent(session, o),
      ]),
      ['tool.before', toolBeforeEvent(session, ids, tool)],
      ['tool.before', withInput(toolBeforeEvent(session, ids, tool), { path: 'a.txt', mode: '0644' })],
      ['tool.after', toolAfterEvent(session, ids.callId, tool, 'executed')],
      ['tool.after', toolAfterEvent(session, ids.callId, tool, 'denied')],
    ];
    for (const [type, event] of built) {
      expect(event.type).toBe(type);
      expect(event.source).toBe(SOURCE);
      expect(event.harness).toEqual(HARNESS);
      expectClean(`event:${type}`, event);
      expectClean('event', event);
    }
  });

  test('tool.after keeps the call id of tool.before and says how the call settled', () => {
    const before = toolBeforeEvent(session, ids, tool);
    const ran = toolAfterEvent(session, ids.callId, tool, 'executed');
    const denied = toolAfterEvent(session, ids.callId, tool, 'denied');
    expect(ran.call).toEqual(before.call);
    expect(denied.call).toEqual(before.call);
    expect(ran.id).not.toBe(before.id);
    expect([ran.outcome, ran.execution]).toEqual(['ok', { status: 'executed' }]);
    expect([denied.outcome, denied.execution]).toEqual(['denied', { status: 'skipped', reason: 'policy' }]);
  });

  test('intercept and observe messages validate, and frame as one compact line', () => {
    const before = toolBeforeEvent(session, ids, tool);
    const intercept = interceptMessage(before, before.id as string);
    expectClean('intercept-request', intercept);
    expect(intercept.id).toBe(before.id);
    expect((intercept.params as Obj).capabilities).toEqual(TOOL_BEFORE_CAPABILITIES);
    // The advertisement is valid where it is used, and tells the backend deny and input edits are enforced.
    expectClean('capabilities:tool.before', TOOL_BEFORE_CAPABILITIES);
    for (const event of [
      sessionStartEvent(session),
      sessionEndEvent(session, 'completed'),
      before,
      toolAfterEvent(session, ids.callId, tool, 'executed'),
    ]) {
      const observe = observeMessage(event);
      expectClean('observe-notification', observe);
      expect(observe).not.toHaveProperty('id');
    }
    const frame = stdioFrame(intercept);
    expect(frame.endsWith('\n')).toBe(true);
    expect(frame.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(frame)).toEqual(intercept);
  });
});

// ------------------------------------------------------------------ 2. refusal

test.describe('registration refused', () => {
  test('an invalid registration exits 1 with a rejected report, and nothing is started', async () => {
    const dir = tempDir(state);
    const started = join(dir, 'started.txt');
    const script = join(dir, 'would-start.js');
    writeFileSync(script, `require('node:fs').writeFileSync(${JSON.stringify(started)}, 'started');\n`);
    const step = {
      id: 't1',
      kind: 'tool',
      tool: { name: 'ahp_sentinel', input: { n: 1 } },
      marker: join(dir, 't1.json'),
      host: 'allow',
    };
    const registrations = [
      { protocolVersion: 'draft', hooks: [] },
      // valid apart from the intercept subscription's missing failurePolicy
      {
        protocolVersion: 'draft',
        hooks: [
          stdioHook('dev.test.refused', process.execPath, [script], [{ ...INTERCEPT, failurePolicy: undefined }]),
        ],
      },
      // plain http to a host that is not loopback
      {
        protocolVersion: 'draft',
        hooks: [
          {
            id: 'dev.test.remote',
            transport: { type: 'http', url: 'http://example.com/hooks' },
            subscriptions: [INTERCEPT],
          },
        ],
      },
    ];
    for (const registration of registrations) {
      const { path, report } = writeConfig(dir, registration, [{ id: 'start', kind: 'session.start' }, step]);
      const run = await runHarness(['--config', path]);
      expect(run.code, run.stderr).toBe(1);
      const r = readJson(report);
      expect(r).toMatchObject({ adapterContract: 1, harness: HARNESS, registration: 'rejected' });
      expect(typeof r.rejectionReason).toBe('string');
      expect(r).not.toHaveProperty('steps');
      rmSync(report);
    }
    expect(existsSync(started)).toBe(false);
    expect(existsSync(step.marker)).toBe(false);
  });

  test('a missing or broken config is a one-line error and exit 2', async () => {
    const dir = tempDir(state);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"adapterContract": 1,');
    for (const args of [
      [],
      ['--config', join(dir, 'absent.json')],
      ['--config', broken],
      ['--config', broken, '--fault', 'no-such-mode'],
    ]) {
      const run = await runHarness(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

// ------------------------------------------------------------------ 3. a scenario

test('a scenario against a persistent stdio backend: denials, edits, host refusal, one process', async () => {
  const dir = tempDir(state);
  const backend = join(dir, 'backend.cjs');
  const wire = join(dir, 'wire.jsonl');
  writeFileSync(backend, BACKEND_SOURCE);
  const marker = (id: string): string => join(dir, `${id}.json`);
  const toolStep = (id: string, input: Obj, host = 'allow', name = 'ahp_sentinel'): Obj => ({
    id,
    kind: 'tool',
    tool: { name, input },
    marker: marker(id),
    host,
  });
  const registration = {
    protocolVersion: 'draft',
    hooks: [stdioHook('dev.test.backend', process.execPath, [backend, wire], [INTERCEPT, OBSERVE])],
  };
  const { path, report } = writeConfig(
    dir,
    registration,
    [
      { id: 'start', kind: 'session.start' },
      toolStep('t1', { path: 'a.txt' }),
      { id: 'both', kind: 'parallel', steps: [toolStep('t2', { n: 2 }), toolStep('t3', { n: 3 })] },
      toolStep('t4', { n: 4 }, 'ask-refuse'),
      toolStep('t5', { n: 5 }, 'deny'),
      toolStep('t6', { n: 6 }, 'allow', 'other_tool'),
      { id: 'end', kind: 'session.end', outcome: 'completed' },
    ],
    dir,
  );

  const run = await runHarness(['--config', path]);
  expect(run.code, run.stderr).toBe(0);

  expect(readJson(report)).toEqual({
    adapterContract: 1,
    harness: HARNESS,
    registration: 'accepted',
    steps: [
      { id: 't1', outcome: 'executed' },
      { id: 't2', outcome: 'denied-by-backend', reason: 'n=2 is never allowed' },
      { id: 't3', outcome: 'executed' },
      { id: 't4', outcome: 'denied-by-host', reason: 'the user refused the call' },
      { id: 't5', outcome: 'denied-by-host', reason: 'the host policy denies the call' },
      { id: 't6', outcome: 'executed' },
    ],
  });
  expect(readJson(marker('t1'))).toEqual({ executedInput: { path: 'a.txt', mode: '0644' } });
  expect(readJson(marker('t3'))).toEqual({ executedInput: { n: 3, mode: '0644' } });
  for (const id of ['t2', 't4', 't5', 't6']) expect(existsSync(marker(id)), id).toBe(false);

  // What the backend received: valid messages only, on one process, for the subscribed events.
  const lines = readFileSync(wire, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { pid: number; line: string });
  expect(new Set(lines.map((l) => l.pid)).size).toBe(1);
  const messages = lines.map((l) => JSON.parse(l.line) as Obj);
  const intercepts = messages.filter((m) => m.method === 'hooks/intercept');
  const observed = messages.filter((m) => m.method === 'hooks/observe');
  for (const m of intercepts) expect(isWireValid(validate('intercept-request', m)), JSON.stringify(m)).toBe(true);
  for (const m of observed) expect(isWireValid(validate('observe-notification', m)), JSON.stringify(m)).toBe(true);
  expect(intercepts).toHaveLength(6);
  const types = observed.map((m) => ((m.params as Obj).event as Obj).type);
  expect(types.filter((t) => t === 'tool.after')).toHaveLength(6);
  expect(types.filter((t) => t !== 'tool.after').sort()).toEqual(['session.end', 'session.start']);
  // tool.after of an edited call carries the input the tool ran with.
  const afterT1 = observed
    .map((m) => (m.params as Obj).event as Obj)
    .find((e) => e.type === 'tool.after' && ((e.tool as Obj).input as Obj).path === 'a.txt');
  expect((afterT1!.tool as Obj).input).toEqual({ path: 'a.txt', mode: '0644' });
});

// ------------------------------------------------------------------ 4. fault modes

test.describe('fault modes', () => {
  test('every target is a harness check id, and each harness check has a fault', () => {
    const targeted = new Map<string, string[]>();
    for (const mode of FAULT_MODES) {
      const spec = FAULTS[mode];
      expect(spec.targets.length, mode).toBeGreaterThan(0);
      for (const id of spec.targets) {
        expect(checkSpec(id).roles, `${mode} → ${id}`).toContain('harness');
        targeted.set(id, [...(targeted.get(id) ?? []), mode]);
      }
    }
    // Several modes may target one check (issue 10: each false pass is a mode of its own).
    for (const c of CHECKS.filter((c) => c.roles.includes('harness')))
      expect(targeted.get(c.id)?.length ?? 0, c.id).toBeGreaterThanOrEqual(1);
  });

  test('the command line accepts every fault mode, by flag and by environment', async () => {
    // One node start-up per mode (49 and counting), a few at a time: under a load of 16-20 on
    // two cores (helpers running alongside) this went past the default 60 s.
    test.setTimeout(180_000);
    const dir = tempDir(state);
    const registration = {
      protocolVersion: 'draft',
      hooks: [stdioHook('dev.test.idle', process.execPath, [join(dir, 'never-started.js')], [INTERCEPT])],
    };
    // No tool steps: the hook's backend is started lazily, so these runs start nothing.
    const { path, report } = writeConfig(dir, registration, [{ id: 'start', kind: 'session.start' }]);
    const queue = [...FAULT_MODES.map((m) => ({ args: ['--config', path, '--fault', m], env: process.env, mode: m }))];
    queue.push({
      args: ['--config', path],
      env: { ...process.env, AHP_REFERENCE_HARNESS_FAULT: 'jsonrpc-1' },
      mode: 'jsonrpc-1',
    });
    // A few at a time: each run is a node start-up.
    const results: { mode: string; run: HarnessRun }[] = [];
    const worker = async (): Promise<void> => {
      for (let job = queue.shift(); job; job = queue.shift())
        results.push({ mode: job.mode, run: await runHarness(job.args, job.env) });
    };
    // One report file for all runs: only the exit status and stderr are compared here.
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(results).toHaveLength(FAULT_MODES.length + 1);
    for (const { mode, run } of results) {
      expect(run.code, `${mode}: ${run.stderr}`).toBe(0);
      expect(run.stderr, mode).toContain(`fault mode ${mode} is on`);
    }
    expect(readJson(report)).toEqual({ adapterContract: 1, harness: HARNESS, registration: 'accepted', steps: [] });
  });
});
