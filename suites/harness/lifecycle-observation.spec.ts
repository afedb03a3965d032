// Lifecycle Observation, harness side: notifications without id, exact observe delivery
// is in base.exact-dispatch; here: shape, isolation from failing observers, call
// identity across before/after, and effective content after edits.
import { deepEqualJson } from '../../src/protocol/json.js';
import { isObject } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import type { Answer } from '../../drivers/scripted-backend/script.js';
import { check, test } from '../support/check.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import { intercept, observe, tool, type HarnessRun } from '../support/harness-session.js';
import {
  between,
  callIdOf,
  eventOf,
  eventType,
  frames,
  INTERCEPT,
  messageOf,
  OBSERVE,
  paramsOf,
  Phases,
  ran,
  replyOf,
  reportedAs,
  requireUsable,
  stepOf,
  summary,
  toolInputOf,
} from '../support/harness-observations.js';
import { actToleranceMs, observerHangMs } from '../../src/timing.js';

const DENY = { type: 'deny', reason: 'the scripted backend denies this call' };

test.describe('lifecycle-observation (harness)', () => {
  test(
    ...check('lo.observer-isolation', async ({ harness, judge, spec, target }) => {
      // One observer cannot be reached at all (stdio: its command does not exist; HTTP: it
      // answers 500 with garbage); another answers garbage and exits, then hangs. The calls
      // must not notice.
      const crashThenHang: Answer[] =
        target.transport === 'http'
          ? [
              { raw: '<html>internal error</html>', http: { status: 500, contentType: 'text/html' } },
              { delayMs: observerHangMs(harness.timeoutMs) },
            ]
          : [
              { raw: 'this is not JSON', exit: 3 },
              { delayMs: observerHangMs(harness.timeoutMs), none: true },
            ];
      // Timing, judged against the same run: with an observer that hangs, the tool runs as
      // soon after the interceptor's reply as it does with a healthy observer. Both runs at once.
      const steps = ['warm', 'healthy', 'hang', 'healthy-again'];
      const hang: Answer = { delayMs: observerHangMs(harness.timeoutMs), none: true };
      const [run, timed] = (await harness.runAll([
        {
          label: 'observers that cannot be reached, fail, and hang',
          hooks: [
            { name: 'a', subscriptions: [intercept(['tool.before'])] },
            target.transport === 'http'
              ? {
                  name: 'obs-down',
                  subscriptions: [observe(['session.start', 'tool.before', 'tool.after'])],
                  script: { observe: [{ raw: 'garbage', http: { status: 500, contentType: 'text/plain' } }] },
                }
              : {
                  name: 'obs-down',
                  missingCommand: true,
                  subscriptions: [observe(['session.start', 'tool.before', 'tool.after'])],
                },
            {
              name: 'obs-flaky',
              subscriptions: [observe(['session.start', 'tool.before', 'tool.after'])],
              script: { observe: crashThenHang },
            },
          ],
          steps: [{ kind: 'session.start' }, tool('t1', { path: 'a.txt' }), tool('t2', { path: 'b.txt' })],
        },
        {
          label: 'an observer that answers at once, then hangs on one call',
          hooks: [
            { name: 'a', subscriptions: [intercept(['tool.before'])] },
            {
              name: 'obs',
              subscriptions: [observe(['tool.before', 'tool.after'])],
              script: { observeByStep: { hang: [hang] } },
            },
          ],
          steps: steps.map((id) => tool(id, { path: `${id}.txt` })),
        },
      ])) as [HarnessRun, HarnessRun];
      requireUsable(judge, run, ['t1', 't2']);
      const phases = new Phases();
      const notRun = ['t1', 't2'].filter((s) => !ran(run, s));
      if (notRun.length)
        phases.fail(
          'failing observers',
          `${notRun.join(' and ')} did not run (${notRun.map((s) => reportedAs(run, s)).join('; ')}): a failing observer changed the outcome of the call`,
          summary(run),
        );

      requireUsable(judge, timed, steps);
      // reply of the interceptor -> the tool ran (its marker was written)
      const delay = (step: string): number | undefined => between(replyOf(timed, 'a', step), timed.markerTimes[step]);
      // ("warm" opens connections and starts processes: not a sample.)
      const healthy = ['healthy', 'healthy-again'].map(delay).filter((d): d is number => d !== undefined);
      const hung = delay('hang');
      if (!ran(timed, 'hang'))
        phases.fail(
          'hanging observer',
          `the call did not run while an observer hung (${reportedAs(timed, 'hang')})`,
          summary(timed),
        );
      else if (healthy.length === 0 || hung === undefined)
        phases.fail(
          'hanging observer',
          "the healthy calls did not run after the interceptor's reply, so the timing could not be compared",
          summary(timed),
        );
      else {
        const base = Math.max(...healthy);
        const tolerance = actToleranceMs(healthy);
        if (hung > base + tolerance) {
          phases.fail(
            'hanging observer',
            `with an observer that hangs, the tool ran ${Math.round(hung)} ms after the interceptor's reply; with a healthy observer it ran within ${Math.round(base)} ms (${healthy.map((d) => Math.round(d)).join(', ')} ms); tolerance ${tolerance} ms (src/timing.ts: 250 ms + 2 x the slowest healthy delay): observers must not delay the tool`,
            summary(timed),
          );
        } else
          judge.note(
            `with a hanging observer the tool ran ${Math.round(hung)} ms after the interceptor's reply; healthy: ${healthy.map((d) => Math.round(d)).join(', ')} ms`,
          );
      }
      phases.judge(judge, spec.expectation);
    }),
  );

  test(
    ...check('lo.call-identity', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'one executed and one denied call, observed after',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'])],
            script: { byStep: { executed: [{ effects: [] }], denied: [{ effects: [DENY] }] } },
          },
          { name: 'obs', subscriptions: [observe(['tool.after'])] },
        ],
        steps: [tool('executed', { n: 1 }), tool('denied', { n: 2 })],
      });
      requireUsable(judge, run, ['executed', 'denied']);
      for (const step of ['executed', 'denied']) {
        const before = frames(run, { hook: 'a', method: INTERCEPT }).find((f) => stepOf(f) === step);
        const after = frames(run, { hook: 'obs', method: OBSERVE }).filter(
          (f) => eventType(f) === 'tool.after' && stepOf(f) === step,
        );
        if (!before) judge.fail(`no tool.before intercept for the "${step}" call`, { received: summary(run) });
        if (after.length === 0) {
          if (step === 'executed')
            judge.fail('the executed call produced no tool.after observation', {
              received: summary(run),
              expected: spec.expectation,
            });
          judge.warn(
            'the denied call produced no tool.after observation (the draft reports denials as tool.after with outcome "denied")',
            { received: summary(run) },
          );
          continue;
        }
        for (const f of after) {
          if (!deepEqualJson(callIdOf(f) ?? null, callIdOf(before!) ?? null)) {
            judge.fail(
              `tool.after of the "${step}" call has call id ${JSON.stringify(callIdOf(f))}, tool.before had ${JSON.stringify(callIdOf(before!))}`,
              { sent: before!.text, received: f.text, expected: spec.expectation },
            );
          }
          if (step === 'denied') {
            const e = eventOf(f)!;
            const exec = isObject(e.execution) ? e.execution : {};
            if (e.outcome !== 'denied' || exec.status !== 'skipped' || exec.reason !== 'policy') {
              judge.fail(
                `tool.after of the denied call has outcome ${JSON.stringify(e.outcome)} and execution ${JSON.stringify(e.execution)}`,
                { received: f.text, expected: 'outcome "denied", execution {status: "skipped", reason: "policy"}' },
              );
            }
          }
        }
      }
    }),
  );

  test(
    ...check('lo.effective-content', async ({ harness, judge, spec }) => {
      const merge = { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } };
      const run = await harness.run({
        label: 'a modified call, observed after',
        hooks: [
          { name: 'a', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ effects: [merge] }] } },
          { name: 'obs', subscriptions: [observe(['tool.after'])] },
        ],
        steps: [tool('t1', { path: 'notes.txt', mode: '0600' })],
      });
      requireUsable(judge, run, ['t1']);
      const caps = paramsOf(frames(run, { hook: 'a', method: INTERCEPT })[0] ?? ({} as never))?.capabilities;
      if (!isObject(caps) || !Array.isArray(caps.effects) || !caps.effects.includes('modify'))
        judge.notApplicable('the harness does not advertise modify of the tool input');
      const m = run.markers.t1;
      if (!m) judge.fail('the modified call did not run', { received: summary(run) });
      const after = frames(run, { hook: 'obs', method: OBSERVE }).filter((f) => eventType(f) === 'tool.after');
      if (after.length === 0)
        judge.fail('no tool.after observation arrived', { received: summary(run), expected: spec.expectation });
      for (const f of after) {
        if (!deepEqualJson(toolInputOf(f) ?? null, m!.executedInput ?? null)) {
          judge.fail(
            `tool.after carries input ${JSON.stringify(toolInputOf(f))}, but the tool ran with ${JSON.stringify(m!.executedInput)}`,
            { sent: { effects: [merge] }, received: f.text, expected: spec.expectation },
          );
        }
      }
    }),
  );
});
