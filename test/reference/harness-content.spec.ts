// The reference harness at the content boundaries of adapter contract version 2
// (reference/harness/content-events.ts, content.ts): every boundary event it builds is
// valid under the event schemas of both snapshots in every view, hidden views hold no
// text, the advertisement is valid per boundary, replies are judged as one atomic
// response under the hook's view, and a whole run chains edits, applies failure policies
// and writes the receivers' markers. Build first: `npm run build`.
import { FaultProbe } from '../../reference/fault-probe.js';
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BOUNDARIES } from '../../src/checks/boundaries.js';
import { validate } from '../../src/protocol/validator.js';
import { SNAPSHOT_IDS, type SnapshotId } from '../../src/protocol/snapshots.js';
import type { ContentStep, ContentStepKind } from '../../reference/harness/config.js';
import { CONTENT_STEP_KINDS, loadConfig } from '../../reference/harness/config.js';
import {
  boundaryCapabilities,
  contentBoundary,
  STEP_EVENT,
  type ContentBoundary,
} from '../../reference/harness/content-events.js';
import { judgeContentReply } from '../../reference/harness/content.js';
import type { FaultMode } from '../../reference/harness/faults.js';
import { ROOT } from '../support/paths.js';

type Obj = Record<string, unknown>;
const MAIN = resolve(ROOT, 'dist', 'reference', 'harness', 'main.js');
const session = { id: 'sess-content', cwd: '/tmp/work' };
const HIDDEN = 'hidden-words-7f3a';

// ------------------------------------------------------------------ sample content, per step kind

const text = (id: string, t: string): Obj => ({
  id,
  kind: 'text',
  mediaType: 'text/plain',
  selection: 'body',
  text: t,
});
const attachment = (id: string): Obj => ({
  id,
  kind: 'attachment',
  mediaType: 'image/png',
  selection: 'body',
  body: { ref: `ref-${id}` },
});
const messages = (step: string, role: string): Obj[] => [
  {
    id: `${step}.m1`,
    role,
    parts: [text(`${step}.p1`, `${HIDDEN} one`), attachment(`${step}.p2`), text(`${step}.p3`, `${HIDDEN} two`)],
  },
];
const parts = (step: string): Obj[] => [text(`${step}.p1`, `${HIDDEN} one`), text(`${step}.p2`, `${HIDDEN} two`)];
const REQUEST = {
  message: `${HIDDEN} your name?`,
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
};

function sampleStep(kind: ContentStepKind, id: string = kind.replaceAll('.', '-')): ContentStep {
  const body: Obj = { id, kind, marker: `/tmp/none/${id}.json` };
  switch (kind) {
    case 'user.message.inbound':
      body.message = { channel: 'cli', sender: 'user-1', messages: messages(id, 'user') };
      break;
    case 'user.message.outbound':
      body.message = { channel: 'cli', messages: messages(id, 'assistant') };
      break;
    case 'model.request':
      body.model = { id: 'sentinel-model' };
      body.messages = messages(id, 'user');
      break;
    case 'model.response':
      body.model = { provider: 'sentinel', id: 'sentinel-model' };
      body.messages = messages(id, 'assistant');
      break;
    case 'tool.output':
      body.tool = { name: 'ahp_sentinel', input: { probe: id } };
      body.output = messages(id, 'tool');
      break;
    case 'context.compact.before':
      body.items = messages(`${id}-items`, 'user');
      body.instructions = parts(id);
      break;
    case 'context.compact.after':
      body.summary = parts(id);
      body.removed = [{ id: 'old-1' }];
      break;
    case 'user.elicitation.request':
      body.elicitation = { server: 'srv', mode: 'form', request: REQUEST };
      break;
    case 'user.elicitation.result':
      body.elicitation = {
        server: 'srv',
        mode: 'form',
        action: 'accept',
        result: { action: 'accept', content: { name: HIDDEN } },
      };
      break;
    case 'workspace.change':
      body.workspace = { kind: 'cwd', change: { cwd: '/tmp/next' }, prior: { cwd: '/tmp/work' } };
      break;
  }
  return { id, kind, marker: body.marker as string, body: body as ContentStep['body'] };
}

const boundaryOfKind = (kind: ContentStepKind, fault?: FaultMode): ContentBoundary =>
  contentBoundary(sampleStep(kind), session, new FaultProbe(fault));

function wireErrors(kind: string, value: unknown, snapshot: SnapshotId): string[] {
  return validate(kind, value, { snapshot, wireOnly: true })
    .filter((f) => f.layer === 'wire')
    .map((f) => `${f.path}: ${f.message}`);
}

// ------------------------------------------------------------------ 0. the config

test('the config may say contract 1 or 2; content steps are read with their marker, unknown kinds stay unsupported', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ahp-ref-content-config-'));
  try {
    const write = (adapterContract: number, steps: unknown[]): string => {
      const path = join(dir, `c${adapterContract}.json`);
      const scenario = { session: { id: 's' }, steps };
      writeFileSync(
        path,
        JSON.stringify({ adapterContract, registration: {}, sentinel: { tool: 't' }, scenario, report: 'r' }),
      );
      return path;
    };
    const step = sampleStep('workspace.change', 'w1');
    const v2 = loadConfig(write(2, [step.body, { id: 'later', kind: 'turn.start' }]));
    expect(v2.ok && v2.config.adapterContract).toBe(2);
    expect(v2.ok && v2.config.scenario.steps.map((s) => s.kind)).toEqual(['workspace.change', 'unsupported']);
    expect(loadConfig(write(1, [])).ok).toBe(true);
    expect(loadConfig(write(3, [])).ok).toBe(false);
    expect(loadConfig(write(2, [{ id: 'x', kind: 'model.request' }])).ok).toBe(false); // no marker
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------------ 1. the events

test.describe('content boundary events', () => {
  test('every step kind maps to its boundary, and the table covers every boundary', () => {
    expect(new Set(CONTENT_STEP_KINDS.map((k) => STEP_EVENT[k]))).toEqual(new Set(BOUNDARIES.map((b) => b.event)));
  });

  for (const snapshot of SNAPSHOT_IDS) {
    test(`every boundary event is valid in every view under ${snapshot}, and hidden views hold no text`, () => {
      for (const kind of CONTENT_STEP_KINDS) {
        const c = boundaryOfKind(kind);
        for (const view of ['body', 'metadata', 'omit'] as const) {
          const event = c.event(c.initial, view);
          expect(event.type).toBe(c.boundary.event);
          expect(wireErrors(`event:${c.boundary.event}`, event, snapshot), `${kind} ${view}`).toEqual([]);
          const raw = JSON.stringify(event);
          // Workspace changes are objects, not parts: the view only decides editing.
          if (view !== 'body' && kind !== 'workspace.change') {
            expect(raw, `${kind} ${view}`).not.toContain(HIDDEN);
            expect(raw, `${kind} ${view}`).not.toContain('"ref-');
          }
          if (view === 'body' && kind !== 'workspace.change') expect(raw).toContain(HIDDEN);
        }
        // The boundary's advertisement is valid where it is used.
        expect(
          wireErrors(`capabilities:${c.boundary.event}`, boundaryCapabilities(c.boundary), snapshot),
          kind,
        ).toEqual([]);
      }
    });
  }

  test('the body view keeps ids, roles and order; structured values travel as one JSON text part', () => {
    const inbound = boundaryOfKind('user.message.inbound');
    const event = inbound.event(inbound.initial, 'body');
    expect((event.message as Obj).messages).toEqual(messages('user-message-inbound', 'user'));
    const req = boundaryOfKind('user.elicitation.request');
    const part = ((req.event(req.initial, 'body') as Obj).elicitation as Obj).request as Obj;
    expect(part).toMatchObject({
      id: 'user-elicitation-request.p1',
      kind: 'text',
      mediaType: 'text/plain',
      selection: 'body',
    });
    expect(JSON.parse(part.text as string)).toEqual(REQUEST);
    const meta = ((req.event(req.initial, 'metadata') as Obj).elicitation as Obj).request;
    expect(meta).toEqual({
      id: 'user-elicitation-request.p1',
      kind: 'text',
      mediaType: 'text/plain',
      selection: 'metadata',
    });
  });

  test('user.elicitation.request advertises no modify; every other boundary its target', () => {
    for (const b of BOUNDARIES) {
      const caps = boundaryCapabilities(b) as { effects: string[]; modify?: Obj };
      if (b.target === undefined) {
        expect(caps.effects).not.toContain('modify');
        expect(caps.modify).toBeUndefined();
      } else expect(caps.modify).toEqual({ [b.target]: { replace: true, merge: true } });
    }
  });

  test('noncanonical-content makes the body view invalid at every boundary, and only the body view', () => {
    for (const kind of CONTENT_STEP_KINDS) {
      const c = boundaryOfKind(kind, 'noncanonical-content');
      const body = c.event(c.initial, 'body');
      expect(wireErrors(`event:${c.boundary.event}`, body, 'draft@2b5da580').length, kind).toBeGreaterThan(0);
      if (kind !== 'workspace.change')
        expect(wireErrors(`event:${c.boundary.event}`, c.event(c.initial, 'metadata'), 'draft@2b5da580')).toEqual([]);
    }
  });
});

// ------------------------------------------------------------------ 2. judging replies

const reply = (effects: unknown[]): Obj => ({
  jsonrpc: '2.0',
  id: 'r1',
  result: { protocolVersion: 'draft', effects },
});
const modify = (target: string, operation: string, value: unknown): Obj => ({
  type: 'modify',
  target,
  operation,
  value,
});

function judge(
  kind: ContentStepKind,
  effects: unknown[],
  view: 'body' | 'metadata' | 'omit' = 'body',
  fault?: FaultMode,
) {
  const c = boundaryOfKind(kind, fault);
  const caps = boundaryCapabilities(c.boundary).effects as string[];
  return {
    c,
    judged: judgeContentReply(reply(effects) as never, 'r1', c.initial, c, caps, view, {
      snapshot: 'draft@2b5da580',
      fault: new FaultProbe(fault),
    }),
  };
}

test.describe('judging content replies', () => {
  const appended = [text('new.p1', 'added')];

  test('a valid merge appends; a valid replace replaces', () => {
    const { c, judged } = judge('context.compact.before', [modify('instructions', 'merge', appended)]);
    expect(judged).toEqual({
      ok: true,
      decision: { kind: 'modify', value: { instructions: [...(c.initial.instructions as Obj[]), ...appended] } },
    });
    const r = judge('context.compact.before', [modify('instructions', 'replace', appended)]).judged;
    expect(r).toEqual({ ok: true, decision: { kind: 'modify', value: { instructions: appended } } });
  });

  test('a response with a later rejected effect is rejected whole (non-atomic-edits keeps the earlier one)', () => {
    const effects = [modify('instructions', 'merge', appended), modify('instructions', 'merge', { not: 'a list' })];
    const atomic = judge('context.compact.before', effects).judged;
    expect(atomic.ok).toBe(false);
    expect(atomic.ok === false && atomic.partial).toBeUndefined();
    const broken = judge('context.compact.before', effects, 'body', 'non-atomic-edits');
    expect(broken.judged.ok).toBe(false);
    expect(broken.judged.ok === false && broken.judged.partial).toEqual({
      instructions: [...(broken.c.initial.instructions as Obj[]), ...appended],
    });
  });

  test('edits from a metadata or omit view never apply', () => {
    for (const view of ['metadata', 'omit'] as const) {
      const r = judge('context.compact.after', [modify('summary', 'merge', appended)], view).judged;
      expect(r.ok, view).toBe(false);
    }
  });

  test('whole-list replacement is refused only over hidden text; attachments cannot be rewritten', () => {
    const c = boundaryOfKind('user.message.inbound');
    const m = (c.initial.prompt as Obj[])[0]!;
    const swapped = [{ ...m, parts: [(m.parts as Obj[])[0], { ...(m.parts as Obj[])[1]!, body: { ref: 'other' } }] }];
    expect(judge('user.message.inbound', [modify('prompt', 'replace', swapped)]).judged.ok).toBe(false);
  });

  test('user.elicitation.result edits the answer object of an accepted form; the effective result is re-serialized', () => {
    const { c, judged } = judge('user.elicitation.result', [modify('content', 'merge', { name: 'edited' })]);
    expect(judged.ok).toBe(true);
    const value = judged.ok && judged.decision.kind === 'modify' ? judged.decision.value : c.initial;
    expect(c.effective(value)).toEqual({ action: 'accept', content: { name: 'edited' } });
  });

  test('workspace.change merges objects', () => {
    const { judged } = judge('workspace.change', [modify('workspace', 'merge', { workspaceRoots: ['/a'] })]);
    expect(judged).toEqual({
      ok: true,
      decision: { kind: 'modify', value: { workspace: { cwd: '/tmp/next', workspaceRoots: ['/a'] } } },
    });
  });

  test('a modify of a target the intercept did not advertise rejects the whole response (modify-any-target applies it)', () => {
    const effects = [modify('summary', 'merge', appended), modify('instructions', 'replace', appended)];
    expect(judge('context.compact.after', effects).judged.ok).toBe(false);
    const broken = judge('context.compact.after', effects, 'body', 'modify-any-target');
    expect(broken.judged).toEqual({ ok: true, decision: { kind: 'modify', value: { summary: appended } } });
  });

  test('a modify at user.elicitation.request is an unadvertised effect (the fault applies it)', () => {
    const effects = [modify('content', 'merge', { message: 'changed' })];
    expect(judge('user.elicitation.request', effects).judged.ok).toBe(false);
    const broken = judge('user.elicitation.request', effects, 'body', 'elicitation-request-modify');
    expect(broken.judged.ok).toBe(true);
    const v = broken.judged.ok && broken.judged.decision.kind === 'modify' ? broken.judged.decision.value : {};
    expect(broken.c.effective(v)).toEqual({ ...REQUEST, message: 'changed' });
  });

  test('deny where the boundary has one; a deny at tool.after is unadvertised', () => {
    expect(judge('user.message.inbound', [{ type: 'deny', reason: 'no' }]).judged).toEqual({
      ok: true,
      decision: { kind: 'deny', reason: 'no' },
    });
    expect(judge('tool.output', [{ type: 'deny', reason: 'no' }]).judged.ok).toBe(false);
  });
});

// ------------------------------------------------------------------ 3. a whole run

/**
 * A persistent stdio backend as a few lines of node: it logs every line and answers
 * intercepts by ordinal from the answer list in argv[3] (a list of effect lists; "fail"
 * answers with a JSON-RPC error).
 */
const BACKEND_SOURCE = String.raw`
const { appendFileSync } = require('node:fs');
const log = process.argv[2];
const answers = JSON.parse(process.argv[3]);
let n = 0;
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    appendFileSync(log, line + '\n');
    let msg;
    try { msg = JSON.parse(line); } catch { continue; }
    if (!('id' in msg)) continue;
    const effects = answers[n++] ?? [];
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 'draft', effects } }) + '\n');
  }
});
`;

function runHarness(config: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`harness overran; stderr: ${stderr}`));
    }, 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

test.describe('a content run', () => {
  const dirs: string[] = [];
  test.afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test('edits chain, a rejected response fails open or closed, hidden views cannot edit, observers get the result, an interceptor left uncalled observes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ahp-ref-content-'));
    dirs.push(dir);
    const script = join(dir, 'backend.js');
    writeFileSync(script, BACKEND_SOURCE);
    const added = (id: string): Obj[] => [text(id, `added ${id}`)];
    const hook = (id: string, answers: unknown[][], view: string, policy: string): Obj => ({
      id: `dev.test.${id}`,
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [script, join(dir, `${id}.log`), JSON.stringify(answers)],
        lifecycle: 'persistent',
      },
      subscriptions: [
        {
          events: ['context.compact.after'],
          mode: 'intercept',
          timeoutMs: 5000,
          failurePolicy: policy,
          content: { default: view },
        },
      ],
    });
    const registration = {
      protocolVersion: 'draft',
      hooks: [
        // s1: a appends, b appends (chained); s2: a's response is half invalid (fail-open: nothing of it), b appends;
        // s3: m (metadata) edits: refused; s4: c (fail-closed) answers invalidly: denied, no marker.
        hook(
          'a',
          [
            [modify('summary', 'merge', added('a1'))],
            [modify('summary', 'merge', added('a2')), modify('summary', 'merge', 'x')],
            [],
            [],
          ],
          'body',
          'fail-open',
        ),
        hook(
          'b',
          [[modify('summary', 'merge', added('b1'))], [modify('summary', 'merge', added('b2'))], [], []],
          'body',
          'fail-open',
        ),
        hook('m', [[], [], [modify('summary', 'replace', added('m3'))], []], 'metadata', 'fail-open'),
        hook('c', [[], [], [], [modify('summary', 'merge', 'not a list')]], 'body', 'fail-closed'),
        // d is called in s1-s3; in s4 the chain stops before it, so it observes the settled event (omit view).
        hook('d', [[], [], []], 'omit', 'fail-open'),
        {
          id: 'dev.test.obs',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [script, join(dir, 'obs.log'), '[]'],
            lifecycle: 'persistent',
          },
          subscriptions: [{ events: ['context.compact.after'], mode: 'observe', content: { default: 'omit' } }],
        },
      ],
    };
    const steps = ['s1', 's2', 's3', 's4'].map((id) => {
      const s = sampleStep('context.compact.after', id);
      return { ...s.body, marker: join(dir, `${id}.json`) };
    });
    const config = join(dir, 'config.json');
    const report = join(dir, 'report.json');
    writeFileSync(
      config,
      JSON.stringify({
        adapterContract: 2,
        registration,
        sentinel: { tool: 'ahp_sentinel' },
        scenario: { session, steps },
        report,
      }),
    );
    const run = await runHarness(config);
    expect(run.code, run.stderr).toBe(0);
    const rep = JSON.parse(readFileSync(report, 'utf8')) as Obj;
    expect(rep.adapterContract).toBe(2);
    expect((rep.steps as Obj[]).map((s) => [s.id, s.outcome])).toEqual([
      ['s1', 'delivered'],
      ['s2', 'delivered'],
      ['s3', 'delivered'],
      ['s4', 'denied-by-failure-policy'],
    ]);
    const marker = (id: string): unknown =>
      (JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as Obj).effective;
    expect(marker('s1')).toEqual([...parts('s1'), ...added('a1'), ...added('b1')]);
    expect(marker('s2')).toEqual([...parts('s2'), ...added('b2')]);
    expect(marker('s3')).toEqual(parts('s3'));
    expect(existsSync(join(dir, 's4.json'))).toBe(false);

    const frames = (id: string): Obj[] =>
      readFileSync(join(dir, `${id}.log`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Obj);
    // b was sent the summary as a had edited it.
    const bFirst = ((frames('b')[0]!.params as Obj).event as Obj).summary;
    expect(bFirst).toEqual([...parts('s1'), ...added('a1')]);
    // After c's fail-closed stop in s4, d (not yet called) gets one hooks/observe in its own view;
    // the interceptors already called get no second copy.
    const notes = (id: string): Obj[] => frames(id).filter((f) => !('id' in f));
    expect(frames('d').filter((f) => f.method === 'hooks/intercept')).toHaveLength(3);
    const dSeen = notes('d');
    expect(dSeen.map((f) => f.method)).toEqual(['hooks/observe']);
    const dSummary = ((dSeen[0]!.params as Obj).event as Obj).summary as Obj[];
    expect(dSummary.map((p) => [p.id, p.selection])).toEqual(parts('s4').map((p) => [p.id, 'omit']));
    expect(readFileSync(join(dir, 'd.log'), 'utf8')).not.toContain(HIDDEN);
    for (const id of ['a', 'b', 'm', 'c']) expect(notes(id), id).toEqual([]);
    // m (metadata) and the observer (omit) never see the text.
    expect(readFileSync(join(dir, 'm.log'), 'utf8')).not.toContain(HIDDEN);
    const observed = frames('obs');
    expect(observed.length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(join(dir, 'obs.log'), 'utf8')).not.toContain(HIDDEN);
    // The observer is told the settled summary (ids of the chained parts).
    const s1Seen = ((observed[0]!.params as Obj).event as Obj).summary as Obj[];
    expect(s1Seen.map((p) => [p.id, p.selection])).toEqual([
      ['s1.p1', 'omit'],
      ['s1.p2', 'omit'],
      ['a1', 'omit'],
      ['b1', 'omit'],
    ]);
  });
});
