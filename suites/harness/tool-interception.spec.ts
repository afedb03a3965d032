// Tool Interception, harness side (tool-interception profile H1-H7): one intercept per
// call before the tool runs, identity, serial order, deny, edits through the sentinel,
// failure policy per failure class, deadlines.
import { applyModifyResponse, EditRejected, permissiveEditContext } from '../../src/protocol/edit.js';
import { deepEqualJson } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import type { Answer } from '../../drivers/scripted-backend/script.js';
import { check, test, type Judge } from '../support/check.js';
import {
  intercept,
  observe,
  SENTINEL_TOOL,
  together,
  tool,
  type HarnessRun,
  type RunPlan,
  type HarnessSession,
  type HookPlan,
  type Subscription,
} from '../support/harness-session.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import {
  actToleranceMs,
  DEADLINE_PROBE_MS,
  lateReplyDelayMs,
  noReplyHoldMs,
  timeoutClassDelayMs,
} from '../../src/timing.js';
import { appliesTo } from '../../src/checks/registration-corpus.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import {
  between,
  eventOf,
  frames,
  INTERCEPT,
  intercepts,
  messageOf,
  OBSERVE,
  observationOf,
  paramsOf,
  Phases,
  ran,
  replyOf,
  reportedAs,
  reportedOutcome,
  requestOf,
  requireUsable,
  stepOf,
  summary,
  toolInputOf,
} from '../support/harness-observations.js';

type Obj = Record<string, unknown>;
const DENY = { type: 'deny', reason: 'the scripted backend denies this call' };
/** Backend text that must never reach a synthetic denial reason. */
const GARBAGE = 'SCRIPTED-BACKEND-INTERNAL-DETAIL';

test.describe('tool-interception (harness)', () => {
  test(
    ...check('ti.intercept-request', async ({ harness, judge, spec, snapshot }) => {
      const run = await harness.run({
        label: 'one call; the backend looks for the marker while deciding',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'])],
            script: { intercept: [{ delayMs: 300, probeFile: '{marker:t1}', effects: [] }] },
          },
        ],
        steps: [tool('t1', { path: 'notes.txt', mode: '0600' })],
      });
      requireUsable(judge, run, ['t1']);
      const got = intercepts(run, 'a');
      if (got.length === 0)
        judge.fail('no hooks/intercept reached the interceptor for the tool call', {
          received: summary(run),
          expected: spec.expectation,
        });
      for (const f of got) {
        const findings = validate('intercept-request', f.message, { wireOnly: true, snapshot });
        if (!isWireValid(findings)) {
          judge.fail(
            `the hooks/intercept is not valid: ${findings
              .filter((x) => x.layer === 'wire')
              .slice(0, 5)
              .map((x) => `${x.path || '/'} ${x.message}`)
              .join('; ')}`,
            { received: f.text, expected: spec.expectation },
          );
        }
        const e = eventOf(f)!;
        const t = e.tool as Obj;
        if (e.type !== 'tool.before')
          judge.fail(`the intercept carries event type ${JSON.stringify(e.type)}`, {
            received: f.text,
            expected: 'tool.before',
          });
        if (t.name !== SENTINEL_TOOL)
          judge.fail(`tool.name is ${JSON.stringify(t.name)}, not the called tool ${SENTINEL_TOOL}`, {
            received: f.text,
          });
        if (!deepEqualJson(t.input, run.inputs.t1))
          judge.fail('tool.input is not the final input of the call', {
            received: t.input,
            expected: JSON.stringify(run.inputs.t1),
          });
      }
      const probe = run.records.find((r) => r.kind === 'probe');
      if (probe?.exists)
        judge.fail(
          'the tool had already run while the backend was still deciding (its marker existed before the reply)',
          { received: summary(run), expected: spec.expectation },
        );
      if (!ran(run, 't1'))
        judge.fail(
          `the call did not run after a no-effect answer although the host allows it; ${reportedAs(run, 't1')}`,
          { received: summary(run) },
        );
    }),
  );

  test(
    ...check('ti.serial-order', async ({ harness, judge, spec }) => {
      const slow: Answer = { delayMs: 150, effects: [] };
      const run = await harness.run({
        label: 'interceptors a, b, c answer after 150 ms each',
        hooks: ['a', 'b', 'c'].map((name) => ({
          name,
          subscriptions: [intercept(['tool.before'])],
          script: { intercept: [slow] },
        })),
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      const order = run.records.filter(
        (r) => (r.kind === 'frame' && r.method === INTERCEPT) || (r.kind === 'reply' && r.method !== OBSERVE),
      );
      const at = (hook: string, kind: 'frame' | 'reply'): number =>
        order.findIndex((r) => r.hook === hook && r.kind === kind);
      for (const h of ['a', 'b', 'c'])
        if (at(h, 'frame') < 0)
          judge.fail(`interceptor ${h} received no hooks/intercept`, {
            received: summary(run),
            expected: spec.expectation,
          });
      const seq = order.map((r) => `${r.kind === 'frame' ? 'request to' : 'reply from'} ${r.hook}`);
      if (!(at('a', 'frame') < at('b', 'frame') && at('b', 'frame') < at('c', 'frame')))
        judge.fail('the interceptors were not called in registration order a, b, c', {
          received: seq,
          expected: spec.expectation,
        });
      if (at('b', 'frame') < at('a', 'reply') || at('c', 'frame') < at('b', 'reply'))
        judge.fail('an interceptor was called before the previous one answered (concurrent evaluation)', {
          received: seq,
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('ti.deny-stops', async ({ harness, judge, spec }) => {
      const policies = ['fail-open', 'fail-closed'] as const;
      // One run per policy, both at once; judged in this order.
      const runs = await harness.runAll(
        policies.map((policy) => ({
          label: `b denies (${policy})`,
          hooks: [
            { name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })] },
            {
              name: 'b',
              subscriptions: [intercept(['tool.before'], { failurePolicy: policy })],
              script: { intercept: [{ effects: [DENY] }] },
            },
            { name: 'c', subscriptions: [intercept(['tool.before'], { failurePolicy: policy })] },
          ],
          steps: [tool('t1', { path: 'notes.txt' })],
        })),
      );
      for (const [i, policy] of policies.entries()) {
        const run = runs[i]!;
        requireUsable(judge, run, ['t1']);
        if (intercepts(run, 'b').length === 0)
          judge.fail(`${policy}: interceptor b was never called`, { received: summary(run) });
        if (ran(run, 't1'))
          judge.fail(`${policy}: the tool ran although interceptor b denied it`, {
            received: summary(run),
            expected: spec.expectation,
          });
        if (intercepts(run, 'c').length > 0)
          judge.fail(`${policy}: interceptor c was called after b denied`, {
            received: summary(run),
            expected: spec.expectation,
          });
        if (frames(run, { hook: 'c', method: OBSERVE }).length > 0)
          judge.note(
            `${policy}: c received a best-effort hooks/observe of the settled event (as the observation-disposition rule has an interceptor not yet called observe it)`,
          );
        const outcome = reportedOutcome(run, 't1');
        if (outcome && outcome !== 'denied-by-backend')
          judge.note(`${policy}: the report calls the denied call "${outcome}"`);
      }
    }),
  );

  test(
    ...check('ti.no-retry-after-decision', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'one deny, one no-effect answer',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'])],
            script: { byStep: { denied: [{ effects: [DENY] }], allowed: [{ effects: [] }] } },
          },
        ],
        steps: [tool('denied', { n: 1 }), tool('allowed', { n: 2 })],
      });
      requireUsable(judge, run, ['denied', 'allowed']);
      for (const step of ['denied', 'allowed']) {
        const n = intercepts(run, 'a', step).length;
        if (n === 0) judge.fail(`the "${step}" call sent no hooks/intercept`, { received: summary(run) });
        if (n > 1)
          judge.fail(
            `the "${step}" call was sent ${n} times although the first answer was a ${step === 'denied' ? 'deny' : 'successful empty effect list'}`,
            { received: summary(run), expected: spec.expectation },
          );
      }
    }),
  );

  test(
    ...check('ti.failure-policy', async ({ harness, judge, spec, target }) => {
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
        snapshots?: readonly SnapshotId[];
      }
      const all: Record<string, FailureClass> = {
        'malformed-json': {
          answer: () => ({
            raw: `{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"draft","effects":[] ${GARBAGE}`,
          }),
        },
        'jsonrpc-error': { answer: () => ({ error: { code: -32003, message: `backend unavailable: ${GARBAGE}` } }) },
        // 1d98c19 lets a result leave out effects (no effect); 2b5da580 requires them.
        'no-effects': {
          answer: () => ({ omitEffects: true, resultExtra: { note: GARBAGE } }),
          snapshots: ['draft@2b5da580'],
        },
        'no-result-version': { answer: (effects) => ({ effects, resultVersion: null }) },
        'wrong-result-version': { answer: (effects) => ({ effects, resultVersion: '1999-01-01' }) },
        'mismatched-id': { answer: (effects) => ({ effects, id: 'wrong' }) },
        'wrong-jsonrpc': { answer: (effects) => ({ effects, jsonrpc: '1.0' }) },
        'deny-empty-reason': { answer: () => ({ effects: [{ type: 'deny', reason: '' }] }) },
        // The reply comes three times the deadline late: a harness that waited would apply it.
        timeout: { answer: (effects, deadline) => ({ effects, delayMs: timeoutClassDelayMs(deadline) }) },
        ...(target.transport === 'http'
          ? {
              'http-500': { answer: (effects: unknown[]) => ({ effects, http: { status: 500 } }) },
              'http-202': { answer: (effects: unknown[]) => ({ effects, http: { status: 202 } }) },
              'http-404': { answer: (effects: unknown[]) => ({ effects, http: { status: 404 } }) },
              'http-text-plain': { answer: (effects: unknown[]) => ({ effects, http: { contentType: 'text/plain' } }) },
            }
          : target.lifecycle === 'per_event'
            ? {
                'exit-status-3': { answer: (effects: unknown[]) => ({ effects, exit: 3 }) },
              }
            : {}),
      };
      const classes = Object.fromEntries(
        Object.entries(all).filter(([, c]) => appliesTo(c.snapshots, harness.snapshot)),
      );
      // The timeout first: what a harness does right after a timeout is where it goes wrong.
      const names = ['timeout', ...Object.keys(classes).filter((n) => n !== 'timeout')];
      const healthyOf = (n: string): string => `after-${n}`;
      const runPolicy = async (policy: 'fail-open' | 'fail-closed', deadline: number): Promise<HarnessRun> => {
        const effects = policy === 'fail-open' ? [DENY] : [];
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
        const steps = names.flatMap((n, i) => [
          tool(n, { path: `${n}.txt` }),
          ...(i > 0 ? [tool(healthyOf(names[i - 1]!), { path: `${names[i - 1]}.txt` })] : []),
        ]);
        steps.push(tool(healthyOf(names[names.length - 1]!), { path: `${names[names.length - 1]}.txt` }));
        return harness.run({
          label: `${names.length} failure classes, each followed by a healthy call, ${policy}`,
          hooks,
          steps,
        });
      };
      const phases = new Phases();
      const delivered = (run: HarnessRun, step: string): boolean => intercepts(run, 'a', step).length > 0;
      const framesOf = (run: HarnessRun, step: string): string[] =>
        frames(run)
          .filter((f) => stepOf(f) === step)
          .map((f) => `${f.hook}: ${f.text ?? ''}`);
      const judgePolicy = (run: HarnessRun, policy: 'fail-open' | 'fail-closed'): void => {
        for (const n of names) {
          const phase = `${policy} ${n}`;
          const evidence = { frames: framesOf(run, n), outcome: reportedAs(run, n) };
          if (!delivered(run, n)) {
            phases.fail(
              phase,
              `the call's hooks/intercept never reached interceptor a (no frame for it), so its outcome proves nothing about this failure class; ${reportedAs(run, n)}`,
              evidence,
            );
          } else if (policy === 'fail-open' && (!ran(run, n) || intercepts(run, 'b', n).length === 0)) {
            phases.fail(
              phase,
              `fail-open did not continue: ${ran(run, n) ? 'b was not called' : `the call did not run (${reportedAs(run, n)})`}`,
              evidence,
            );
          } else if (policy === 'fail-closed' && (ran(run, n) || intercepts(run, 'b', n).length > 0)) {
            phases.fail(
              phase,
              `fail-closed did not deny: ${ran(run, n) ? `the call ran (${reportedAs(run, n)})` : 'b was called'}`,
              evidence,
            );
          }
          const h = healthyOf(n);
          const hp = `${policy} healthy call after ${n}`;
          const hEvidence = { frames: framesOf(run, h), outcome: reportedAs(run, h) };
          if (!delivered(run, h)) {
            phases.fail(
              hp,
              `a healthy call after the ${n} failure never reached interceptor a (no frame for it): the harness did not recover; ${reportedAs(run, h)}`,
              hEvidence,
            );
          } else if (policy === 'fail-open' && ran(run, h)) {
            // (Whether b is still called after the deny is ti.deny-stops's to judge.)
            phases.fail(
              hp,
              `a's deny for a healthy call after the ${n} failure was not honoured: the call ran (${reportedAs(run, h)})`,
              hEvidence,
            );
          } else if (policy === 'fail-closed' && !ran(run, h)) {
            phases.fail(
              hp,
              `a healthy call after the ${n} failure, answered with no effect, did not run (${reportedAs(run, h)}): the harness did not recover`,
              hEvidence,
            );
          } else if (policy === 'fail-closed' && intercepts(run, 'b', h).length === 0) {
            phases.fail(
              hp,
              `after a's no-effect answer to a healthy call after the ${n} failure, b was not called`,
              hEvidence,
            );
          }
        }
      };
      // Both policies at once: each run waits out its timeout class. Both write the deadline
      // the timeout class's delay is derived from (the start-up measured before either starts).
      const deadline = harness.registeredTimeoutMs(undefined);
      const [open, closed] = await together([runPolicy('fail-open', deadline), runPolicy('fail-closed', deadline)]);
      const usable = (run: HarnessRun): void => requireUsable(judge, run, Object.keys(run.inputs));
      usable(open);
      judgePolicy(open, 'fail-open');
      usable(closed);
      judgePolicy(closed, 'fail-closed');
      phases.judge(judge, spec.expectation, { 'fail-open': summary(open), 'fail-closed': summary(closed) });
      const leaky = (closed.report?.steps ?? []).filter((s) => s.reason?.includes(GARBAGE));
      if (leaky.length)
        judge.warn(
          `the denial reason repeats backend text for ${leaky.map((s) => s.id).join(', ')}; a synthetic denial should give a generic reason`,
          { received: leaky },
        );
      const mislabelled = names.filter(
        (n) => reportedOutcome(closed, n) && reportedOutcome(closed, n) !== 'denied-by-failure-policy',
      );
      if (mislabelled.length)
        judge.note(
          `the report does not call these fail-closed denials denied-by-failure-policy: ${mislabelled.join(', ')}`,
        );
      const skipped = Object.keys(all).filter((n) => !(n in classes));
      judge.note(
        `failure classes (snapshot ${harness.snapshot}): ${names.join(', ')}; each delivered, then a healthy call delivered and honoured${skipped.length ? `; not failures in ${harness.snapshot}: ${skipped.join(', ')}` : ''}`,
      );
    }),
  );

  test(
    ...check('ti.deadline', async ({ harness, judge, spec }) => {
      // Deadlines judged against the harness's own latencies in the same run: after a request
      // that gets no reply, the harness's next observable act must come within the deadline
      // plus a tolerance derived from its normal turnarounds (reply -> next act). Three runs
      // at once, each a normal call, one delayed call and a normal call after:
      //   late         a1 denies at 1.5 x its deadline (fail-open): the tool has run by then
      //   hang         a2 never replies (fail-open): b's request is the next act
      //   hang-closed  c never replies (fail-closed): the tool.after observation (or the next
      //                call's first request) is the next act, and the call does not run
      // Each run is judged against the turnarounds measured in it.
      await harness.prepare();
      const deadline = harness.registeredTimeoutMs(DEADLINE_PROBE_MS);
      // (What the deadline was derived from; the runs may raise the measurement afterwards.)
      const startupMs = harness.measuredStartupMs;
      const lateMs = lateReplyDelayMs(deadline);
      const hang: Answer = { delayMs: noReplyHoldMs(deadline), none: true };
      const open = (extra: Partial<Subscription> = {}): Subscription =>
        intercept(['tool.before'], { failurePolicy: 'fail-open', timeoutMs: DEADLINE_PROBE_MS, ...extra });
      const chainOrder = ['a1', 'a2', 'b', 'c'];
      const delayed = { late: 'a1', hang: 'a2', 'hang-closed': 'c' } as const;
      const what = {
        late: `a deny ${lateMs} ms late (fail-open)`,
        hang: 'no reply (fail-open)',
        'hang-closed': 'no reply (fail-closed)',
      } as const;
      const probes = Object.keys(delayed) as (keyof typeof delayed)[];
      const stepsOf = (probe: string): string[] => ['normal', probe, 'after'];
      const runList = await harness.runAll(
        probes.map((probe): RunPlan => ({
          label: `deadline ${deadline} ms: ${what[probe]}`,
          hooks: [
            {
              name: 'a1',
              subscriptions: [open()],
              script: { byStep: { late: [{ delayMs: lateMs, effects: [DENY] }] } },
            },
            { name: 'a2', subscriptions: [open()], script: { byStep: { hang: [hang] } } },
            { name: 'b', subscriptions: [open({ timeoutMs: undefined })] },
            {
              name: 'c',
              subscriptions: [
                intercept(['tool.before'], { failurePolicy: 'fail-closed', timeoutMs: DEADLINE_PROBE_MS }),
              ],
              script: { byStep: { 'hang-closed': [hang] } },
            },
            { name: 'obs', subscriptions: [observe(['tool.after'])] },
          ],
          steps: stepsOf(probe).map((id) => tool(id, { path: `${id}.txt` })),
        })),
      );
      const runs = Object.fromEntries(probes.map((p, i) => [p, runList[i]!])) as Record<
        keyof typeof delayed,
        HarnessRun
      >;
      // Per run: its normal turnarounds (a prompt reply -> the harness's next request, or
      // tool.after) give the tolerance its delayed call is judged by.
      const limits = {} as Record<keyof typeof delayed, { limit: number; how: string }>;
      for (const probe of probes) {
        const run = runs[probe];
        requireUsable(judge, run, stepsOf(probe));
        const samples: number[] = [];
        for (const step of stepsOf(probe)) {
          for (let i = 0; i < chainOrder.length; i++) {
            const from = chainOrder[i]!;
            if (step === probe && delayed[probe] === from) continue;
            const next =
              i + 1 < chainOrder.length
                ? requestOf(run, chainOrder[i + 1]!, step)
                : observationOf(run, 'obs', 'tool.after', step);
            const d = between(replyOf(run, from, step), next);
            if (d !== undefined && d >= 0) samples.push(d);
          }
        }
        if (samples.length === 0)
          judge.fail(
            `no prompt reply was followed by another request or observation in run "${run.label}", so the harness's normal turnaround could not be measured`,
            { received: summary(run), expected: spec.expectation },
          );
        const tolerance = actToleranceMs(samples);
        limits[probe] = {
          limit: deadline + tolerance,
          how: `the deadline is ${deadline} ms; tolerance ${tolerance} ms (src/timing.ts: 250 ms + 2 x the slowest of ${samples.length} normal turnarounds measured in the same run, ${Math.round(Math.max(...samples))} ms)`,
        };
      }
      judge.note(
        `deadline ${deadline} ms${startupMs !== undefined ? ` (${DEADLINE_PROBE_MS} ms + 2 x the scripted backend's measured start-up of ${startupMs} ms)` : ''}; ${probes.map((p) => `${p}: ${limits[p].how}`).join('; ')}`,
      );
      const phases = new Phases();
      const timed = (
        phase: string,
        probe: keyof typeof delayed,
        nextName: string,
        next: WireRecord | undefined,
      ): void => {
        const run = runs[probe];
        const hook = delayed[probe];
        const { limit, how } = limits[probe];
        const asked = requestOf(run, hook, probe);
        if (!asked)
          return phases.fail(
            phase,
            `interceptor ${hook} never received the "${probe}" call (${reportedAs(run, probe)})`,
            summary(run),
          );
        if (!next)
          return phases.fail(
            phase,
            `after ${hook} gave no reply within the deadline, ${nextName} never came (${reportedAs(run, probe)})`,
            summary(run),
          );
        const took = next.t - asked.t;
        if (took > limit) {
          phases.fail(
            phase,
            `${nextName} came ${Math.round(took)} ms after ${hook} received its request and gave no reply within the deadline; ${how}: the harness waited past its deadline`,
            { request: asked.text, next: next.text },
          );
        }
      };
      // (a) no reply, fail-open: b is the next act.
      timed('hang (fail-open)', 'hang', 'the request to the next interceptor b', requestOf(runs.hang, 'b', 'hang'));
      // (a) no reply, fail-closed: tool.after of the denied call, or the next call's first request.
      const closed = runs['hang-closed'];
      const closedNext = [observationOf(closed, 'obs', 'tool.after', 'hang-closed'), requestOf(closed, 'a1', 'after')]
        .filter((r): r is WireRecord => r !== undefined)
        .sort((x, y) => x.t - y.t)[0];
      timed('hang (fail-closed)', 'hang-closed', "the harness's next event (tool.after, or the next call)", closedNext);
      // (Whether the fail-closed call was denied is ti.failure-policy's to judge; here: when.)
      // (b) a deny 1.5 x the deadline late, fail-open: the harness has moved on and run the tool.
      const run = runs.late;
      timed('late deny (fail-open)', 'late', 'the request to the next interceptor a2', requestOf(run, 'a2', 'late'));
      const m = run.markers.late;
      const lateReply = replyOf(run, 'a1', 'late');
      if (!m) {
        const outcome = reportedOutcome(run, 'late');
        phases.fail(
          'late deny (fail-open)',
          outcome === 'denied-by-backend'
            ? `the call did not run and ${reportedAs(run, 'late')}: the deny that came ${lateMs} ms after the request (past the ${deadline} ms deadline) was applied`
            : `the call did not run after the deadline passed under fail-open (${reportedAs(run, 'late')})`,
          summary(run),
        );
      } else {
        if (!deepEqualJson(m.executedInput, run.inputs.late))
          phases.fail('late deny (fail-open)', `the call ran with a changed input ${JSON.stringify(m.executedInput)}`, {
            expected: run.inputs.late,
          });
        const ranAt = run.markerTimes.late;
        if (lateReply && ranAt !== undefined && ranAt > lateReply.t) {
          phases.fail(
            'late deny (fail-open)',
            `the call ran only ${Math.round(ranAt - lateReply.t)} ms after the late reply was sent: the harness waited past its ${deadline} ms deadline`,
            summary(run),
          );
        }
      }
      phases.judge(judge, spec.expectation, Object.fromEntries(probes.map((p) => [p, summary(runs[p])])));
    }),
  );
});
