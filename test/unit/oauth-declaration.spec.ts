// How the harness auth checks with an oauth preset tell a harness's declaration and judge
// its refusal (suites/support/oauth-declaration.ts, issue 24), on runs built by hand.
import { test, expect } from '@playwright/test';
import {
  declarationOf,
  manifestAuthentication,
  refusalProblems,
  usedOAuth,
} from '../../suites/support/oauth-declaration.js';
import { intercept, observe, tool, type HarnessRun, type RunPlan } from '../../suites/support/harness-session.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';

function run(over: Partial<HarnessRun> = {}): HarnessRun {
  return {
    label: 'r',
    registration: {},
    exit: { code: 0, signal: null },
    timedOut: false,
    stdout: '',
    stderr: '',
    report: { registration: 'accepted', steps: [] },
    records: [],
    markers: { t1: undefined },
    effective: {},
    inputs: { t1: { probe: 't1' } },
    markerTimes: {},
    deadlines: {},
    ...over,
  };
}

const frame = (hook: string, event: Record<string, unknown>, method = 'hooks/intercept'): WireRecord => ({
  t: 1,
  hook,
  transport: 'http',
  kind: 'frame',
  method,
  message: { jsonrpc: '2.0', method, params: { event } },
  http: { authorization: { count: 0, matches: false } },
});
const call = (hook: string, step: string): WireRecord =>
  frame(hook, { type: 'tool.before', tool: { name: 'ahp_sentinel', input: { probe: step } } });

const closedPlan: RunPlan = {
  label: 'closed',
  hooks: [
    { name: 'a', oauth: { preset: true }, subscriptions: [intercept(['tool.before'])] },
    { name: 'obs', oauth: { preset: true }, subscriptions: [observe(['tool.after'])] },
  ],
  steps: [tool('t1')],
};
const openPlan: RunPlan = {
  label: 'open',
  hooks: [
    { name: 'p', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
    { name: 'a', oauth: { preset: true }, subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
    { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
  ],
  steps: [tool('t1')],
};

test('the claim decides when given; the manifest otherwise; a disagreement about oauth is named', () => {
  expect(declarationOf(['bearer'], undefined)).toEqual({
    oauth: false,
    source: "the claim's harness.authentication [bearer]",
  });
  expect(declarationOf(undefined, ['bearer', 'oauth'])).toEqual({
    oauth: true,
    source: "the session.start manifest's authentication [bearer, oauth]",
  });
  expect(declarationOf(undefined, undefined).oauth).toBeUndefined();
  const conflict = declarationOf(['bearer'], ['bearer', 'oauth']);
  expect(conflict.oauth).toBe(false);
  expect(conflict.conflict).toContain('disagree about oauth');
  // The same answer about oauth is no conflict, whatever else the lists hold.
  expect(declarationOf(['bearer', 'oauth'], ['oauth']).conflict).toBeUndefined();
});

test('the manifest is read from the first session.start delivered, when it is a list of strings', () => {
  const start = (authentication: unknown): WireRecord =>
    frame('obs', { type: 'session.start', manifest: { authentication } }, 'hooks/observe');
  expect(manifestAuthentication(run({ records: [start(['bearer'])] }))).toEqual(['bearer']);
  expect(manifestAuthentication(run({ records: [start('bearer')] }))).toBeUndefined();
  expect(manifestAuthentication(run({ records: [start([1])] }))).toBeUndefined();
  expect(manifestAuthentication(run())).toBeUndefined();
});

test('a clean refusal: nothing to an oauth-bound hook, and the registration refused or the policy applied', () => {
  // Fail-closed, accepted: the call does not run, nothing reaches a or obs.
  expect(refusalProblems(run(), closedPlan)).toEqual([]);
  // Refused registration: exit 1 or a rejected report, nothing anywhere.
  expect(refusalProblems(run({ exit: { code: 1, signal: null }, report: undefined }), closedPlan)).toEqual([]);
  expect(refusalProblems(run({ report: { registration: 'rejected' } }), openPlan)).toEqual([]);
  // Fail-open, accepted: p and b get the call and it runs.
  expect(
    refusalProblems(
      run({ records: [call('p', 't1'), call('b', 't1')], markers: { t1: { executedInput: {} } } }),
      openPlan,
    ),
  ).toEqual([]);
});

test('an unclean refusal: delivery to an oauth-bound hook, a policy not applied, a refusal that delivers', () => {
  expect(refusalProblems(run({ records: [call('a', 't1')] }), closedPlan)[0]).toContain(
    '1 request(s) reached oauth-bound hook(s) (a), the first with no Authorization header',
  );
  expect(refusalProblems(run({ markers: { t1: { executedInput: {} } } }), closedPlan)[0]).toContain(
    'the "t1" call ran',
  );
  expect(refusalProblems(run({ records: [call('p', 't1')] }), openPlan)).toEqual([
    expect.stringContaining('the "t1" call did not run'),
    'interceptor b never received the "t1" call (fail-open continues the chain)',
  ]);
  expect(refusalProblems(run({ report: { registration: 'rejected' }, records: [call('p', 't1')] }), openPlan)).toEqual([
    'the registration was refused, yet 1 message(s) reached the other hooks',
  ]);
  expect(refusalProblems(run({ timedOut: true }), closedPlan)[0]).toContain('did not finish');
});

test('using the binding is asking the authorization server anything', () => {
  const auth = (n: number): HarnessRun['auth'] => ({
    issuer: 'https://127.0.0.1:1',
    caFile: '/ca.pem',
    tokenLeaks: [],
    records: Array.from({ length: n }, () => ({ t: 0, server: 'main' as const, method: 'GET', path: '/x' })),
  });
  expect(usedOAuth(run({ auth: auth(0) }))).toBe(false);
  expect(usedOAuth(run({ auth: auth(1) }))).toBe(true);
  expect(usedOAuth(run())).toBe(false);
});
