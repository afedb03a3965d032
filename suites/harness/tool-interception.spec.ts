// Tool Interception, harness side (tool-interception profile H1-H7): one intercept per
// call before the tool runs, identity, serial order, deny, edits through the sentinel,
// failure policy per failure class, deadlines.
import { applyModifyResponse, EditRejected, permissiveEditContext } from '../../src/protocol/edit.js';
import { deepEqualJson } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import type { Answer } from '../../drivers/scripted-backend/script.js';
import { check, test, type Judge } from '../support/fixtures.js';
import { intercept, observe, SENTINEL_TOOL, tool, type HarnessRun, type HarnessSession, type HookPlan, type Subscription } from '../support/harness-session.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import { actToleranceMs, DEADLINE_PROBE_MS, lateReplyDelayMs, noReplyHoldMs, timeoutClassDelayMs } from '../../src/timing.js';
import { appliesTo, JUDGED_SNAPSHOT, SNAPSHOTS, type SnapshotCommit } from '../../src/checks/registration-corpus.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import {
  between, eventOf, frames, INTERCEPT, isObj, messageOf, OBSERVE, observationOf, paramsOf, Phases, ran, replyOf, reportedAs, reportedOutcome, requestOf, requireUsable, stepOf, summary, toolInputOf,
} from '../support/harness-judge.js';

type Obj = Record<string, unknown>;
const DENY = { type: 'deny', reason: 'the scripted backend denies this call' };
/** Backend text that must never reach a synthetic denial reason. */
const GARBAGE = 'SCRIPTED-BACKEND-INTERNAL-DETAIL';

const intercepts = (run: HarnessRun, hook: string, step?: string) =>
  frames(run, { hook, method: INTERCEPT }).filter((f) => step === undefined || stepOf(f) === step);

/** What our applyModifyResponse makes of the input, or undefined if it rejects the effects. */
function expectedInput(input: Obj, effects: unknown[]): Obj | undefined {
  try {
    return applyModifyResponse({ input }, effects, permissiveEditContext({ event: 'tool.before', current: { input } })).input as Obj;
  } catch (e) {
    if (e instanceof EditRejected) return undefined;
    throw e;
  }
}

/** Does the harness advertise modify of the input with this operation? (capability gating) */
function advertisesModify(run: HarnessRun, hook: string, operation: 'replace' | 'merge'): boolean {
  const caps = paramsOf(intercepts(run, hook)[0] ?? ({} as never))?.capabilities;
  if (!isObj(caps) || !Array.isArray(caps.effects) || !caps.effects.includes('modify')) return false;
  const input = isObj(caps.modify) ? caps.modify.input : undefined;
  return !isObj(input) || input[operation] !== false;
}

/** What the harness advertises, read from the shared typical session. */
async function probeCapabilities(harness: HarnessSession, judge: Judge): Promise<HarnessRun> {
  const run = await harness.sharedRun(typicalSession());
  requireUsable(judge, run, TYPICAL_TOOL_STEPS);
  return run;
}

test.describe('tool-interception (harness)', () => {
  test(...check('ti.intercept-request', async ({ harness, judge, spec }) => {
    const run = await harness.run({
      label: 'one call; the backend looks for the marker while deciding',
      hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ delayMs: 300, probeFile: '{marker:t1}', effects: [] }] } }],
      steps: [tool('t1', { path: 'notes.txt', mode: '0600' })],
    });
    requireUsable(judge, run, ['t1']);
    const got = intercepts(run, 'a');
    if (got.length === 0) judge.fail('no hooks/intercept reached the interceptor for the tool call', { received: summary(run), expected: spec.expectation });
    for (const f of got) {
      const findings = validate('intercept-request', f.message, { wireOnly: true });
      if (!isWireValid(findings)) {
        judge.fail(`the hooks/intercept is not valid: ${findings.filter((x) => x.layer === 'wire').slice(0, 5).map((x) => `${x.path || '/'} ${x.message}`).join('; ')}`, { received: f.text, expected: spec.expectation });
      }
      const e = eventOf(f)!;
      const t = e.tool as Obj;
      if (e.type !== 'tool.before') judge.fail(`the intercept carries event type ${JSON.stringify(e.type)}`, { received: f.text, expected: 'tool.before' });
      if (t.name !== SENTINEL_TOOL) judge.fail(`tool.name is ${JSON.stringify(t.name)}, not the called tool ${SENTINEL_TOOL}`, { received: f.text });
      if (!deepEqualJson(t.input, run.inputs.t1)) judge.fail('tool.input is not the final input of the call', { received: t.input, expected: JSON.stringify(run.inputs.t1) });
    }
    const probe = run.records.find((r) => r.kind === 'probe');
    if (probe?.exists) judge.fail('the tool had already run while the backend was still deciding (its marker existed before the reply)', { received: summary(run), expected: spec.expectation });
    if (!ran(run, 't1')) judge.fail(`the call did not run after a no-effect answer although the host allows it; ${reportedAs(run, 't1')}`, { received: summary(run) });
  }));

  test(...check('ti.request-id', async ({ harness, judge, spec }) => {
    const run = await harness.sharedRun(typicalSession());
    requireUsable(judge, run, TYPICAL_TOOL_STEPS);
    const ids = new Map<string, unknown>();
    for (const f of intercepts(run, 'a')) {
      const m = messageOf(f)!;
      const eventId = eventOf(f)?.id;
      if (m.id !== eventId) judge.fail(`the JSON-RPC id ${JSON.stringify(m.id)} is not the event id ${JSON.stringify(eventId)}`, { received: f.text, expected: spec.expectation });
      const step = stepOf(f) ?? '?';
      if (!ids.has(step)) ids.set(step, eventId);
    }
    if (ids.size < 2) judge.fail('fewer than two intercepts arrived for two calls', { received: summary(run) });
    if (ids.get('t1') === ids.get('t2')) judge.fail(`two different calls share the event id ${JSON.stringify(ids.get('t1'))}`, { received: summary(run), expected: spec.expectation });
  }));

  test(...check('ti.capabilities-deny', async ({ harness, judge, spec }) => {
    // Every tool.before intercept, in every kind of scenario the other checks use: the
    // typical session, and calls the host allows, asks about (refused) or denies, calls at
    // once, a second interceptor after an edit, after a deny and after a failure.
    const typical = await probeCapabilities(harness, judge);
    const merge = { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } };
    const varied = await harness.run({
      label: 'host allow / ask-refuse / deny, parallel calls, an edit, a deny and a failure before the next call',
      hooks: [
        { name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })], script: { byStep: { edited: [{ effects: [merge] }], denied: [{ effects: [DENY] }], failed: [{ raw: 'not json' }] } } },
        { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-closed' })] },
      ],
      steps: [
        tool('allowed', { n: 1 }), tool('asks', { n: 2 }, 'ask-refuse'), tool('blocked', { n: 3 }, 'deny'),
        { kind: 'parallel', id: 'both', steps: [tool('p1', { n: 4 }), tool('p2', { n: 5 })] },
        tool('edited', { n: 6 }), tool('denied', { n: 7 }), tool('failed', { n: 8 }), tool('last', { n: 9 }, 'ask-refuse'),
      ],
    });
    requireUsable(judge, varied, ['allowed', 'asks', 'blocked', 'p1', 'p2', 'edited', 'denied', 'failed', 'last']);
    const HOSTS: Record<string, string> = { asks: 'ask-refuse', blocked: 'deny', last: 'ask-refuse' };
    let seen = 0;
    const lacking: string[] = [];
    for (const run of [typical, varied]) {
      for (const f of frames(run, { method: INTERCEPT })) {
        seen++;
        const effects = (paramsOf(f)?.capabilities as Obj | undefined)?.effects;
        if (!Array.isArray(effects) || !effects.includes('deny')) {
          const step = stepOf(f) ?? '?';
          lacking.push(`run "${run.label}", hook ${f.hook}, call "${step}" (host ${HOSTS[step] ?? 'allow'}): params.capabilities.effects is ${JSON.stringify(effects)}`);
          judge.evidence({ received: { [`${f.hook}/${stepOf(f) ?? '?'}`]: f.text } });
        }
      }
    }
    if (seen === 0) judge.fail('no hooks/intercept arrived', { received: summary(typical) });
    if (lacking.length) judge.fail(`${lacking.length} of ${seen} tool.before intercepts do not advertise deny:\n${lacking.join('\n')}`, { expected: spec.expectation });
    judge.note(`${seen} tool.before intercepts in 2 runs, each advertising deny`);
  }));

  test(...check('ti.serial-order', async ({ harness, judge, spec }) => {
    const slow: Answer = { delayMs: 150, effects: [] };
    const run = await harness.run({
      label: 'interceptors a, b, c answer after 150 ms each',
      hooks: ['a', 'b', 'c'].map((name) => ({ name, subscriptions: [intercept(['tool.before'])], script: { intercept: [slow] } })),
      steps: [tool('t1', { path: 'notes.txt' })],
    });
    requireUsable(judge, run, ['t1']);
    const order = run.records.filter((r) => (r.kind === 'frame' && r.method === INTERCEPT) || (r.kind === 'reply' && r.method !== OBSERVE));
    const at = (hook: string, kind: 'frame' | 'reply'): number => order.findIndex((r) => r.hook === hook && r.kind === kind);
    for (const h of ['a', 'b', 'c']) if (at(h, 'frame') < 0) judge.fail(`interceptor ${h} received no hooks/intercept`, { received: summary(run), expected: spec.expectation });
    const seq = order.map((r) => `${r.kind === 'frame' ? 'request to' : 'reply from'} ${r.hook}`);
    if (!(at('a', 'frame') < at('b', 'frame') && at('b', 'frame') < at('c', 'frame'))) judge.fail('the interceptors were not called in registration order a, b, c', { received: seq, expected: spec.expectation });
    if (at('b', 'frame') < at('a', 'reply') || at('c', 'frame') < at('b', 'reply')) judge.fail('an interceptor was called before the previous one answered (concurrent evaluation)', { received: seq, expected: spec.expectation });
  }));

  test(...check('ti.deny-stops', async ({ harness, judge, spec }) => {
    for (const policy of ['fail-open', 'fail-closed'] as const) {
      const run = await harness.run({
        label: `b denies (${policy})`,
        hooks: [
          { name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })] },
          { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })], script: { intercept: [{ effects: [DENY] }] } },
          { name: 'c', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })] },
        ],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      if (intercepts(run, 'b').length === 0) judge.fail(`${policy}: interceptor b was never called`, { received: summary(run) });
      if (ran(run, 't1')) judge.fail(`${policy}: the tool ran although interceptor b denied it`, { received: summary(run), expected: spec.expectation });
      if (intercepts(run, 'c').length > 0) judge.fail(`${policy}: interceptor c was called after b denied`, { received: summary(run), expected: spec.expectation });
      if (frames(run, { hook: 'c', method: OBSERVE }).length > 0) judge.note(`${policy}: c received a best-effort hooks/observe of the settled event (the newest draft allows this)`);
      const outcome = reportedOutcome(run, 't1');
      if (outcome && outcome !== 'denied-by-backend') judge.note(`${policy}: the report calls the denied call "${outcome}"`);
    }
  }));

  test(...check('ti.no-retry-after-decision', async ({ harness, judge, spec }) => {
    const run = await harness.run({
      label: 'one deny, one no-effect answer',
      hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'])], script: { byStep: { denied: [{ effects: [DENY] }], allowed: [{ effects: [] }] } } }],
      steps: [tool('denied', { n: 1 }), tool('allowed', { n: 2 })],
    });
    requireUsable(judge, run, ['denied', 'allowed']);
    for (const step of ['denied', 'allowed']) {
      const n = intercepts(run, 'a', step).length;
      if (n === 0) judge.fail(`the "${step}" call sent no hooks/intercept`, { received: summary(run) });
      if (n > 1) judge.fail(`the "${step}" call was sent ${n} times although the first answer was a ${step === 'denied' ? 'deny' : 'successful empty effect list'}`, { received: summary(run), expected: spec.expectation });
    }
  }));

  test(...check('ti.modify-input', async ({ harness, judge, spec }) => {
    const probe = await probeCapabilities(harness, judge);
    const canMerge = advertisesModify(probe, 'a', 'merge');
    const canReplace = advertisesModify(probe, 'a', 'replace');
    if (!canMerge && !canReplace) judge.notApplicable('the harness does not advertise modify of the tool input');
    const merge = { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644', keep: null, nested: { replaced: true } } };
    const replace = { type: 'modify', target: 'input', operation: 'replace', value: { path: 'other.txt', probe: 'replaced' } };
    const inputs: Record<string, Obj> = { merged: { path: 'notes.txt', mode: '0600', keep: 'x', nested: { old: 1 } }, replaced: { path: 'a.txt', n: 2 } };
    const steps = [...(canMerge ? [tool('merged', inputs.merged)] : []), ...(canReplace ? [tool('replaced', inputs.replaced)] : [])];
    const run = await harness.run({
      label: 'merge and replace of the tool input',
      hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'])], script: { byStep: { merged: [{ effects: [merge] }], replaced: [{ effects: [replace] }] } } }],
      steps,
    });
    requireUsable(judge, run, steps.map((s) => s.id));
    const effectsOf: Record<string, unknown[]> = { merged: [merge], replaced: [replace] };
    for (const s of steps) {
      const expected = expectedInput(run.inputs[s.id]!, effectsOf[s.id]!);
      const m = run.markers[s.id];
      if (!m) judge.fail(`the "${s.id}" call did not run after a valid modify; ${reportedAs(run, s.id)}`, { sent: { effects: effectsOf[s.id] }, received: summary(run), expected: JSON.stringify(expected) });
      else if (!deepEqualJson(m.executedInput, expected)) {
        judge.fail(`the "${s.id}" call ran with ${JSON.stringify(m.executedInput)}`, { sent: { input: run.inputs[s.id], effects: effectsOf[s.id] }, received: m.executedInput, expected: `${JSON.stringify(expected)} (${spec.expectation})` });
      }
    }
    if (canMerge) {
      // Serial chaining: b edits the value a produced.
      const ea = [{ type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644', by: 'a' } }];
      const eb = [{ type: 'modify', target: 'input', operation: 'merge', value: { by: 'b', extra: 1 } }];
      const chain = await harness.run({
        label: 'a and b both merge into the input',
        hooks: [
          { name: 'a', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ effects: ea }] } },
          { name: 'b', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ effects: eb }] } },
        ],
        steps: [tool('chained', { path: 'notes.txt', mode: '0600' })],
      });
      requireUsable(judge, chain, ['chained']);
      // What b was asked about: the input as a edited it (seed edit check 7), judged from b's own request.
      const afterA = expectedInput(chain.inputs.chained!, ea);
      const toB = intercepts(chain, 'b', 'chained')[0];
      if (!toB) judge.fail(`interceptor b received no hooks/intercept for the call (${reportedAs(chain, 'chained')})`, { received: summary(chain), expected: spec.expectation });
      if (!deepEqualJson(toolInputOf(toB!) ?? null, afterA ?? null)) {
        judge.fail(`interceptor b was sent tool.input ${JSON.stringify(toolInputOf(toB!))}, not the input as edited by a: edits must chain serially over the effective value`, { sent: { a: ea }, received: toB!.text, expected: JSON.stringify(afterA) });
      }
      const expected = expectedInput(afterA!, eb);
      const m = chain.markers.chained;
      if (!m || !deepEqualJson(m.executedInput, expected)) {
        judge.fail(`edits of two interceptors did not chain: the call ${m ? `ran with ${JSON.stringify(m.executedInput)}` : 'did not run'}`, { sent: { a: ea, b: eb }, received: summary(chain), expected: JSON.stringify(expected) });
      }
    }
  }));

  test(...check('ti.modify-atomic', async ({ harness, judge, spec }) => {
    const probe = await probeCapabilities(harness, judge);
    if (!advertisesModify(probe, 'a', 'merge')) judge.notApplicable('the harness does not advertise modify (merge) of the tool input');
    const good = { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } };
    const lists: Record<string, unknown[]> = {
      'bad-value': [good, { type: 'modify', target: 'input', operation: 'merge', value: 'not an object' }],
      'bad-target': [good, { type: 'modify', target: 'output', operation: 'replace', value: [] }],
    };
    const run = await harness.run({
      label: 'a valid merge followed by an invalid modify, fail-open',
      hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })], script: { byStep: Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, [{ effects: v }]])) } }],
      steps: Object.keys(lists).map((k) => tool(k, { path: `${k}.txt`, mode: '0600' })),
    });
    requireUsable(judge, run, Object.keys(lists));
    for (const [step, effects] of Object.entries(lists)) {
      const m = run.markers[step];
      if (!m) judge.fail(`the "${step}" call did not run (${reportedAs(run, step)}): a rejected response under fail-open must leave the call to run unchanged`, { sent: { effects }, received: summary(run), expected: spec.expectation });
      if (!deepEqualJson(m!.executedInput, run.inputs[step])) {
        judge.fail(`the "${step}" call ran with ${JSON.stringify(m!.executedInput)}: part of a rejected response was applied`, { sent: { input: run.inputs[step], effects }, received: m!.executedInput, expected: `the original input ${JSON.stringify(run.inputs[step])}` });
      }
    }
  }));

  test(...check('ti.failure-policy', async ({ harness, judge, spec, target }) => {
    // Each failure class, as an answer built around the effects a harness that wrongly
    // accepted it would apply: a deny under fail-open, nothing under fail-closed, so an
    // accepted failure always shows in the outcome. A class is credited only when its
    // intercept provably reached the scripted backend, and after each class a healthy call
    // to the same hook must be delivered and honoured (a deny under fail-open, no effect
    // under fail-closed). Every failing phase is reported, each with its evidence.
    await harness.prepare();
    interface FailureClass {
      answer: (effects: unknown[], deadline: number) => Answer;
      /** Snapshots in which the answer is an operational failure (unset: all we know). */
      snapshots?: readonly SnapshotCommit[];
    }
    const all: Record<string, FailureClass> = {
      'malformed-json': { answer: () => ({ raw: `{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"draft","effects":[] ${GARBAGE}` }) },
      'jsonrpc-error': { answer: () => ({ error: { code: -32003, message: `backend unavailable: ${GARBAGE}` } }) },
      // 1d98c19 lets a result leave out effects (no effect); 2b5da580 requires them.
      'no-effects': { answer: () => ({ omitEffects: true, resultExtra: { note: GARBAGE } }), snapshots: [SNAPSHOTS.draft] },
      'no-result-version': { answer: (effects) => ({ effects, resultVersion: null }) },
      'wrong-result-version': { answer: (effects) => ({ effects, resultVersion: '1999-01-01' }) },
      'mismatched-id': { answer: (effects) => ({ effects, id: 'wrong' }) },
      'wrong-jsonrpc': { answer: (effects) => ({ effects, jsonrpc: '1.0' }) },
      'deny-empty-reason': { answer: () => ({ effects: [{ type: 'deny', reason: '' }] }) },
      // The reply comes three times the deadline late: a harness that waited would apply it.
      timeout: { answer: (effects, deadline) => ({ effects, delayMs: timeoutClassDelayMs(deadline) }) },
      ...(target.transport === 'http' ? {
        'http-500': { answer: (effects: unknown[]) => ({ effects, http: { status: 500 } }) },
        'http-202': { answer: (effects: unknown[]) => ({ effects, http: { status: 202 } }) },
        'http-404': { answer: (effects: unknown[]) => ({ effects, http: { status: 404 } }) },
        'http-text-plain': { answer: (effects: unknown[]) => ({ effects, http: { contentType: 'text/plain' } }) },
      } : target.lifecycle === 'per_event' ? {
        'exit-status-3': { answer: (effects: unknown[]) => ({ effects, exit: 3 }) },
      } : {}),
    };
    const classes = Object.fromEntries(Object.entries(all).filter(([, c]) => appliesTo(c.snapshots)));
    // The timeout first: what a harness does right after a timeout is where it goes wrong.
    const names = ['timeout', ...Object.keys(classes).filter((n) => n !== 'timeout')];
    const healthyOf = (n: string): string => `after-${n}`;
    const runPolicy = async (policy: 'fail-open' | 'fail-closed'): Promise<HarnessRun> => {
      const effects = policy === 'fail-open' ? [DENY] : [];
      const deadline = harness.registeredTimeoutMs(undefined);
      const byStep: Record<string, Answer[]> = {};
      for (const n of names) {
        byStep[n] = [classes[n]!.answer(effects, deadline)];
        byStep[healthyOf(n)] = [{ effects }];
      }
      const hooks: HookPlan[] = [
        { name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })], script: { byStep } },
        { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })] },
      ];
      // Each class is followed by the next class, then by its own healthy call: the event right
      // after a failure is itself a failure class whose delivery must be proven, and every
      // class still gets a healthy call on the same hook after it.
      const steps = names.flatMap((n, i) => [tool(n, { path: `${n}.txt` }), ...(i > 0 ? [tool(healthyOf(names[i - 1]!), { path: `${names[i - 1]}.txt` })] : [])]);
      steps.push(tool(healthyOf(names[names.length - 1]!), { path: `${names[names.length - 1]}.txt` }));
      const run = await harness.run({ label: `${names.length} failure classes, each followed by a healthy call, ${policy}`, hooks, steps });
      requireUsable(judge, run, steps.map((x) => x.id));
      return run;
    };
    const phases = new Phases();
    const delivered = (run: HarnessRun, step: string): boolean => intercepts(run, 'a', step).length > 0;
    const framesOf = (run: HarnessRun, step: string): string[] => frames(run).filter((f) => stepOf(f) === step).map((f) => `${f.hook}: ${f.text ?? ''}`);
    const judgePolicy = (run: HarnessRun, policy: 'fail-open' | 'fail-closed'): void => {
      for (const n of names) {
        const phase = `${policy} ${n}`;
        const evidence = { frames: framesOf(run, n), outcome: reportedAs(run, n) };
        if (!delivered(run, n)) {
          phases.fail(phase, `the call's hooks/intercept never reached interceptor a (no frame for it), so its outcome proves nothing about this failure class; ${reportedAs(run, n)}`, evidence);
        } else if (policy === 'fail-open' && (!ran(run, n) || intercepts(run, 'b', n).length === 0)) {
          phases.fail(phase, `fail-open did not continue: ${ran(run, n) ? 'b was not called' : `the call did not run (${reportedAs(run, n)})`}`, evidence);
        } else if (policy === 'fail-closed' && (ran(run, n) || intercepts(run, 'b', n).length > 0)) {
          phases.fail(phase, `fail-closed did not deny: ${ran(run, n) ? `the call ran (${reportedAs(run, n)})` : 'b was called'}`, evidence);
        }
        const h = healthyOf(n);
        const hp = `${policy} healthy call after ${n}`;
        const hEvidence = { frames: framesOf(run, h), outcome: reportedAs(run, h) };
        if (!delivered(run, h)) {
          phases.fail(hp, `a healthy call after the ${n} failure never reached interceptor a (no frame for it): the harness did not recover; ${reportedAs(run, h)}`, hEvidence);
        } else if (policy === 'fail-open' && ran(run, h)) {
          // (Whether b is still called after the deny is ti.deny-stops's to judge.)
          phases.fail(hp, `a's deny for a healthy call after the ${n} failure was not honoured: the call ran (${reportedAs(run, h)})`, hEvidence);
        } else if (policy === 'fail-closed' && !ran(run, h)) {
          phases.fail(hp, `a healthy call after the ${n} failure, answered with no effect, did not run (${reportedAs(run, h)}): the harness did not recover`, hEvidence);
        } else if (policy === 'fail-closed' && intercepts(run, 'b', h).length === 0) {
          phases.fail(hp, `after a's no-effect answer to a healthy call after the ${n} failure, b was not called`, hEvidence);
        }
      }
    };
    const open = await runPolicy('fail-open');
    judgePolicy(open, 'fail-open');
    const closed = await runPolicy('fail-closed');
    judgePolicy(closed, 'fail-closed');
    phases.judge(judge, spec.expectation, { 'fail-open': summary(open), 'fail-closed': summary(closed) });
    const leaky = (closed.report?.steps ?? []).filter((s) => s.reason?.includes(GARBAGE));
    if (leaky.length) judge.warn(`the denial reason repeats backend text for ${leaky.map((s) => s.id).join(', ')}; a synthetic denial should give a generic reason`, { received: leaky });
    const mislabelled = names.filter((n) => reportedOutcome(closed, n) && reportedOutcome(closed, n) !== 'denied-by-failure-policy');
    if (mislabelled.length) judge.note(`the report does not call these fail-closed denials denied-by-failure-policy: ${mislabelled.join(', ')}`);
    const skipped = Object.keys(all).filter((n) => !(n in classes));
    judge.note(`failure classes (snapshot ${JUDGED_SNAPSHOT}): ${names.join(', ')}; each delivered, then a healthy call delivered and honoured${skipped.length ? `; not failures in ${JUDGED_SNAPSHOT}: ${skipped.join(', ')}` : ''}`);
  }));

  test(...check('ti.deadline', async ({ harness, judge, spec }) => {
    // Deadlines judged against the harness's own latencies in the same run: after a request
    // that gets no reply, the harness's next observable act must come within the deadline
    // plus a tolerance derived from its normal turnarounds (reply -> next act).
    //   normal       every interceptor answers at once (turnaround samples)
    //   late         a1 denies at 1.5 x its deadline (fail-open): the tool has run by then
    //   hang         a2 never replies (fail-open): b's request is the next act
    //   hang-closed  c never replies (fail-closed): the tool.after observation (or the next
    //                call's first request) is the next act, and the call does not run
    //   after        a normal call
    await harness.prepare();
    const deadline = harness.registeredTimeoutMs(DEADLINE_PROBE_MS);
    const lateMs = lateReplyDelayMs(deadline);
    const hang: Answer = { delayMs: noReplyHoldMs(deadline), none: true };
    const open = (extra: Partial<Subscription> = {}): Subscription => intercept(['tool.before'], { failurePolicy: 'fail-open', timeoutMs: DEADLINE_PROBE_MS, ...extra });
    const chainOrder = ['a1', 'a2', 'b', 'c'];
    const run = await harness.run({
      label: `deadline ${deadline} ms: a deny ${lateMs} ms late (fail-open), no reply (fail-open, fail-closed)`,
      hooks: [
        { name: 'a1', subscriptions: [open()], script: { byStep: { late: [{ delayMs: lateMs, effects: [DENY] }] } } },
        { name: 'a2', subscriptions: [open()], script: { byStep: { hang: [hang] } } },
        { name: 'b', subscriptions: [open({ timeoutMs: undefined })] },
        { name: 'c', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-closed', timeoutMs: DEADLINE_PROBE_MS })], script: { byStep: { 'hang-closed': [hang] } } },
        { name: 'obs', subscriptions: [observe(['tool.after'])] },
      ],
      steps: ['normal', 'late', 'hang', 'hang-closed', 'after'].map((id) => tool(id, { path: `${id}.txt` })),
    });
    requireUsable(judge, run, ['normal', 'late', 'hang', 'hang-closed', 'after']);
    const delayed: Record<string, string> = { late: 'a1', hang: 'a2', 'hang-closed': 'c' };
    // Normal turnarounds: a prompt reply -> the harness's next request (or tool.after).
    const samples: number[] = [];
    for (const step of ['normal', 'late', 'hang', 'hang-closed', 'after']) {
      for (let i = 0; i < chainOrder.length; i++) {
        const from = chainOrder[i]!;
        if (delayed[step] === from) continue;
        const next = i + 1 < chainOrder.length ? requestOf(run, chainOrder[i + 1]!, step) : observationOf(run, 'obs', 'tool.after', step);
        const d = between(replyOf(run, from, step), next);
        if (d !== undefined && d >= 0) samples.push(d);
      }
    }
    if (samples.length === 0) judge.fail('no prompt reply was followed by another request or observation, so the harness\'s normal turnaround could not be measured', { received: summary(run), expected: spec.expectation });
    const tolerance = actToleranceMs(samples);
    const limit = deadline + tolerance;
    const how = `the deadline is ${deadline} ms; tolerance ${tolerance} ms (src/timing.ts: 250 ms + 2 x the slowest of ${samples.length} normal turnarounds measured in this run, ${Math.round(Math.max(...samples))} ms)`;
    judge.note(`deadline ${deadline} ms${harness.measuredStartupMs !== undefined ? ` (${DEADLINE_PROBE_MS} ms + 2 x the scripted backend's measured start-up of ${harness.measuredStartupMs} ms)` : ''}; ${how}`);
    const phases = new Phases();
    const timed = (phase: string, hook: string, step: string, nextName: string, next: WireRecord | undefined): void => {
      const asked = requestOf(run, hook, step);
      if (!asked) return phases.fail(phase, `interceptor ${hook} never received the "${step}" call (${reportedAs(run, step)})`, summary(run));
      if (!next) return phases.fail(phase, `after ${hook} gave no reply within the deadline, ${nextName} never came (${reportedAs(run, step)})`, summary(run));
      const took = next.t - asked.t;
      if (took > limit) {
        phases.fail(phase, `${nextName} came ${Math.round(took)} ms after ${hook} received its request and gave no reply within the deadline; ${how}: the harness waited past its deadline`, { request: asked.text, next: next.text });
      }
    };
    // (a) no reply, fail-open: b is the next act.
    timed('hang (fail-open)', 'a2', 'hang', 'the request to the next interceptor b', requestOf(run, 'b', 'hang'));
    // (a) no reply, fail-closed: tool.after of the denied call, or the next call's first request.
    const closedNext = [observationOf(run, 'obs', 'tool.after', 'hang-closed'), requestOf(run, 'a1', 'after')].filter((r): r is WireRecord => r !== undefined).sort((x, y) => x.t - y.t)[0];
    timed('hang (fail-closed)', 'c', 'hang-closed', 'the harness\'s next event (tool.after, or the next call)', closedNext);
    // (Whether the fail-closed call was denied is ti.failure-policy's to judge; here: when.)
    // (b) a deny 1.5 x the deadline late, fail-open: the harness has moved on and run the tool.
    timed('late deny (fail-open)', 'a1', 'late', 'the request to the next interceptor a2', requestOf(run, 'a2', 'late'));
    const m = run.markers.late;
    const lateReply = replyOf(run, 'a1', 'late');
    if (!m) {
      const outcome = reportedOutcome(run, 'late');
      phases.fail('late deny (fail-open)', outcome === 'denied-by-backend'
        ? `the call did not run and ${reportedAs(run, 'late')}: the deny that came ${lateMs} ms after the request (past the ${deadline} ms deadline) was applied`
        : `the call did not run after the deadline passed under fail-open (${reportedAs(run, 'late')})`, summary(run));
    } else {
      if (!deepEqualJson(m.executedInput, run.inputs.late)) phases.fail('late deny (fail-open)', `the call ran with a changed input ${JSON.stringify(m.executedInput)}`, { expected: run.inputs.late });
      const ranAt = run.markerTimes.late;
      if (lateReply && ranAt !== undefined && ranAt > lateReply.t) {
        phases.fail('late deny (fail-open)', `the call ran only ${Math.round(ranAt - lateReply.t)} ms after the late reply was sent: the harness waited past its ${deadline} ms deadline`, summary(run));
      }
    }
    phases.judge(judge, spec.expectation, summary(run));
  }));
});
