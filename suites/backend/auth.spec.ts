// Endpoint authentication, backend side (AHP-AUTH-001, AHP-SEC-001): a backend whose claim
// says it requires a bearer token or OAuth access tokens (backend.http.auth) refuses whatever
// does not carry a valid token, properly, in its one Authorization header, before it
// processes the event (capability-auth.md@40d064d, "Failure and timing" and "Explicit
// endpoint bindings"), and its 401 says how to authenticate (RFC 9110 11.6.1, RFC 6750
// section 3). The plan runs these checks only for such claims; base.no-secret-leak judges
// that no credential is echoed; suites/backend/oauth.spec.ts has the OAuth-only checks.
import { deliberately, sampleRequest } from '../../src/checks/probes.js';
import { parseChallenges } from '../../src/checks/www-authenticate.js';
import { evidenceOf, harmless, refusal, tokenOf, wrongToken, type Obj, type Probe } from '../support/backend-auth.js';
import { check, test } from '../support/check.js';
import { httpOf } from '../support/expect.js';

test(
  ...check('auth.refuses-unauthenticated', async ({ backend, judge }) => {
    const token = tokenOf(backend, judge);
    const bare = harmless();
    const inQuery = harmless();
    const inBody = harmless();
    (inBody.params as Obj).access_token = token;
    const probes: Probe[] = [
      {
        what: 'no Authorization header',
        sent: bare,
        reply: await backend.request(bare, { authorization: [] }),
      },
      {
        what: 'no Authorization header; the token in the query string (access_token)',
        sent: inQuery,
        reply: await backend.request(deliberately(inQuery, 'the token in the URL, where the binding never puts it'), {
          authorization: [],
          query: { access_token: token },
        }),
      },
      {
        what: 'no Authorization header; the token in the JSON-RPC params (access_token)',
        sent: inBody,
        reply: await backend.request(deliberately(inBody, 'the token in the body, where the binding never puts it'), {
          authorization: [],
        }),
      },
    ];
    const expected =
      'HTTP 401 and no JSON-RPC result for the request without credentials; 400 or 401 and no result for the token outside the Authorization header';
    judge.evidence(evidenceOf(probes, expected));
    const hard = [refusal(probes[0]!, [401]), refusal(probes[2]!, [400, 401])].filter((m) => m !== undefined);
    if (hard.length) return judge.fail(hard.join('; '));
    // RFC 6750 section 2.3 lets a server take a query token, though the AHP bearer binding
    // only ever sends the header: a backend that does is warned, not failed.
    const query = refusal(probes[1]!, [400, 401]);
    if (query)
      judge.warn(
        `${query}; the bearer binding carries the token only in the Authorization header, and a token in a URL ends up in logs`,
      );
  }),
);

test(
  ...check('auth.refuses-wrong-credentials', async ({ backend, claim, judge }) => {
    const token = tokenOf(backend, judge);
    const wrong = wrongToken(backend);
    // The deny sample, where there is one: a processed request would show as its deny.
    const sample = claim.backend!.samples.deny[0];
    const event = (): Obj => (sample ? sampleRequest(sample, 'deny') : harmless());
    const first = event();
    const dup = event();
    const probes: Probe[] = [
      { what: 'a wrong bearer token', sent: first, reply: await backend.request(first, { token: wrong }) },
      {
        what: 'two Authorization headers (a wrong token, then the right one)',
        sent: dup,
        reply: await backend.request(deliberately(dup, 'two Authorization headers'), {
          authorization: [`Bearer ${wrong}`, `Bearer ${token}`],
        }),
      },
    ];
    const oauth = backend.oauth;
    if (oauth) {
      // OAuth: also a well-formed access token that names the runner's issuer, this resource
      // and every scope, signed by a key the issuer never published (a forgery).
      const forged = await oauth.as.forge({ aud: oauth.resource, scope: oauth.scopes.join(' ') });
      const m = event();
      probes.push({
        what: 'a JWT for this resource signed by a key the issuer never published',
        sent: m,
        reply: await backend.request(m, { token: forged }),
      });
      // The same forgery pointing at its own key (RFC 8725 3.10, key confusion): a jwk header,
      // a jku URL whose key set the runner really serves (HTTPS, the run CA: a backend that
      // fetched it could verify the signature), an x5c self-signed certificate. Only the
      // issuer's published keys may verify an access token.
      for (const [how, what] of [
        ['jwk', 'its own public key in a jwk header'],
        ['jku', 'a jku header naming a key set the runner serves'],
        ['x5c', 'a self-signed certificate in an x5c header'],
      ] as const) {
        const token = await oauth.as.forgeWithOwnKey(how, { aud: oauth.resource, scope: oauth.scopes.join(' ') });
        const e = event();
        probes.push({
          what: `a JWT for this resource signed by a key the issuer never published, carrying ${what}`,
          sent: e,
          reply: await backend.request(e, { token }),
        });
      }
      const fetched = oauth.as.records.filter((r) => r.server === 'key-set' && r.status === 200).length;
      if (fetched)
        judge.note(
          `the backend fetched the forged token's jku key set (${fetched} time${fetched === 1 ? '' : 's'}): a jku URL a token names is the forger's to choose`,
        );
    }
    judge.evidence(
      evidenceOf(
        probes,
        'HTTP 401 and no JSON-RPC result for the wrong token (and the forged JWTs); 400 or 401 and no result for the duplicated header',
      ),
    );
    const wrongOnes = [probes[0]!, ...probes.slice(2)].map((p) => refusal(p, [401])).filter((m) => m !== undefined);
    if (wrongOnes.length) return judge.fail(wrongOnes.join('; '));
    // Which of two credentials a server reads is not pinned down anywhere: a backend that
    // picks one is warned (the request is malformed: RFC 9110 5.3), not failed.
    const duplicated = refusal(probes[1]!, [400, 401]);
    if (duplicated) judge.warn(`${duplicated}; a request with two credentials is malformed and should be refused`);
  }),
);

test(
  ...check('auth.refusal-challenge', async ({ backend, judge }) => {
    tokenOf(backend, judge);
    const wrong = wrongToken(backend);
    const bare = harmless();
    const withWrong = harmless();
    const probes: Probe[] = [
      { what: 'no Authorization header', sent: bare, reply: await backend.request(bare, { authorization: [] }) },
      { what: 'a wrong bearer token', sent: withWrong, reply: await backend.request(withWrong, { token: wrong }) },
    ];
    judge.evidence(
      evidenceOf(
        probes,
        'each 401 carries WWW-Authenticate with a Bearer challenge (error="invalid_token" for the wrong token)',
      ),
    );
    const refused = probes.filter((p) => httpOf(p.reply)?.status === 401);
    // Whether the refusal happens at all is the other auth checks' judgement.
    if (refused.length === 0)
      return judge.incomplete(
        'no probe got a 401 to judge (see auth.refuses-unauthenticated, auth.refuses-wrong-credentials)',
      );
    const problems: string[] = [];
    const advice: string[] = [];
    for (const p of refused) {
      const header = httpOf(p.reply)!.headers['www-authenticate'];
      if (header === undefined) {
        problems.push(`${p.what}: HTTP 401 without a WWW-Authenticate header`);
        continue;
      }
      const bearer = parseChallenges(header).find((c) => c.scheme === 'bearer');
      if (!bearer) {
        problems.push(`${p.what}: WWW-Authenticate ${JSON.stringify(header)} has no Bearer challenge`);
        continue;
      }
      if (p === probes[1] && bearer.params.error !== 'invalid_token')
        advice.push(`${p.what}: the Bearer challenge has no error="invalid_token" (RFC 6750 section 3.1)`);
    }
    if (problems.length) return judge.fail(problems.join('; '));
    if (refused.length < probes.length)
      judge.note('only some probes got a 401; the others are judged by the other auth checks');
    if (advice.length) judge.warn(advice.join('; '));
  }),
);
