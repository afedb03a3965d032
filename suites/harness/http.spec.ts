// HTTP binding, harness side: one JSON POST per message to the exact URL, no redirects,
// and the bearer token in exactly one header and nowhere else.
import { check, test } from '../support/check.js';
import { TYPICAL_TOOL_STEPS, typicalSession } from '../support/harness-scenarios.js';
import { hookId, intercept, observe, tool, type HarnessRun } from '../support/harness-session.js';
import { frames, ran, reportedAs, requireUsable, summary } from '../support/harness-observations.js';
import { HOOK_QUERY } from '../../drivers/scripted-backend/http-server.js';

test.describe('http (harness)', () => {
  test(
    ...check('http.no-redirect', async ({ harness, judge, spec }) => {
      const run = await harness.run({
        label: 'intercept answered with 307 to a denying target, fail-open',
        hooks: [
          {
            name: 'a',
            subscriptions: [intercept(['tool.before'], { failurePolicy: 'fail-open' })],
            script: { intercept: [{ none: true, http: { status: 307, location: '{redirect}' } }] },
          },
        ],
        steps: [tool('t1', { path: 'notes.txt' })],
      });
      requireUsable(judge, run, ['t1']);
      const followed = frames(run).filter((f) => f.http?.url?.startsWith('/redirected/'));
      if (followed.length)
        judge.fail(`the harness followed the redirect: ${followed.length} request(s) reached the redirect target`, {
          received: summary(run),
          expected: spec.expectation,
        });
      if (!ran(run, 't1'))
        judge.fail(`the call did not run (${reportedAs(run, 't1')}): a 307 under fail-open must let it run`, {
          received: summary(run),
          expected: spec.expectation,
        });
    }),
  );

  test(
    ...check('http.bearer', async ({ harness, judge, spec }) => {
      // With the token, and (an unset variable) without: both runs at once.
      const [run, unset] = (await harness.runAll([
        {
          label: 'bearer authentication from tokenEnv',
          hooks: [
            { name: 'a', bearer: true, subscriptions: [intercept(['tool.before'])] },
            { name: 'obs', bearer: true, subscriptions: [observe(['tool.after'])] },
          ],
          steps: [tool('t1', { path: 'notes.txt' })],
        },
        {
          label: 'tokenEnv names an unset variable, fail-closed',
          hooks: [{ name: 'a', bearer: true, subscriptions: [intercept(['tool.before'])] }],
          steps: [tool('t1', { path: 'notes.txt' })],
          registration: (r) => {
            ((r.hooks as Record<string, unknown>[])[0]!.authentication as Record<string, unknown>).tokenEnv =
              'AHP_CONFORMANCE_UNSET_TOKEN';
            return r;
          },
        },
      ])) as [HarnessRun, HarnessRun];
      requireUsable(judge, run, ['t1']);
      const all = frames(run);
      if (all.length === 0) judge.fail('no request reached the scripted backend', { received: summary(run) });
      for (const f of all) {
        const a = f.http?.authorization;
        if (!a || a.count !== 1)
          return judge.fail(`a request to hook ${f.hook} has ${a?.count ?? 0} Authorization headers`, {
            received: f.http,
            expected: spec.expectation,
          });
        if (!a.matches)
          judge.fail(
            `a request to hook ${f.hook} has an Authorization header that is not "Bearer <the token from tokenEnv>"`,
            { received: f.http, expected: spec.expectation },
          );
        if (f.secretSeen)
          judge.fail(`the token appears in the body of a request to hook ${f.hook}`, {
            received: f.text,
            expected: spec.expectation,
          });
      }
      const where = [
        run.stdout.includes(harness.token) ? 'adapter stdout' : '',
        run.stderr.includes(harness.token) ? 'adapter stderr' : '',
        JSON.stringify(run.report ?? {}).includes(harness.token) ? 'the adapter report' : '',
      ].filter(Boolean);
      if (where.length) judge.fail(`the token appears in ${where.join(' and ')}`, { expected: spec.expectation });

      // An unset variable: fail before sending, never an unauthenticated request.
      const sent = frames(unset).filter((f) => f.hook === 'a');
      // (Whether the call then runs is the failure policy's business, judged by ti.failure-policy.)
      if (sent.length)
        judge.fail(
          `with the token variable unset, ${sent.length} request(s) were sent (${sent[0]!.http?.authorization?.count ?? 0} Authorization headers)`,
          { received: summary(unset), expected: 'no request without the credential; the failure policy decides' },
        );
      judge.note(`the token reached ${hookId('a')} and ${hookId('obs')} only in the Authorization header`);
    }),
  );
});
