// OAuth-protected backends (AHP-AUTH-001, AHP-SEC-001; capability-auth.md@40d064d, "HTTP
// without an explicit binding" and "Failure and timing"): the runner is the one authorization
// server the backend trusts (drivers/auth/, started per check by the session). A protected
// server publishes RFC 9728 metadata naming its resource and that issuer, found through the
// 401 challenge or the well-known locations; it accepts only tokens bound to it (RFC 8707
// audience), unexpired, of its issuer, with the scopes its claim names. The plan runs these
// checks only for claims with backend.http.auth type oauth; suites/backend/auth.spec.ts
// judges the refusals every protected backend owes.
import { getUrl, type HttpOutcome } from '../../drivers/http.js';
import { parseChallenges } from '../../src/checks/www-authenticate.js';
import { isObject } from '../../src/protocol/json.js';
import { evidenceOf, harmless, processed, tokenOf, type Probe } from '../support/backend-auth.js';
import type { BackendSession } from '../support/backend-session.js';
import { check, test, type Judge } from '../support/check.js';
import { describeReply, httpOf, received } from '../support/expect.js';

const PRM_PATH = '/.well-known/oauth-protected-resource';

/** The session's OAuth context; a check without one cannot judge. */
function oauthOf(backend: BackendSession, judge: Judge): NonNullable<BackendSession['oauth']> {
  if (!backend.oauth) judge.incomplete('the runner started no authorization server for this backend');
  return backend.oauth!;
}

/** What one metadata fetch got, for the evidence (no credential was sent). */
function fetched(url: string, out: HttpOutcome): Record<string, unknown> {
  if (!out.ok) return { url, error: `${out.error}: ${out.message}` };
  return {
    url,
    status: out.reply.status,
    contentType: out.reply.headers['content-type'],
    body: out.reply.text.length > 4096 ? `${out.reply.text.slice(0, 4096)}…` : out.reply.text,
  };
}

test(
  ...check('auth.resource-metadata', async ({ backend, judge }) => {
    const { as, resource } = oauthOf(backend, judge);
    const endpoint = new URL(resource);
    const bare = harmless();
    const reply = await backend.request(bare, { authorization: [] });
    const status = httpOf(reply)?.status;
    const header = status === 401 ? httpOf(reply)!.headers['www-authenticate'] : undefined;
    const bearer = header === undefined ? undefined : parseChallenges(header).find((c) => c.scheme === 'bearer');
    const pointed = bearer?.params.resource_metadata;
    // RFC 9728 3.1: the path-specific location first, then the origin's.
    const wellKnown = [
      ...(endpoint.pathname === '/' ? [] : [`${endpoint.origin}${PRM_PATH}${endpoint.pathname}`]),
      `${endpoint.origin}${PRM_PATH}`,
    ];
    const gets: Record<string, unknown>[] = [];
    const expected = `a JSON object, fetched without credentials from the 401's resource_metadata URL or else the well-known locations (${wellKnown.join(', then ')}), with resource ${JSON.stringify(resource)} and authorization_servers holding ${JSON.stringify(as.issuer)}`;
    const evidence = () => ({
      sent: { probe: { what: 'no Authorization header', message: bare }, metadataRequests: gets.map((g) => g.url) },
      received: { reply: received(reply), metadata: gets },
      expected,
    });
    let candidates = wellKnown;
    if (pointed !== undefined) {
      let target: URL;
      try {
        target = new URL(pointed);
      } catch {
        return judge.fail(`the challenge's resource_metadata ${JSON.stringify(pointed)} is not a URL`, evidence());
      }
      // A hostile implementation's URL is fetched only where the endpoint is.
      if (target.origin !== endpoint.origin)
        return judge.incomplete(
          `the challenge's resource_metadata ${JSON.stringify(pointed)} is on another origin than the endpoint; the runner fetches only from the endpoint's`,
          evidence(),
        );
      candidates = [target.href];
    }
    let found: { url: string; text: string; contentType: string | undefined } | undefined;
    for (const url of candidates) {
      const out = await getUrl(url, { timeoutMs: backend.patience, transcript: backend.transcript });
      gets.push(fetched(url, out));
      if (out.ok && out.reply.status === 200) {
        found = { url, text: out.reply.text, contentType: out.reply.headers['content-type'] };
        break;
      }
    }
    judge.evidence(evidence());
    // The runner follows no redirect (a hostile server could point anywhere): a redirect it
    // did not follow is not a missing document.
    const redirected = gets.find((g) => typeof g.status === 'number' && g.status >= 300 && g.status < 400);
    if (!found && redirected)
      return judge.incomplete(
        `${String(redirected.url)} answered HTTP ${String(redirected.status)}; the runner follows no redirects, so it cannot judge the metadata`,
      );
    if (!found)
      return judge.fail(
        pointed !== undefined
          ? `the challenge's resource_metadata ${pointed} did not serve the metadata (${describe(gets[0]!)})`
          : `the 401 ${status === 401 ? 'has no resource_metadata' : `was not given (${describeReply(reply)})`} and no well-known location serves metadata (${gets.map(describe).join('; ')})`,
      );
    let doc: unknown;
    try {
      doc = JSON.parse(found.text);
    } catch {
      return judge.fail(`${found.url} is not JSON`);
    }
    if (!isObject(doc)) return judge.fail(`${found.url} is not a JSON object`);
    const problems: string[] = [];
    // RFC 9728 3.3: identical to the identifier the metadata was looked up for.
    if (doc.resource !== resource)
      problems.push(`resource is ${JSON.stringify(doc.resource)}, not the endpoint ${JSON.stringify(resource)}`);
    const servers = doc.authorization_servers;
    if (!Array.isArray(servers) || !servers.includes(as.issuer))
      problems.push(
        `authorization_servers ${JSON.stringify(servers)} does not hold the runner's issuer ${JSON.stringify(as.issuer)}`,
      );
    if (problems.length) return judge.fail(`${found.url}: ${problems.join('; ')}`);
    if (!/^application\/json\b/i.test(found.contentType ?? ''))
      judge.warn(`${found.url} is served as ${JSON.stringify(found.contentType)}, not application/json (RFC 9728 3.2)`);
    judge.note(
      `${pointed !== undefined ? 'found through the challenge' : 'found at a well-known location'}: ${found.url}`,
    );
  }),
);

function describe(g: Record<string, unknown>): string {
  return `${String(g.url)}: ${g.error !== undefined ? String(g.error) : `HTTP ${String(g.status)}`}`;
}

test(
  ...check('auth.token-binding', async ({ backend, judge }) => {
    const { as, resource, scopes } = oauthOf(backend, judge);
    tokenOf(backend, judge);
    // With the right token the event is processed; otherwise a refusal below shows nothing.
    const control = harmless();
    const controlReply = await backend.request(control);
    if (!processed(controlReply))
      return judge.incomplete(
        `the backend did not process an intercept carrying the runner's valid token (${describeReply(controlReply)}), so a refusal would not show what it checks`,
        { sent: control, received: received(controlReply), expected: 'a JSON-RPC result' },
      );
    const scope = scopes.join(' ');
    const u = new URL(resource);
    const other = `${u.origin}${u.pathname.replace(/\/?$/, '-other')}`;
    const nowS = Math.floor(Date.now() / 1000);
    const cases: { what: string; token: string; scope?: true }[] = [
      {
        what: `a token of the runner's issuer for another resource (aud ${other})`,
        token: await as.mint({ aud: other, scope }),
      },
      // An hour past: far beyond any clock leeway a verifier allows.
      { what: 'an expired token (exp an hour ago)', token: await as.mint({ aud: resource, scope, expS: nowS - 3600 }) },
      {
        what: `a token whose iss is another issuer (${as.issuer}/other-issuer), signed with the trusted key`,
        token: await as.mint({ aud: resource, scope, iss: `${as.issuer}/other-issuer` }),
      },
      // RFC 9068 4: a resource server takes only typ at+jwt (application/at+jwt, compared as
      // a media type); a JWT of the same issuer typed otherwise (an ID token's "JWT") is no
      // access token. RFC 8707 / RFC 9068 4: the audience must name this resource, so a token
      // without one is bound to nothing.
      {
        what: 'a token of the runner\'s issuer for this resource whose JOSE header typ is "JWT", not at+jwt',
        token: await as.mint({ aud: resource, scope, typ: 'JWT' }),
      },
      { what: "a token of the runner's issuer without an aud claim", token: await as.mint({ aud: null, scope }) },
    ];
    if (scopes.length)
      cases.push({
        what: `a token without the required scope ${scopes[scopes.length - 1]!}`,
        token: await as.mint({ aud: resource, scope: scopes.slice(0, -1).join(' ') }),
        scope: true,
      });
    const probes: (Probe & { scope?: true })[] = [];
    for (const c of cases) {
      const m = harmless();
      probes.push({
        what: c.what,
        sent: m,
        reply: await backend.request(m, { token: c.token }),
        ...(c.scope ? { scope: true } : {}),
      });
    }
    judge.evidence(
      evidenceOf(
        probes,
        'each gets a 4xx and no JSON-RPC result: 401 with error="invalid_token" recommended; for the missing scope 403 with error="insufficient_scope" (401 tolerated)',
      ),
    );
    const problems: string[] = [];
    const advice: string[] = [];
    for (const p of probes) {
      const http = httpOf(p.reply);
      if (processed(p.reply)) {
        problems.push(`${p.what}: the backend processed it (HTTP ${http?.status ?? '?'} with a JSON-RPC result)`);
        continue;
      }
      if (!http) {
        problems.push(`${p.what}: no HTTP response (${describeReply(p.reply)})`);
        continue;
      }
      if (http.status < 400 || http.status > 499) {
        problems.push(`${p.what}: HTTP ${http.status}, not a refusal (4xx)`);
        continue;
      }
      const bearer = parseChallenges(http.headers['www-authenticate'] ?? '').find((c) => c.scheme === 'bearer');
      const error = bearer?.params.error;
      if (p.scope) {
        if (http.status !== 403 || error !== 'insufficient_scope')
          advice.push(
            `${p.what}: HTTP ${http.status}${error ? ` error="${error}"` : ''}; 403 with error="insufficient_scope" is recommended (RFC 6750 3.1)`,
          );
      } else if (http.status !== 401 || error !== 'invalid_token')
        advice.push(
          `${p.what}: HTTP ${http.status}${error ? ` error="${error}"` : ''}; 401 with error="invalid_token" is recommended (RFC 6750 3.1)`,
        );
    }
    if (problems.length) return judge.fail(problems.join('; '));
    if (advice.length) judge.warn(advice.join('; '));
    judge.note(`${probes.length} tokens the backend must not accept were refused`);
  }),
);
