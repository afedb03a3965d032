// The checks that read the typical session (suites/support/harness-scenarios.ts), from
// every spec area: one adapter run per target, shared through the worker's cache
// (HarnessSession.sharedRun). The group runs in order in one worker (mode 'default', even
// under fullyParallel), so the run is made once per target; a worker that restarts after
// a failure simply makes it again.
import { REVERSE_DNS_PATTERN } from '../../src/protocol/catalogue.js';
import { isObject } from '../../src/protocol/json.js';
import { deepEqualJson } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import type { Answer } from '../../drivers/scripted-backend/script.js';
import { HOOK_QUERY } from '../../drivers/scripted-backend/http-server.js';
import { check, test, type Judge } from '../support/check.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import { intercept, together, tool, type HarnessRun, type HarnessSession } from '../support/harness-session.js';
import {
  advertisesModify,
  eventOf,
  eventType,
  expectedInput,
  frames,
  INTERCEPT,
  intercepts,
  messageOf,
  OBSERVE,
  paramsOf,
  reportedAs,
  requireUsable,
  stepOf,
  summary,
  toolInputOf,
} from '../support/harness-observations.js';

type Obj = Record<string, unknown>;
const DENY = { type: 'deny', reason: 'the scripted backend denies this call' };

/** What the harness advertises, read from the shared typical session. */
async function probeCapabilities(harness: HarnessSession, judge: Judge): Promise<HarnessRun> {
  const run = await harness.sharedRun(typicalSession());
  requireUsable(judge, run, TYPICAL_TOOL_STEPS);
  return run;
}

test.describe('typical session (harness)', () => {
  test.describe.configure({ mode: 'default' });

  test(
    ...check('base.harness-jsonrpc', async ({ harness, judge, spec }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const all = frames(run);
      if (all.length === 0) judge.fail('the harness sent nothing to the scripted backend', { received: summary(run) });
      for (const f of all) {
        const m = messageOf(f);
        const problem =
          f.base64 !== undefined
            ? 'is not valid UTF-8'
            : m === undefined
              ? Array.isArray(f.message)
                ? 'is a JSON array (a batch), not one object'
                : 'is not a JSON object'
              : m.jsonrpc !== '2.0'
                ? `has jsonrpc ${JSON.stringify(m.jsonrpc)}, not "2.0"`
                : typeof m.method !== 'string'
                  ? 'has no method (it is neither a request nor a notification)'
                  : 'id' in m && typeof m.id !== 'string' && typeof m.id !== 'number'
                    ? `has id ${JSON.stringify(m.id)} (a request id is a string or number)`
                    : 'result' in m || 'error' in m
                      ? 'carries result or error (a harness sends requests and notifications)'
                      : undefined;
        if (problem) {
          judge.fail(`a frame to hook ${f.hook} ${problem}`, { received: f.text, expected: spec.expectation });
        }
      }
      judge.note(`${all.length} frames, all JSON-RPC 2.0 requests or notifications`);
    }),
  );

  test(
    ...check('base.harness-version', async ({ harness, judge, spec }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const msgs = frames(run).filter((f) => f.method === INTERCEPT || f.method === OBSERVE);
      if (msgs.length === 0)
        judge.fail('the harness sent no hooks/intercept or hooks/observe', { received: summary(run) });
      for (const f of msgs) {
        const v = paramsOf(f)?.protocolVersion;
        if (v !== 'draft')
          judge.fail(`a ${f.method} to hook ${f.hook} has params.protocolVersion ${JSON.stringify(v)}`, {
            received: f.text,
            expected: spec.expectation,
          });
      }
    }),
  );

  test(
    ...check('base.harness-extension-keys', async ({ harness, judge, spec }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const pattern = new RegExp(REVERSE_DNS_PATTERN);
      let seen = 0;
      const walk = (v: unknown, where: string, text: string | undefined): void => {
        if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}/${i}`, text));
        else if (isObject(v)) {
          for (const [k, x] of Object.entries(v)) {
            if (k === 'extensions' && isObject(x)) {
              for (const key of Object.keys(x)) {
                seen++;
                if (!pattern.test(key))
                  judge.fail(`extension key "${key}" at ${where}/extensions is not a reverse-DNS name`, {
                    received: text,
                    expected: spec.expectation,
                  });
              }
            }
            walk(x, `${where}/${k}`, text);
          }
        }
      };
      for (const f of frames(run)) walk(paramsOf(f), '/params', f.text);
      judge.note(seen ? `${seen} extension keys, all reverse-DNS` : 'the harness sent no extensions');
    }),
  );

  test(
    ...check('ti.request-id', async ({ harness, judge, spec }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const ids = new Map<string, unknown>();
      for (const f of intercepts(run, 'a')) {
        const m = messageOf(f)!;
        const eventId = eventOf(f)?.id;
        if (m.id !== eventId)
          judge.fail(`the JSON-RPC id ${JSON.stringify(m.id)} is not the event id ${JSON.stringify(eventId)}`, {
            received: f.text,
            expected: spec.expectation,
          });
        const step = stepOf(f) ?? '?';
        if (!ids.has(step)) ids.set(step, eventId);
      }
      if (ids.size < 2) judge.fail('fewer than two intercepts arrived for two calls', { received: summary(run) });
      if (ids.get('t1') === ids.get('t2'))
        judge.fail(`two different calls share the event id ${JSON.stringify(ids.get('t1'))}`, {
          received: summary(run),
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('ti.capabilities-deny', async ({ harness, judge, spec }) => {
      // Every tool.before intercept, in every kind of scenario the other checks use: the
      // typical session, and calls the host allows, asks about (refused) or denies, calls at
      // once, a second interceptor after an edit, after a deny and after a failure.
      const merge = { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } };
      const [typical, varied] = await together([
        harness.sharedRun(typicalSession()),
        harness.run({
          label: 'host allow / ask-refuse / deny, parallel calls, an edit, a deny and a failure before the next call',
          hooks: [
            {
              name: 'a',
              subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
              script: {
                byStep: {
                  edited: [{ effects: [merge] }],
                  denied: [{ effects: [DENY] }],
                  failed: [{ raw: 'not json' }],
                },
              },
            },
            { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-closed' })] },
          ],
          steps: [
            tool('allowed', { n: 1 }),
            tool('asks', { n: 2 }, 'ask-refuse'),
            tool('blocked', { n: 3 }, 'deny'),
            { kind: 'parallel', id: 'both', steps: [tool('p1', { n: 4 }), tool('p2', { n: 5 })] },
            tool('edited', { n: 6 }),
            tool('denied', { n: 7 }),
            tool('failed', { n: 8 }),
            tool('last', { n: 9 }, 'ask-refuse'),
          ],
        }),
      ]);
      requireUsable(judge, typical, TYPICAL_TOOL_STEPS);
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
            lacking.push(
              `run "${run.label}", hook ${f.hook}, call "${step}" (host ${HOSTS[step] ?? 'allow'}): params.capabilities.effects is ${JSON.stringify(effects)}`,
            );
            judge.evidence({ received: { [`${f.hook}/${stepOf(f) ?? '?'}`]: f.text } });
          }
        }
      }
      if (seen === 0) judge.fail('no hooks/intercept arrived', { received: summary(typical) });
      if (lacking.length)
        judge.fail(
          `${lacking.length} of ${seen} tool.before intercepts do not advertise deny:\n${lacking.join('\n')}`,
          { expected: spec.expectation },
        );
      judge.note(`${seen} tool.before intercepts in 2 runs, each advertising deny`);
    }),
  );

  test(
    ...check('ti.modify-input', async ({ harness, judge, spec }) => {
      const probe = await probeCapabilities(harness, judge);
      const canMerge = advertisesModify(probe, 'a', 'merge');
      const canReplace = advertisesModify(probe, 'a', 'replace');
      if (!canMerge && !canReplace) judge.notApplicable('the harness does not advertise modify of the tool input');
      const merge = {
        type: 'modify',
        target: 'input',
        operation: 'merge',
        value: { mode: '0644', keep: null, nested: { replaced: true } },
      };
      const replace = {
        type: 'modify',
        target: 'input',
        operation: 'replace',
        value: { path: 'other.txt', probe: 'replaced' },
      };
      const inputs: Record<string, Obj> = {
        merged: { path: 'notes.txt', mode: '0600', keep: 'x', nested: { old: 1 } },
        replaced: { path: 'a.txt', n: 2 },
      };
      const steps = [
        ...(canMerge ? [tool('merged', inputs.merged)] : []),
        ...(canReplace ? [tool('replaced', inputs.replaced)] : []),
      ];
      // Serial chaining (merge only): b edits the value a produced. Its own run, at the same time.
      const ea = [{ type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644', by: 'a' } }];
      const eb = [{ type: 'modify', target: 'input', operation: 'merge', value: { by: 'b', extra: 1 } }];
      const [run, chain] = await together([
        harness.run({
          label: 'merge and replace of the tool input',
          hooks: [
            {
              name: 'a',
              subscriptions: [intercept(['tool.before'])],
              script: { byStep: { merged: [{ effects: [merge] }], replaced: [{ effects: [replace] }] } },
            },
          ],
          steps,
        }),
        canMerge
          ? harness.run({
              label: 'a and b both merge into the input',
              hooks: [
                { name: 'a', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ effects: ea }] } },
                { name: 'b', subscriptions: [intercept(['tool.before'])], script: { intercept: [{ effects: eb }] } },
              ],
              steps: [tool('chained', { path: 'notes.txt', mode: '0600' })],
            })
          : undefined,
      ]);
      requireUsable(
        judge,
        run,
        steps.map((s) => s.id),
      );
      const effectsOf: Record<string, unknown[]> = { merged: [merge], replaced: [replace] };
      for (const s of steps) {
        const expected = expectedInput(run.inputs[s.id]!, effectsOf[s.id]!);
        const m = run.markers[s.id];
        if (!m)
          judge.fail(`the "${s.id}" call did not run after a valid modify; ${reportedAs(run, s.id)}`, {
            sent: { effects: effectsOf[s.id] },
            received: summary(run),
            expected: JSON.stringify(expected),
          });
        else if (!deepEqualJson(m.executedInput, expected)) {
          judge.fail(`the "${s.id}" call ran with ${JSON.stringify(m.executedInput)}`, {
            sent: { input: run.inputs[s.id], effects: effectsOf[s.id] },
            received: m.executedInput,
            expected: `${JSON.stringify(expected)} (${spec.expectation})`,
          });
        }
      }
      if (chain) {
        requireUsable(judge, chain, ['chained']);
        // What b was asked about: the input as a edited it (seed edit check 7), judged from b's own request.
        const afterA = expectedInput(chain.inputs.chained!, ea);
        const toB = intercepts(chain, 'b', 'chained')[0];
        if (!toB)
          judge.fail(`interceptor b received no hooks/intercept for the call (${reportedAs(chain, 'chained')})`, {
            received: summary(chain),
            expected: spec.expectation,
          });
        if (!deepEqualJson(toolInputOf(toB!) ?? null, afterA ?? null)) {
          judge.fail(
            `interceptor b was sent tool.input ${JSON.stringify(toolInputOf(toB!))}, not the input as edited by a: edits must chain serially over the effective value`,
            { sent: { a: ea }, received: toB!.text, expected: JSON.stringify(afterA) },
          );
        }
        const expected = expectedInput(afterA!, eb);
        const m = chain.markers.chained;
        if (!m || !deepEqualJson(m.executedInput, expected)) {
          judge.fail(
            `edits of two interceptors did not chain: the call ${m ? `ran with ${JSON.stringify(m.executedInput)}` : 'did not run'}`,
            { sent: { a: ea, b: eb }, received: summary(chain), expected: JSON.stringify(expected) },
          );
        }
      }
    }),
  );

  test(
    ...check('ti.modify-atomic', async ({ harness, judge, spec }) => {
      const probe = await probeCapabilities(harness, judge);
      if (!advertisesModify(probe, 'a', 'merge'))
        judge.notApplicable('the harness does not advertise modify (merge) of the tool input');
      const good = { type: 'modify', target: 'input', operation: 'merge', value: { mode: '0644' } };
      const lists: Record<string, unknown[]> = {
        'bad-value': [good, { type: 'modify', target: 'input', operation: 'merge', value: 'not an object' }],
        'bad-target': [good, { type: 'modify', target: 'output', operation: 'replace', value: [] }],
      };
      const run = await harness.run({
        label: 'a valid merge followed by an invalid modify, fail-open',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
            script: { byStep: Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, [{ effects: v }]])) },
          },
        ],
        steps: Object.keys(lists).map((k) => tool(k, { path: `${k}.txt`, mode: '0600' })),
      });
      requireUsable(judge, run, Object.keys(lists));
      for (const [step, effects] of Object.entries(lists)) {
        const m = run.markers[step];
        if (!m)
          judge.fail(
            `the "${step}" call did not run (${reportedAs(run, step)}): a rejected response under fail-open must leave the call to run unchanged`,
            { sent: { effects }, received: summary(run), expected: spec.expectation },
          );
        if (!deepEqualJson(m!.executedInput, run.inputs[step])) {
          judge.fail(
            `the "${step}" call ran with ${JSON.stringify(m!.executedInput)}: part of a rejected response was applied`,
            {
              sent: { input: run.inputs[step], effects },
              received: m!.executedInput,
              expected: `the original input ${JSON.stringify(run.inputs[step])}`,
            },
          );
        }
      }
    }),
  );

  test(
    ...check('lo.notification-shape', async ({ harness, judge, spec, snapshot }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const got = frames(run, { hook: 'obs' });
      if (got.length === 0)
        judge.fail('the observer received nothing for a session with a tool call', {
          received: summary(run),
          expected: spec.expectation,
        });
      for (const f of got) {
        const m = messageOf(f);
        if (f.method !== OBSERVE)
          judge.fail(`the observer received ${f.method ?? 'a non-message'} instead of hooks/observe`, {
            received: f.text,
            expected: spec.expectation,
          });
        if (m && 'id' in m)
          judge.fail(
            `a hooks/observe of ${eventType(f)} carries an id (${JSON.stringify(m.id)}): notifications have none`,
            { received: f.text, expected: spec.expectation },
          );
        const findings = validate('observe-notification', f.message, { wireOnly: true, snapshot });
        if (!isWireValid(findings)) {
          judge.fail(
            `a hooks/observe of ${eventType(f)} is not valid: ${findings
              .filter((x) => x.layer === 'wire')
              .slice(0, 5)
              .map((x) => `${x.path || '/'} ${x.message}`)
              .join('; ')}`,
            { received: f.text, expected: spec.expectation },
          );
        }
      }
      judge.note(`${got.length} observations: ${got.map((f) => eventType(f)).join(', ')}`);
    }),
  );

  test(
    ...check('stdio.harness-framing', async ({ harness, judge, spec }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const all = frames(run);
      if (all.length === 0) judge.fail('the harness wrote nothing to the backend', { received: summary(run) });
      for (const f of all) {
        if ((f.lines ?? 1) > 1)
          judge.fail(`a message to hook ${f.hook} spans ${f.lines} lines (pretty-printed or with raw newlines)`, {
            received: f.text,
            expected: spec.expectation,
          });
        if (f.message === undefined)
          judge.fail(`a line to hook ${f.hook} is not JSON`, { received: f.text, expected: spec.expectation });
        if (Array.isArray(f.message))
          judge.fail(`a line to hook ${f.hook} is a JSON array (batch)`, {
            received: f.text,
            expected: spec.expectation,
          });
      }
      const unterminated = run.records.find((r) => r.kind === 'line' && r.note === 'no final newline');
      if (unterminated)
        judge.fail(`the last message to hook ${unterminated.hook} has no final newline`, {
          received: unterminated.text,
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('http.post-json', async ({ harness, judge, spec }) => {
      const run = await harness.sharedRun(typicalSession());
      requireUsable(judge, run, TYPICAL_TOOL_STEPS);
      const all = frames(run);
      if (all.length === 0) judge.fail('no request reached the scripted backend', { received: summary(run) });
      for (const f of all) {
        const h = f.http ?? {};
        const want = `/hooks/${encodeURIComponent(f.hook)}?${HOOK_QUERY}`;
        if (h.method !== 'POST')
          judge.fail(`a request to ${h.url} used ${h.method}`, { received: h, expected: spec.expectation });
        if (h.url !== want)
          judge.fail(`a request went to ${h.url}, not the registered ${want}`, {
            received: h,
            expected: spec.expectation,
          });
        if (!/^application\/json\s*(;|$)/i.test(h.contentType ?? ''))
          judge.fail(`a request has Content-Type ${JSON.stringify(h.contentType ?? null)}`, {
            received: h,
            expected: spec.expectation,
          });
        if (f.message === undefined || Array.isArray(f.message) || typeof f.message !== 'object')
          judge.fail('a request body is not one JSON object', { received: f.text, expected: spec.expectation });
      }
    }),
  );
});
