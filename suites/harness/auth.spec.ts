// Endpoint authentication, harness side (AHP-AUTH-001; capability-auth.md @ 2b5da580,
// "Authentication bindings", "Explicit endpoint bindings", "Failure and timing"). The runner
// plays both the protected hook endpoint and its OAuth authorization server (drivers/auth/),
// over TLS with a per-run CA the adapter config tells the harness to trust. Every judgement
// is of what reached the runner: the authorization server's requests, the hook's frames
// (with the resource's verdict on their credential), markers and the adapter's output.
// The checks that bind hooks with an oauth preset judge an OAuth client only where the
// harness uses the binding; a harness that refuses it is judged by its refusal and by what it
// declares (suites/support/oauth-declaration.ts, issue 24).
import { check, test, type Judge } from '../support/check.js';
import { hookId, intercept, observe, tool, type HarnessRun, type RunPlan } from '../support/harness-session.js';
import { OAUTH_SCOPES } from '../support/harness-auth.js';
import { frames, ran, reportedAs, requireUsable, stepOf, summary } from '../support/harness-observations.js';
import { asSummary, credentialOf, oauthOrRefusal } from '../support/oauth-declaration.js';
import type { Misbehaviour } from '../../drivers/auth/authorization-server.js';
import type { AsRecord } from '../../drivers/auth/authorization-server.js';
import { actToleranceMs, noReplyHoldMs } from '../../src/timing.js';

type Obj = Record<string, unknown>;

const tokenRequests = (run: HarnessRun): AsRecord[] =>
  (run.auth?.records ?? []).filter((r) => r.method === 'POST' && r.path === '/token');

/** Where the secret appears in what the harness wrote or sent, if anywhere. */
function leaks(run: HarnessRun, secret: string): string[] {
  return [
    run.stdout.includes(secret) ? 'adapter stdout' : '',
    run.stderr.includes(secret) ? 'adapter stderr' : '',
    JSON.stringify(run.report ?? {}).includes(secret) ? 'the adapter report' : '',
    frames(run).some((f) => (f.text ?? '').includes(secret)) ? 'an event body' : '',
  ].filter(Boolean);
}

/** Fail-closed and a failed credential: the call must not run. */
function mustNotRun(judge: Judge, run: HarnessRun, step: string, why: string, expected: string): void {
  if (ran(run, step))
    judge.fail(`${why}, yet the call ran (${reportedAs(run, step)}): fail-closed must stop it`, {
      received: { ...summary(run), authorizationServer: asSummary(run) },
      expected,
    });
}

test.describe('auth (harness)', () => {
  test(
    ...check('auth.portable-mechanisms', async ({ harness, judge, spec }) => {
      // Mechanisms that are not portable AHP bindings (deployment-specific or unknown): the
      // document is invalid and must be refused before anything is delivered.
      const others: [string, Obj][] = [
        ['mtls', { type: 'mtls', certificateRef: 'cert', privateKeyRef: 'key', trustRootsRef: 'roots' }],
        [
          'workload',
          {
            type: 'workload',
            profile: 'https://example.invalid/profile',
            credentialRef: 'cred',
            issuer: 'https://example.invalid',
            audience: 'hooks',
          },
        ],
        ['unknown type', { type: 'api-key', keyEnv: 'AHP_CONFORMANCE_KEY' }],
      ];
      const base = (): Pick<RunPlan, 'hooks' | 'steps'> => ({
        hooks: [{ name: 'a', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] }],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      const [control, ...runs] = await harness.runAll([
        { label: 'no authentication (control)', ...base() },
        ...others.map(([name, auth]): RunPlan => ({
          label: `authentication ${name}`,
          ...base(),
          registration: (r) => {
            (r.hooks as Obj[])[0]!.authentication = auth;
            return r;
          },
        })),
      ]);
      requireUsable(judge, control!, ['t1']);
      const failures: string[] = [];
      for (const [i, [name]] of others.entries()) {
        const run = runs[i]!;
        const refused = run.report?.registration === 'rejected' || (run.exit.code !== 0 && run.exit.code !== null);
        const sent = frames(run).length;
        if (!refused || sent > 0) {
          failures.push(
            `${name}: ${refused ? 'refused' : 'accepted'}${sent ? `, and ${sent} message(s) were delivered` : ''}`,
          );
          judge.evidence({ sent: { [name]: run.registration }, received: { [name]: summary(run) } });
        }
      }
      if (failures.length)
        judge.fail(`registrations naming a mechanism other than bearer or oauth were used:\n${failures.join('\n')}`, {
          expected: spec.expectation,
        });
      judge.note(`${others.map(([n]) => n).join(', ')}: refused, nothing delivered`);
    }),
  );

  test(
    ...check('auth.oauth-client-credentials', async ({ harness, judge, spec }) => {
      const plan: RunPlan = {
        label: 'oauth preset, client credentials',
        hooks: [
          { name: 'a', oauth: { preset: true }, subscriptions: [intercept(['tool.before'])] },
          { name: 'obs', oauth: { preset: true }, subscriptions: [observe(['tool.after'])] },
        ],
        steps: [tool('t1', { path: 'one.txt' }), tool('t2', { path: 'two.txt' })],
      };
      const run = await harness.run(plan);
      // A harness that never asks the authorization server is judged by its refusal and by
      // whether it declares oauth; this check reports a declaration it does not keep.
      if ((await oauthOrRefusal(harness, judge, spec, [{ run, plan }], true)) === 'refused') return;
      requireUsable(judge, run, ['t1', 't2']);
      const evidence = {
        received: { ...summary(run), authorizationServer: asSummary(run) },
        expected: spec.expectation,
      };
      const records = run.auth?.records ?? [];
      const discovered = records.some(
        (r) =>
          r.method === 'GET' &&
          (r.path === '/.well-known/oauth-authorization-server' || r.path === '/.well-known/openid-configuration') &&
          r.status === 200,
      );
      if (!discovered)
        judge.fail('the harness never read the authorization server metadata of the preset issuer', evidence);
      const asked = tokenRequests(run);
      if (asked.length === 0) judge.fail('the harness never asked the token endpoint for a token', evidence);
      const resources = new Set(
        ((run.registration as { hooks: { authentication?: { resource?: string } }[] }).hooks ?? []).map(
          (h) => h.authentication?.resource,
        ),
      );
      for (const r of asked) {
        const problems = [
          r.grantType !== 'client_credentials' ? `grant_type ${JSON.stringify(r.grantType)}` : '',
          !r.clientAuthOk ? `client authentication ${r.clientAuth} was not the preset's client and secret` : '',
          r.resource?.length !== 1 || !resources.has(r.resource[0])
            ? `resource ${JSON.stringify(r.resource)} is not exactly one of the registration's resources (RFC 8707)`
            : '',
          (() => {
            const got = new Set((r.scope ?? '').split(' ').filter(Boolean));
            return got.size !== OAUTH_SCOPES.length || OAUTH_SCOPES.some((s) => !got.has(s))
              ? `scope "${r.scope ?? ''}" is not the preset's scopes "${OAUTH_SCOPES.join(' ')}"`
              : '';
          })(),
        ].filter(Boolean);
        if (problems.length) judge.fail(`a token request is wrong: ${problems.join('; ')}`, evidence);
      }
      const sent = frames(run);
      for (const f of sent) {
        const a = f.http?.authorization;
        if (!a || a.count !== 1 || a.bearer?.kind !== 'issued')
          judge.fail(
            `a request to hook ${f.hook}${stepOf(f) ? ` [${stepOf(f)}]` : ''} carried ${credentialOf(f)}`,
            evidence,
          );
      }
      for (const step of ['t1', 't2'])
        if (!frames(run, { hook: 'a' }).some((f) => stepOf(f) === step))
          judge.fail(`interceptor ${hookId('a')} never received the "${step}" call`, evidence);
      const where = leaks(run, harness.clientSecret);
      if (where.length) judge.fail(`the client secret appears in ${where.join(' and ')}`, evidence);
      if (run.auth?.tokenLeaks.length)
        judge.fail(`an access token appears in ${run.auth.tokenLeaks.join(' and ')}`, evidence);
      judge.note(
        `${asked.length} token request(s) with the preset's resource and scopes; ${sent.length} POST(s), each with one valid bearer token`,
      );
    }),
  );

  test(
    ...check('auth.challenge', async ({ harness, judge, spec }) => {
      // No `authentication`: the harness tries without a credential; the endpoint answers 401
      // with a resource_metadata challenge. With no client identity configured the harness
      // cannot get a token: an operational failure (fail-closed: the call does not run), and
      // the event is not sent again unauthenticated. Whether it reads the metadata is noted only.
      const run = await harness.run({
        label: 'no authentication; the endpoint is OAuth-protected (401 challenge)',
        hooks: [{ name: 'a', oauth: { preset: false }, subscriptions: [intercept(['tool.before'])] }],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run);
      const evidence = {
        received: { ...summary(run), authorizationServer: asSummary(run) },
        expected: spec.expectation,
      };
      const sent = frames(run, { hook: 'a' });
      if (sent.length === 0)
        judge.fail(
          'the harness never tried the endpoint (without a binding it must attempt it without a credential)',
          evidence,
        );
      // A retry with a valid token of the run issuer would be a legitimate authentication
      // retry (none is expected: no identity is configured); any other credential is not.
      const credentialed = sent.filter((f) => (f.http?.authorization?.count ?? 0) > 0);
      const foreign = credentialed.filter((f) => f.http?.authorization?.bearer?.kind !== 'issued');
      if (foreign.length)
        judge.fail(`with no identity configured, a request carried ${credentialOf(foreign[0]!)}`, evidence);
      const firstRefusal = run.records.find((r) => r.kind === 'reply' && r.hook === 'a' && r.http?.status === 401);
      const after = firstRefusal
        ? sent.filter((f) => f.t > firstRefusal.t && (f.http?.authorization?.count ?? 0) === 0)
        : [];
      if (after.length)
        judge.fail(
          `after the 401 challenge the event was sent ${after.length} more time(s) without a credential`,
          evidence,
        );
      if (credentialed.length > foreign.length)
        judge.note(
          'the harness obtained a valid token after the challenge and retried with it (an authentication retry)',
        );
      else mustNotRun(judge, run, 't1', 'the endpoint refused the unauthenticated request', spec.expectation);
      const metadata = run.records.filter((r) => r.kind === 'metadata').length;
      judge.note(
        `one unauthenticated attempt, 401, nothing sent after it; the harness read the protected-resource metadata ${metadata} time(s)`,
      );
    }),
  );

  test(
    ...check('auth.token-validation', async ({ harness, judge, spec }) => {
      const cases: [Misbehaviour, string][] = [
        ['untrusted-certificate', 'the authorization server presents a certificate of another CA'],
        ['issuer-mismatch', 'the metadata names another issuer'],
        ['narrow-scope', 'the token grants fewer scopes than asked'],
        ['expired', 'the token is expired (exp in the past, expires_in 0)'],
        ['redirect', 'the token endpoint redirects (307) to another origin'],
      ];
      const plans = cases.map(([m, what]): RunPlan => ({
        label: `oauth preset; ${what}`,
        auth: { misbehaviour: m },
        hooks: [{ name: 'a', oauth: { preset: true }, subscriptions: [intercept(['tool.before'])] }],
        steps: [tool('t1', { path: 'notes.txt' })],
      }));
      const runs = await harness.runAll(plans);
      // Asking the authorization server in any case is using the binding (with another CA's
      // certificate an OAuth client asks nothing the server can see).
      const refusals = runs.map((run, i) => ({ run, plan: plans[i]! }));
      if ((await oauthOrRefusal(harness, judge, spec, refusals)) === 'refused') return;
      const failures: string[] = [];
      for (const [i, [m, what]] of cases.entries()) {
        const run = runs[i]!;
        requireUsable(judge, run);
        // Only credentialed requests are this check's business (an unauthenticated one is auth.no-fallback's).
        const used = frames(run, { hook: 'a' }).filter((f) => (f.http?.authorization?.count ?? 0) > 0);
        const followed = (run.auth?.records ?? []).filter((r) => r.server === 'redirect-target');
        const problems = [
          used.length ? `${used.length} request(s) reached the backend with ${credentialOf(used[0]!)}` : '',
          followed.length ? 'the client followed the redirect to another origin' : '',
          ran(run, 't1') ? `the call ran (${reportedAs(run, 't1')}) although fail-closed` : '',
        ].filter(Boolean);
        if (problems.length) {
          failures.push(`${m} (${what}): ${problems.join('; ')}`);
          judge.evidence({ received: { [m]: { ...summary(run), authorizationServer: asSummary(run) } } });
        }
      }
      if (failures.length)
        judge.fail(`a token that must be refused was used, or the call ran:\n${failures.join('\n')}`, {
          expected: spec.expectation,
        });
      judge.note(`${cases.map(([m]) => m).join(', ')}: nothing reached the backend, the call did not run`);
      // A token issued for another resource is not among the cases: a client sees a token's
      // audience only by reading the access token, which RFC 9068 (section 6) tells clients not
      // to rely on, so a harness that treats tokens as opaque would fail for reading the standard
      // right. The backend refuses such a token (drivers/auth/resource.ts), and auth.no-fallback
      // judges what the harness does after a refusal.
    }),
  );

  test(
    ...check('auth.no-fallback', async ({ harness, judge, spec }) => {
      const plan: RunPlan = {
        label: 'oauth preset; the authorization server refuses the client',
        auth: { misbehaviour: 'reject-client' },
        hooks: [
          { name: 'a', oauth: { preset: true }, subscriptions: [intercept(['tool.before'])] },
          { name: 'obs', oauth: { preset: true }, subscriptions: [observe(['tool.after'])] },
        ],
        steps: [tool('t1', { path: 'notes.txt' })],
      };
      const run = await harness.run(plan);
      if ((await oauthOrRefusal(harness, judge, spec, [{ run, plan }])) === 'refused') return;
      requireUsable(judge, run);
      const evidence = {
        received: { ...summary(run), authorizationServer: asSummary(run) },
        expected: spec.expectation,
      };
      const sent = frames(run);
      if (tokenRequests(run).length === 0 && sent.length === 0)
        judge.incomplete(
          'the harness never asked for a token, so no failed credential was there to fall back from',
          evidence,
        );
      for (const f of sent)
        judge.fail(
          `after the credential failed, a request to hook ${f.hook} was sent with ${credentialOf(f)}`,
          evidence,
        );
      mustNotRun(judge, run, 't1', 'no token could be obtained', spec.expectation);
      judge.note(`${tokenRequests(run).length} token request(s) refused; nothing was sent; the call did not run`);
    }),
  );

  test(
    ...check('auth.acquisition-deadline', async ({ harness, judge, spec }) => {
      // Chain p (plain), a (oauth; the token endpoint stalls), b (plain), all fail-open.
      // Normal turnaround: p's reply -> the harness's next act (its first request to the
      // authorization server). The stalled acquisition: from that first request, b's call must
      // come within a's deadline plus the tolerance from those turnarounds (the deadline
      // started at dispatch, before that request, so this is the lenient reading).
      await harness.prepare();
      const deadline = harness.registeredTimeoutMs(undefined);
      const steps = ['t1', 't2'];
      const plan: RunPlan = {
        label: `oauth preset; the token endpoint answers only after ${noReplyHoldMs(deadline)} ms`,
        auth: { misbehaviour: 'stall', stallMs: noReplyHoldMs(deadline) },
        hooks: [
          { name: 'p', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
          {
            name: 'a',
            oauth: { preset: true },
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
          },
          { name: 'b', subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })] },
        ],
        steps: steps.map((id) => tool(id, { path: `${id}.txt` })),
      };
      const run = await harness.run(plan);
      // A refusal of a's binding: fail-open, so p and b are called and the calls run.
      if ((await oauthOrRefusal(harness, judge, spec, [{ run, plan }])) === 'refused') return;
      requireUsable(judge, run, steps);
      const evidence = {
        received: { ...summary(run), authorizationServer: asSummary(run) },
        expected: spec.expectation,
      };
      const limitOf = harness.deadlineOf(run, 'a');
      const asTimes = (run.auth?.records ?? []).map((r) => r.t).sort((x, y) => x - y);
      const samples: number[] = [];
      const starts: Record<string, number | undefined> = {};
      for (const step of steps) {
        const reply = run.records.find((r) => r.kind === 'reply' && r.hook === 'p' && r.step === step);
        const first = reply ? asTimes.find((t) => t >= reply.t) : undefined;
        starts[step] = first;
        if (reply && first !== undefined) samples.push(first - reply.t);
      }
      if (samples.length === 0)
        judge.incomplete(
          'the harness never asked the authorization server after p replied, so its acquisition could not be timed',
          evidence,
        );
      const tolerance = actToleranceMs(samples);
      const limit = limitOf + tolerance;
      for (const step of steps) {
        const start = starts[step];
        if (start === undefined) continue;
        const next = frames(run, { hook: 'b' }).find((f) => stepOf(f) === step);
        if (!next) {
          judge.fail(
            `after a's token acquisition stalled, interceptor b never received the "${step}" call (${reportedAs(run, step)})`,
            evidence,
          );
          continue;
        }
        const took = next.t - start;
        if (took > limit)
          judge.fail(
            `b's "${step}" call came ${Math.round(took)} ms after the harness began acquiring a's token; a's deadline is ${limitOf} ms, tolerance ${tolerance} ms (src/timing.ts, from ${samples.length} turnaround(s) measured in the run): acquisition was not bounded by the dispatch deadline`,
            evidence,
          );
        if (!ran(run, step))
          judge.fail(`the "${step}" call did not run (${reportedAs(run, step)}): fail-open must let it run`, evidence);
      }
      judge.note(
        `deadline ${limitOf} ms, tolerance ${tolerance} ms; the stalled acquisition ended in time and fail-open applied`,
      );
    }),
  );
});
