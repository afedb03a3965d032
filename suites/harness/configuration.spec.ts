// What draft@1d98c19 adds on the harness side (catalogue rows with `snapshots:
// ['draft@1d98c19']`; a claim of another snapshot gets them as not applicable):
// server-driven subscription configuration (hooks/configuration, 1d98c19's
// configuration-request/-response and configuration schemas; its registration schema makes a
// backend's `subscriptions` optional) and results without `effects`
// (intercept-no-effect-response.schema.json@1d98c19). No 1d98c19 requirement text is
// published (../shared/ahp-spec-1d98c19/PROVENANCE.md): dispatch is judged by 2b5da580's
// AHP-REG-002 applied to the subscriptions the backend gave, and what a harness does with a
// bad configuration reply is a SHOULD (base.configuration-invalid), our choice written there.
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { validate } from '../../src/protocol/validator.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import { CONFIGURATION } from '../../drivers/scripted-backend/script.js';
import { check, test } from '../support/check.js';
import { intercept, observe, tool, type HarnessRun, type HookPlan, type StepPlan } from '../support/harness-session.js';
import {
  eventType,
  frames,
  INTERCEPT,
  intercepts,
  OBSERVE,
  ran,
  reportedAs,
  requireUsable,
  stepOf,
  summary,
} from '../support/harness-observations.js';

const DENY = { type: 'deny', reason: 'the configured backend denies this call' };

/**
 * One backend registered without subscriptions; its configuration reply subscribes it to
 * tool.before (intercept, fail-closed) and to session.start and tool.after (observe), not to
 * session.end. It denies t1 and lets t2 run, so what it intercepted is seen in the outcome.
 */
function configuredSession(): { label: string; hooks: HookPlan[]; steps: StepPlan[] } {
  return {
    label: 'a backend registered without subscriptions, configured by hooks/configuration',
    hooks: [
      {
        name: 'cfg',
        configured: true,
        subscriptions: [intercept(['tool.before']), observe(['session.start', 'tool.after'])],
        script: { byStep: { t1: [{ effects: [DENY] }], t2: [{ effects: [] }] } },
      },
    ],
    steps: [{ kind: 'session.start' }, tool('t1', { path: 'a.txt' }), tool('t2', { n: 2 }), { kind: 'session.end' }],
  };
}

const isConfiguration = (f: WireRecord): boolean => f.method === CONFIGURATION;

/** What is wrong with a hooks/configuration request under the claim's snapshot's configuration-request schema, or undefined. */
function requestProblem(f: WireRecord, snapshot: SnapshotId): string | undefined {
  if (f.message === undefined) return 'it is not JSON';
  const wrong = validate('configuration-request', f.message, { wireOnly: true, snapshot }).find(
    (x) => x.layer === 'wire',
  );
  return wrong ? `${wrong.path || '(root)'}: ${wrong.message}` : undefined;
}

/** Frames of a hook other than configuration requests: the events it was sent. */
const deliveries = (run: HarnessRun, hook: string): WireRecord[] =>
  frames(run, { hook }).filter((f) => !isConfiguration(f));

const label = (f: WireRecord): string =>
  `${f.method ?? '(not a message)'}${eventType(f) ? ` ${eventType(f)}` : ''}${stepOf(f) ? ` [${stepOf(f)}]` : ''}`;

test.describe('configuration (harness, draft@1d98c19)', () => {
  test(
    ...check('base.configuration-request', async ({ harness, judge, spec, snapshot }) => {
      const run = await harness.sharedRun(configuredSession());
      requireUsable(judge, run, ['t1', 't2']);
      const all = frames(run, { hook: 'cfg' });
      const firstAsk = all.findIndex(isConfiguration);
      const early = (firstAsk < 0 ? all : all.slice(0, firstAsk)).filter((f) => !isConfiguration(f));
      if (early.length)
        judge.fail(
          `${early.length} message(s) reached the backend registered without subscriptions ${firstAsk < 0 ? 'although the harness never asked it hooks/configuration' : 'before the harness asked it hooks/configuration'}: ${early
            .slice(0, 4)
            .map(label)
            .join(', ')}; with no subscription known, no event may go to it (AHP-REG-002)`,
          { received: summary(run), expected: spec.expectation },
        );
      if (firstAsk < 0) {
        // Nothing was delivered, so AHP-REG-002 holds; but the registered backend was ignored.
        judge.warn(
          'the harness never asked the backend registered without subscriptions for them (hooks/configuration): the backend got nothing all session',
          { received: summary(run), expected: spec.expectation },
        );
        return;
      }
      for (const f of all.filter(isConfiguration)) {
        const problem = requestProblem(f, snapshot);
        if (problem)
          judge.fail(`a hooks/configuration request is invalid: ${problem}`, {
            received: f.text,
            expected: spec.expectation,
          });
      }
      judge.note(
        `hooks/configuration asked ${all.filter(isConfiguration).length} time(s), before any of the ${deliveries(run, 'cfg').length} event(s) that backend got`,
      );
    }),
  );

  test(
    ...check('base.configuration-dispatch', async ({ harness, judge, spec }) => {
      const plan = configuredSession();
      const run = await harness.sharedRun(plan);
      requireUsable(judge, run, ['t1', 't2']);
      if (!frames(run, { hook: 'cfg' }).some(isConfiguration))
        judge.notApplicable(
          'the harness never asked hooks/configuration, so no configured subscription could be used (base.configuration-request judges that)',
        );
      const subscriptions = plan.hooks[0]!.subscriptions;
      for (const f of deliveries(run, 'cfg')) {
        const type = eventType(f);
        const mode = f.method === INTERCEPT ? 'intercept' : f.method === OBSERVE ? 'observe' : undefined;
        if (!subscriptions.some((s) => s.mode === mode && type !== undefined && s.events.includes(type)))
          judge.fail(
            `the configured backend (subscribed by its reply: ${subscriptions.map((s) => `${s.mode} ${s.events.join(', ')}`).join('; ')}) received ${label(f)}`,
            { received: summary(run), expected: spec.expectation },
          );
      }
      for (const step of ['t1', 't2'])
        if (intercepts(run, 'cfg', step).length === 0)
          judge.fail(
            `the configured intercept subscription received no hooks/intercept for the "${step}" call (${reportedAs(run, step)})`,
            { received: summary(run), expected: spec.expectation },
          );
      if (ran(run, 't1'))
        judge.fail(`the configured backend denied "t1", but it ran (${reportedAs(run, 't1')})`, {
          received: summary(run),
          expected: spec.expectation,
        });
      if (!ran(run, 't2'))
        judge.fail(
          `the configured backend answered "t2" with no effect, but it did not run (${reportedAs(run, 't2')})`,
          {
            received: summary(run),
            expected: spec.expectation,
          },
        );
      const observed = deliveries(run, 'cfg')
        .filter((f) => f.method === OBSERVE)
        .map(label);
      judge.note(`configured dispatch held; observations received: ${observed.join(', ') || 'none'}`);
    }),
  );

  test(
    ...check('base.configuration-invalid', async ({ harness, judge, spec }) => {
      // Our choice (no 1d98c19 text states it): a backend whose configuration cannot be used
      // gets nothing; defaults are not guessed for what an invalid reply lacks, and an error
      // is not read as "subscribe me to everything" (as the Rust SDK's registered-backend
      // client treats a reply failing its schema as a failed call, never a partial answer:
      // rust-sdk src/adapters/registered.rs@1f836ca5). The call itself is the other hooks' and
      // the host's to decide, so only what reaches the bad backends is judged.
      const invalidReply = {
        configuration: {
          subscriptions: [{ events: ['tool.before'], mode: 'intercept', content: { default: 'body' } }],
        },
        effects: [],
      };
      // The healthy interceptor first: whatever the harness makes of the others, it is called.
      const hooks: HookPlan[] = [
        { name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
        {
          name: 'bad',
          configured: true,
          subscriptions: [],
          script: { configuration: [invalidReply], intercept: [{ effects: [DENY] }] },
        },
        {
          name: 'err',
          configured: true,
          subscriptions: [],
          script: {
            configuration: [{ error: { code: -32603, message: 'configuration unavailable' } }],
            intercept: [{ effects: [DENY] }],
          },
        },
      ];
      const run = await harness.run({
        label: 'two backends without subscriptions: an invalid configuration reply, a JSON-RPC error',
        hooks,
        steps: [{ kind: 'session.start' }, tool('t1', { path: 'a.txt' }), { kind: 'session.end' }],
      });
      requireUsable(judge, run, ['t1']);
      const asked = ['bad', 'err'].filter((h) => frames(run, { hook: h }).some(isConfiguration));
      if (asked.length === 0)
        judge.notApplicable(
          'the harness asked neither backend hooks/configuration (base.configuration-request judges that)',
        );
      if (intercepts(run, 'a', 't1').length === 0)
        judge.fail('the healthy interceptor received no hooks/intercept for the call', {
          received: summary(run),
          expected: spec.expectation,
        });
      const used = asked.flatMap((h) => deliveries(run, h).map((f) => `${h}: ${label(f)}`));
      if (used.length)
        judge.warn(
          `events reached a backend whose configuration reply was ${used.some((u) => u.startsWith('bad')) ? 'invalid' : 'an error'}: ${used.slice(0, 4).join(', ')}${ran(run, 't1') ? '' : ` (and the call did not run: ${reportedAs(run, 't1')})`}`,
          { received: summary(run), expected: spec.expectation },
        );
      else judge.note(`nothing but hooks/configuration reached ${asked.join(' and ')}`);
    }),
  );

  test(
    ...check('ti.no-effects-result', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'fail-closed interceptor answers a result without effects',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-closed' })],
            script: { byStep: { t1: [{ omitEffects: true }] } },
          },
          { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-closed' })] },
        ],
        steps: [tool('t1', { path: 'a.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      if (intercepts(run, 'a', 't1').length === 0)
        judge.fail('no hooks/intercept for the call reached interceptor a', {
          received: summary(run),
          expected: spec.expectation,
        });
      if (!ran(run, 't1') || intercepts(run, 'b', 't1').length === 0)
        judge.fail(
          `a result without effects (draft@1d98c19: no effect) was treated as a failure under fail-closed: ${ran(run, 't1') ? 'b was not called' : `the call did not run (${reportedAs(run, 't1')})`}`,
          {
            sent: { result: { protocolVersion: 'draft' } },
            received: summary(run),
            expected: spec.expectation,
          },
        );
    }),
  );
});
