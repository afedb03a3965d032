// stdio binding, harness side: what the harness writes on a backend's stdin, how it
// starts the backend, and how it treats badly framed replies.
import { check, test } from '../support/check.js';
import { intercept, observe, tool } from '../support/harness-session.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import {
  between,
  frames,
  INTERCEPT,
  Phases,
  ran,
  replyOf,
  reportedAs,
  reportedOutcome,
  requireUsable,
  stepOf,
  summary,
} from '../support/harness-observations.js';
import { actToleranceMs } from '../../src/timing.js';

const DENY = { type: 'deny', reason: 'the scripted backend denies this call' };

test.describe('stdio (harness)', () => {
  test(
    ...check('stdio.literal-args', async ({ harness, judge, spec }) => {
      const extra = ['--probe', '$HOME;echo injected', '*', 'two words', '`id`'];
      const run = await harness.run({
        label: 'backend arguments with shell syntax',
        hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'])], extraArgs: extra }],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      const starts = run.records.filter((r) => r.kind === 'start' && r.hook === 'a');
      if (starts.length === 0)
        judge.fail('the scripted backend never started (or not with its registered arguments)', {
          sent: { args: extra },
          received: summary(run),
          expected: spec.expectation,
        });
      for (const s of starts) {
        const argv = s.argv ?? [];
        const got = argv.slice(argv.indexOf('--probe'));
        if (JSON.stringify(got) !== JSON.stringify(extra))
          judge.fail(`the backend received arguments ${JSON.stringify(got)}`, {
            sent: extra,
            received: argv,
            expected: spec.expectation,
          });
      }
    }),
  );

  test(
    ...check('stdio.framing-rejected', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'a well-framed no-effect answer, a pretty-printed deny, a deny after a banner (fail-open)',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
            script: {
              byStep: {
                pretty: [{ effects: [DENY], framing: 'pretty' }],
                banner: [{ effects: [DENY], framing: 'banner' }],
              },
            },
          },
        ],
        steps: [
          tool('framed', { n: 0 }),
          tool('pretty', { n: 1 }),
          tool('banner', { n: 2 }),
          tool('framed-again', { n: 3 }),
        ],
      });
      requireUsable(judge, run, ['framed', 'pretty', 'banner', 'framed-again']);
      const phases = new Phases();
      // reply -> the tool ran: a harness that rejects the framing runs the call (fail-open) about
      // as soon after the reply as after a well-framed answer; one that merely waits for its
      // deadline runs it only then.
      const delay = (step: string): number | undefined => between(replyOf(run, 'a', step), run.markerTimes[step]);
      const normal = ['framed', 'framed-again'].map(delay).filter((d): d is number => d !== undefined);
      const tolerance = actToleranceMs(normal);
      const limit = Math.max(0, ...normal) + tolerance;
      for (const step of ['pretty', 'banner']) {
        const what = step === 'pretty' ? 'pretty-printed' : 'banner-prefixed';
        if (!frames(run, { hook: 'a', method: INTERCEPT }).some((f) => stepOf(f) === step)) {
          phases.fail(step, `the "${step}" call sent no intercept (${reportedAs(run, step)})`, summary(run));
          continue;
        }
        if (!ran(run, step)) {
          phases.fail(
            step,
            reportedOutcome(run, step) === 'denied-by-backend'
              ? `the ${what} deny was honoured (${reportedAs(run, step)}): a badly framed reply must be an operational failure (fail-open: the call runs)`
              : `the call did not run after a ${what} reply under fail-open (${reportedAs(run, step)})`,
            summary(run),
          );
          continue;
        }
        const took = delay(step);
        if (normal.length && took !== undefined && took > limit) {
          phases.fail(
            step,
            `the call ran ${Math.round(took)} ms after the ${what} reply, against ${normal.map((d) => Math.round(d)).join(', ')} ms after well-framed answers (tolerance ${tolerance} ms, src/timing.ts); the registered deadline is ${harness.deadlineOf(run, 'a')} ms: the harness waited for its deadline instead of rejecting the framing`,
            summary(run),
          );
        }
      }
      phases.judge(judge, spec.expectation);
    }),
  );

  test(
    ...check('stdio.persistent-reuse', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'three calls to one persistent backend',
        hooks: [{ name: 'a', subscriptions: [intercept(['tool.before']), observe(['tool.after'])] }],
        steps: [tool('t1', { n: 1 }), tool('t2', { n: 2 }), tool('t3', { n: 3 })],
      });
      requireUsable(judge, run, ['t1', 't2', 't3']);
      const pids = new Set(frames(run, { hook: 'a' }).map((f) => f.pid));
      const starts = run.records.filter((r) => r.kind === 'start' && r.hook === 'a').length;
      if (frames(run, { hook: 'a' }).length < 3)
        judge.fail('fewer than three messages reached the backend', { received: summary(run) });
      if (pids.size > 1 || starts > 1)
        judge.fail(`the messages arrived on ${pids.size} processes (${starts} started) instead of one`, {
          received: summary(run),
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('stdio.one-outstanding', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'two calls at once, each decided in 400 ms',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'])],
            script: { intercept: [{ delayMs: 400, effects: [] }] },
          },
        ],
        steps: [{ kind: 'parallel', id: 'both', steps: [tool('p1', { n: 1 }), tool('p2', { n: 2 })] }],
      });
      requireUsable(judge, run, ['p1', 'p2']);
      let outstanding = 0;
      let worst = 0;
      for (const r of run.records) {
        if (r.hook !== 'a') continue;
        if (r.kind === 'frame' && r.method === INTERCEPT) worst = Math.max(worst, ++outstanding);
        else if (r.kind === 'reply' && r.method === INTERCEPT) outstanding--;
        else if (r.kind === 'exit' || r.kind === 'start') outstanding = 0;
      }
      if (frames(run, { hook: 'a', method: INTERCEPT }).length < 2)
        judge.fail('fewer than two intercepts arrived for two calls', { received: summary(run) });
      if (worst > 1)
        judge.fail(`${worst} intercepts were outstanding at once on the persistent backend`, {
          received: summary(run),
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('stdio.per-event-eof', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'per_event: two calls, observed',
        hooks: [
          { name: 'a', subscriptions: [intercept(['tool.before'])] },
          { name: 'obs', subscriptions: [observe(['tool.after'])] },
        ],
        steps: [tool('t1', { n: 1 }), tool('t2', { n: 2 })],
      });
      requireUsable(judge, run, ['t1', 't2']);
      const pids = [...new Set(run.records.filter((r) => r.kind === 'start').map((r) => r.pid!))];
      if (pids.length === 0) judge.fail('no backend process was started', { received: summary(run) });
      for (const pid of pids) {
        const mine = run.records.filter((r) => r.pid === pid && r.transport === 'stdio');
        const n = mine.filter((r) => r.kind === 'frame').length;
        const hook = mine[0]!.hook;
        if (n > 1)
          judge.fail(`a per_event process of hook ${hook} received ${n} messages`, {
            received: mine.filter((r) => r.kind === 'frame').map((r) => r.text),
            expected: spec.expectation,
          });
        if (n === 1 && !mine.some((r) => r.kind === 'eof'))
          judge.fail(`a per_event process of hook ${hook} never saw end of input after its message`, {
            received: summary(run),
            expected: spec.expectation,
          });
        // The scripted backend reads to end of input (bounded) before it answers, as a
        // backend that reads its whole input would: EOF must come before the reply.
        const reply = mine.findIndex((r) => r.kind === 'reply');
        const eof = mine.findIndex((r) => r.kind === 'eof');
        const noEof = mine.find((r) => r.kind === 'no-eof');
        if (n === 1 && reply >= 0 && (eof < 0 || eof > reply)) {
          judge.fail(
            `a per_event process of hook ${hook} got end of input only after its reply${noEof?.note ? ` (${noEof.note})` : ''}: a backend that reads its input to the end before answering would wait for the harness's deadline`,
            {
              received: mine.map((r) => `${r.kind}${r.note ? ` (${r.note})` : ''}`),
              expected: spec.expectation,
            },
          );
        }
      }
    }),
  );
});
