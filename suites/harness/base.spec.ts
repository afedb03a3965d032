// Base Protocol, harness side (the seed's checks 1-6, 8 and 9): the runner plays the
// backend and judges what the harness sends and whether the sentinel tool ran.
import { REVERSE_DNS_PATTERN } from '../../src/protocol/catalogue.js';
import { isObject } from '../../src/protocol/json.js';
import { deepEqualJson } from '../../src/protocol/json.js';
import { registrationCorpus } from '../../src/checks/registration-corpus.js';
import { validate } from '../../src/protocol/validator.js';
import { snapshotOf } from '../../src/protocol/snapshots.js';
import { CONFIGURATION } from '../../drivers/scripted-backend/script.js';
import { check, test } from '../support/check.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import { intercept, observe, tool, type HookPlan, type StepPlan } from '../support/harness-session.js';
import {
  callIdOf,
  eventOf,
  eventType,
  frames,
  INTERCEPT,
  messageOf,
  notRunBecause,
  OBSERVE,
  paramsOf,
  ran,
  reportedAs,
  reportedOutcome,
  requireUsable,
  stepOf,
  summary,
} from '../support/harness-observations.js';

const DENY = { type: 'deny', reason: 'the scripted backend denies this call' };

test.describe('base (harness)', () => {
  test(
    ...check('base.unknown-result-fields', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'deny with unknown result members, fail-open',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
            script: {
              intercept: [{ effects: [DENY], resultExtra: { x_extra: true, 'com.example.note': { detail: 1 } } }],
            },
          },
        ],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      if (frames(run, { hook: 'a', method: INTERCEPT }).length === 0)
        judge.fail('no hooks/intercept reached the interceptor', { received: summary(run) });
      if (ran(run, 't1')) {
        judge.fail(
          `the tool ran and ${reportedAs(run, 't1')}: the deny was not honoured, so the result's unknown members were treated as a failure (fail-open let it through)`,
          {
            sent: {
              result: { protocolVersion: 'draft', effects: [DENY], x_extra: true, 'com.example.note': { detail: 1 } },
            },
            received: summary(run),
            expected: spec.expectation,
          },
        );
      }
    }),
  );

  test(
    ...check('base.unknown-effect', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'deny plus an unknown or unadvertised effect, fail-open',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
            script: {
              byStep: {
                unknown: [{ effects: [DENY, { type: 'com.example.mystery' }] }],
                unadvertised: [{ effects: [DENY], unadvertised: true }],
              },
            },
          },
        ],
        steps: [tool('unknown', { path: 'a.txt' }), tool('unadvertised', { path: 'b.txt' })],
      });
      requireUsable(judge, run, ['unknown', 'unadvertised']);
      if (!ran(run, 'unknown')) {
        judge.fail(
          `${notRunBecause(run, 'unknown', 'a deny listed with the unknown effect type com.example.mystery was applied')}; the whole response must be rejected (fail-open: the tool runs)`,
          {
            sent: { effects: [DENY, { type: 'com.example.mystery' }] },
            received: summary(run),
            expected: spec.expectation,
          },
        );
      }
      const req = frames(run, { hook: 'a', method: INTERCEPT }).find((f) => stepOf(f) === 'unadvertised');
      const caps = (paramsOf(req ?? ({} as never))?.capabilities as { effects?: unknown } | undefined)?.effects;
      const advertised = new Set(Array.isArray(caps) ? caps.map(String) : []);
      if (['ask', 'message', 'allow'].every((e) => advertised.has(e))) {
        judge.note('the harness advertises ask, message and allow, so no defined effect was left to send unadvertised');
      } else if (!ran(run, 'unadvertised')) {
        judge.fail(
          `${notRunBecause(run, 'unadvertised', 'a deny listed with a defined effect the request did not advertise was applied')}; the whole response must be rejected (fail-open: the tool runs)`,
          {
            sent: { advertised: [...advertised] },
            received: summary(run),
            expected: spec.expectation,
          },
        );
      }
    }),
  );

  test(
    ...check('base.effect-unknown-field', async ({ harness, judge, spec }) => {
      const effect = { ...DENY, color: 'red' };
      const run = await harness.run({
        label: 'deny effect with an unknown member, fail-open',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
            script: { intercept: [{ effects: [effect] }] },
          },
        ],
        steps: [tool('t1', { path: 'notes.txt', n: 1 })],
      });
      requireUsable(judge, run, ['t1']);
      const m = run.markers.t1;
      if (!m)
        return judge.fail(
          `${notRunBecause(run, 't1', 'the tool did not run: a deny effect with an unknown member was honoured instead of rejecting the response')}`,
          { sent: { effects: [effect] }, received: summary(run), expected: spec.expectation },
        );
      if (!deepEqualJson(m.executedInput, run.inputs.t1))
        judge.fail('the tool ran with a changed input', {
          received: m.executedInput,
          expected: `the original input ${JSON.stringify(run.inputs.t1)}`,
        });
    }),
  );

  test(
    ...check('base.registration-validated', async ({ harness, judge, spec }) => {
      // The documents invalid in the claim's snapshot (1d98c19 allows a hook without subscriptions).
      const REGISTRATION_CORPUS = registrationCorpus(harness.snapshot);
      const base = (): { hooks: HookPlan[]; steps: StepPlan[] } => ({
        hooks: [
          { name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
          { name: 'obs', subscriptions: [observe(['session.start', 'tool.after', 'session.end'])] },
        ],
        steps: [{ kind: 'session.start' }, tool('t1', { path: 'notes.txt' }), { kind: 'session.end' }],
      });
      // Every document in its own run, all started at once (they only wait on the adapter);
      // the valid document is judged first: refusing everything is not validation.
      const [control, ...invalid] = await harness.runAll([
        { label: 'valid registration (control)', ...base() },
        ...REGISTRATION_CORPUS.map((entry) => ({
          label: `invalid registration: ${entry.id}`,
          ...base(),
          registration: (r: Record<string, unknown>) => {
            entry.mutate(r);
            return r;
          },
        })),
      ]);
      requireUsable(judge, control!, ['t1']);
      const failures: string[] = [];
      for (const [i, entry] of REGISTRATION_CORPUS.entries()) {
        const run = invalid[i]!;
        const refused = run.report?.registration === 'rejected' || (run.exit.code !== 0 && run.exit.code !== null);
        const sent = frames(run).length;
        if (!refused || sent > 0) {
          failures.push(
            `${entry.id} (${entry.why}): ${refused ? 'refused' : 'accepted'}${sent ? `, and ${sent} message(s) reached the backend` : ''}`,
          );
          judge.evidence({ sent: { [entry.id]: run.registration }, received: { [entry.id]: summary(run) } });
        }
      }
      if (failures.length) {
        judge.fail(
          `the harness accepted or used ${failures.length} of ${REGISTRATION_CORPUS.length} invalid registrations:\n${failures.join('\n')}`,
          { expected: spec.expectation },
        );
      }
      judge.note(
        `${REGISTRATION_CORPUS.length} invalid registrations (invalid in ${harness.snapshot}) refused, nothing sent`,
      );
    }),
  );

  test(
    ...check('base.exact-dispatch', async ({ harness, judge, spec, snapshot }) => {
      const hooks: HookPlan[] = [
        { name: 'a', subscriptions: [intercept(['tool.before'])] },
        { name: 'obs-after', subscriptions: [observe(['tool.after'])] },
        { name: 'obs-before', subscriptions: [observe(['tool.before'])] },
        { name: 'obs-end', subscriptions: [observe(['session.end'])] },
      ];
      const run = await harness.run({
        label: 'one interceptor, three single-event observers',
        hooks,
        steps: [{ kind: 'session.start' }, tool('t1', { path: 'notes.txt' }), { kind: 'session.end' }],
      });
      requireUsable(judge, run, ['t1']);
      // A snapshot with hooks/configuration lets a harness ask a backend for its
      // subscriptions (the scripted backend answers "method not found"): not an event.
      const asksAllowed = snapshotOf(snapshot).rules.configuration;
      for (const f of frames(run)) {
        if (asksAllowed && f.method === CONFIGURATION) continue;
        const plan = hooks.find((h) => h.name === f.hook);
        const type = eventType(f);
        const mode = f.method === INTERCEPT ? 'intercept' : f.method === OBSERVE ? 'observe' : undefined;
        const ok = plan?.subscriptions.some((s) => s.mode === mode && type !== undefined && s.events.includes(type));
        if (!ok) {
          const subs = plan?.subscriptions.map((s) => `${s.mode} ${s.events.join(', ')}`).join('; ') ?? 'none';
          judge.fail(
            `hook ${f.hook} (subscribed: ${subs}) received ${f.method ?? 'a message'} of ${type ?? 'an unknown event'}`,
            { received: summary(run), expected: spec.expectation },
          );
        }
      }
      if (frames(run, { hook: 'a', method: INTERCEPT }).length === 0)
        judge.fail('the intercept subscription received no hooks/intercept for the tool call', {
          received: summary(run),
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('base.retry-identity', async ({ harness, judge, spec, target }) => {
      // A retryable first failure: the process ends without answering, or HTTP 503.
      const failFirst = target.transport === 'http' ? { none: true, http: { status: 503 } } : { none: true, exit: 1 };
      const run = await harness.run({
        label: 'first attempt fails, a retry would succeed',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'])],
            script: { byStep: { t1: [failFirst, { effects: [] }] } },
          },
        ],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      const attempts = frames(run, { hook: 'a', method: INTERCEPT }).filter((f) => stepOf(f) === 't1');
      if (attempts.length === 0) judge.fail('no hooks/intercept reached the interceptor', { received: summary(run) });
      if (attempts.length === 1)
        judge.notApplicable('the harness did not retry after the retryable failure (retries are optional)');
      const [first, ...retries] = attempts;
      const deadline = harness.deadlineOf(run, 'a');
      for (const r of retries) {
        const a = messageOf(first!)!;
        const b = messageOf(r)!;
        const diffs = [
          a.id !== b.id ? `JSON-RPC id ${JSON.stringify(a.id)} became ${JSON.stringify(b.id)}` : '',
          eventOf(first!)?.id !== eventOf(r)?.id
            ? `event id ${JSON.stringify(eventOf(first!)?.id)} became ${JSON.stringify(eventOf(r)?.id)}`
            : '',
          !deepEqualJson((eventOf(first!)?.session as unknown) ?? null, (eventOf(r)?.session as unknown) ?? null)
            ? 'session changed'
            : '',
          !deepEqualJson(callIdOf(first!) ?? null, callIdOf(r) ?? null)
            ? `call id ${JSON.stringify(callIdOf(first!))} became ${JSON.stringify(callIdOf(r))}`
            : '',
          !deepEqualJson(eventOf(first!) ?? null, eventOf(r) ?? null) ? 'the event content differs' : '',
          r.t - first!.t > deadline
            ? `the retry came ${Math.round(r.t - first!.t)} ms after the first attempt, past the ${deadline} ms deadline`
            : '',
        ].filter(Boolean);
        if (diffs.length)
          judge.fail(`the retry is not the same intercept: ${diffs.join('; ')}`, {
            sent: first!.text,
            received: r.text,
            expected: spec.expectation,
          });
      }
      judge.note(`${retries.length} retr${retries.length === 1 ? 'y' : 'ies'}, identical to the first attempt`);
    }),
  );

  test(
    ...check('base.harness-metadata', async ({ harness, judge, spec, snapshot }) => {
      const run = await harness.run({
        label: 'tool call without a preceding session.start',
        hooks: [
          { name: 'a', subscriptions: [intercept(['tool.before'])] },
          { name: 'obs', subscriptions: [observe(['tool.before', 'tool.after', 'session.end'])] },
        ],
        steps: [tool('t1', { path: 'notes.txt' }), { kind: 'session.end' }],
      });
      requireUsable(judge, run, ['t1']);
      const events = frames(run).filter((f) => eventOf(f) !== undefined);
      if (events.length === 0) judge.fail('the harness sent no events', { received: summary(run) });
      for (const f of events) {
        const h = eventOf(f)!.harness;
        const ok =
          isObject(h) &&
          typeof h.name === 'string' &&
          h.name !== '' &&
          typeof h.version === 'string' &&
          h.version !== '';
        // Which rule is broken follows the claim's snapshot, judged by its schemas: in 1d98c19
        // the event schemas require harness on every event (a wire error); in 2b5da580 only
        // session.start's does, and the seed's Base Protocol check 8 asks it of every event.
        if (!ok) {
          const kind = f.method === INTERCEPT ? 'intercept-request' : 'observe-notification';
          const wire = validate(kind, f.message, { wireOnly: true, snapshot }).find(
            (x) => x.layer === 'wire' && /harness/.test(`${x.path} ${x.message}`),
          );
          judge.fail(
            `a ${eventType(f)} event to hook ${f.hook} has harness ${JSON.stringify(h)}: ${
              wire
                ? `invalid on the wire in ${snapshot} (${wire.path}: ${wire.message})`
                : `the Base Protocol profile (check 8) requires it on every event; the ${snapshot} schemas only on session.start`
            }`,
            { received: f.text, expected: spec.expectation },
          );
        }
      }
      // The originating harness, not the adapter: the events name what the adapter report names.
      const reported = run.report?.harness;
      if (!isObject(reported) || typeof reported.name !== 'string' || reported.name === '') {
        judge.note(
          `the adapter report names no harness (${JSON.stringify(reported ?? null)}), so the events' harness could not be compared with it`,
        );
        return;
      }
      const differing = events.filter((f) => {
        const h = eventOf(f)!.harness as Record<string, unknown>;
        return h.name !== reported.name || (typeof reported.version === 'string' && h.version !== reported.version);
      });
      if (differing.length) {
        const named = [...new Set(differing.map((f) => JSON.stringify(eventOf(f)!.harness)))].join(', ');
        judge.fail(
          `${differing.length} of ${events.length} events name ${named}, but the adapter report names the harness ${JSON.stringify(reported)}: events must name the originating harness, not the adapter`,
          {
            received: differing.slice(0, 3).map((f) => f.text),
            expected: spec.expectation,
          },
        );
      }
      judge.note(`every event names ${JSON.stringify(reported)}, as the adapter report does`);
    }),
  );

  test(
    ...check('base.no-weakening', async ({ harness, judge, spec }) => {
      const steps = [
        tool('allowed', { path: 'a.txt' }, 'allow'),
        tool('asks', { path: 'b.txt' }, 'ask-refuse'),
        tool('blocked', { path: 'c.txt' }, 'deny'),
      ];
      const run = await harness.run({
        label: 'no-effect answers, host allows / asks and is refused / denies',
        hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ effects: [] }] } }],
        steps,
      });
      requireUsable(judge, run, ['allowed', 'asks', 'blocked']);
      const judgeRun = (r: typeof run, what: string): void => {
        for (const s of ['asks', 'blocked']) {
          if (ran(r, s))
            judge.fail(
              `${what}: the "${s}" call ran although the host ${s === 'asks' ? 'asked and the user refused' : 'denies it'}`,
              { received: summary(r), expected: spec.expectation },
            );
        }
        if (!ran(r, 'allowed'))
          judge.fail(`${what}: the call the host allows did not run`, {
            received: summary(r),
            expected: spec.expectation,
          });
      };
      judgeRun(run, 'with empty effect lists');
      // An `allow` effect grants nothing either, where the harness advertises it.
      const caps = (
        paramsOf(frames(run, { hook: 'a', method: INTERCEPT })[0] ?? ({} as never))?.capabilities as
          { effects?: unknown } | undefined
      )?.effects;
      if (Array.isArray(caps) && caps.includes('allow')) {
        const again = await harness.run({
          label: 'allow answers, host allows / asks and is refused / denies',
          hooks: [
            {
              name: 'a',
              subscriptions: [intercept(['tool.before'])],
              script: { intercept: [{ effects: [{ type: 'allow' }] }] },
            },
          ],
          steps,
        });
        requireUsable(judge, again);
        judgeRun(again, 'with allow effects');
      }
      if (reportedOutcome(run, 'asks') && reportedOutcome(run, 'asks') !== 'denied-by-host')
        judge.note(`the report calls the refused call "${reportedOutcome(run, 'asks')}"`);
    }),
  );
});
