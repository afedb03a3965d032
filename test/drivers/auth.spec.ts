// drivers/auth: the per-run CA's chain validates with Node's own TLS and X509Certificate,
// the authorization server's metadata and tokens are what the harness checks rely on, and
// each scripted misbehaviour shows; the protected resource's verdicts and challenge.
import { test, expect } from '@playwright/test';
import { X509Certificate } from 'node:crypto';
import { Agent, request } from 'undici';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JSONWebKeySet } from 'jose';
import { createRunCa } from '../../drivers/auth/ca.js';
import { AuthorizationServer, type AsOptions } from '../../drivers/auth/authorization-server.js';
import { challenge, metadataUrl, verifyBearer, type Protection } from '../../drivers/auth/resource.js';

const CLIENT = { clientId: 'client-1', clientSecret: 'secret-1' };
const RESOURCE = 'http://127.0.0.1:9/hooks/a';
const SCOPES = ['s1', 's2'];

async function withAs(
  opts: Partial<AsOptions>,
  body: (as: AuthorizationServer, agent: Agent, caPem: string) => Promise<void>,
): Promise<void> {
  const ca = await createRunCa();
  const as = await AuthorizationServer.start({ ca, ...CLIENT, ...opts });
  const agent = new Agent({ connect: { ca: ca.certPem } });
  try {
    await body(as, agent, ca.certPem);
  } finally {
    await agent.close();
    await as.close();
  }
}

async function tokenRequest(
  as: AuthorizationServer,
  agent: Agent,
  form: Record<string, string>,
  auth = `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`,
): Promise<{ status: number; json: Record<string, unknown>; location?: string }> {
  const res = await request(`${as.issuer}/token`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: res.statusCode,
    json: (await res.body.json()) as Record<string, unknown>,
    location: res.headers.location as string | undefined,
  };
}

const ask = { grant_type: 'client_credentials', resource: RESOURCE, scope: SCOPES.join(' ') };
const protection = (as: AuthorizationServer): Protection => ({
  issuer: as.issuer,
  jwk: as.publicJwk,
  scopes: SCOPES,
  issued: () => as.issuedIds(),
});

test('the run CA signs a leaf for 127.0.0.1 that Node verifies; another CA does not', async () => {
  const ca = await createRunCa();
  const other = await createRunCa();
  const leaf = new X509Certificate((await ca.issueServer()).cert);
  const root = new X509Certificate(ca.certPem);
  expect(root.ca).toBe(true);
  expect(leaf.ca).toBe(false);
  expect(leaf.checkIssued(root)).toBe(true);
  expect(leaf.verify(root.publicKey)).toBe(true);
  expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(leaf.checkHost('localhost')).toBe('localhost');
  expect(leaf.verify(new X509Certificate(other.certPem).publicKey)).toBe(false);
  // Only the certificate is PEM-exported; no key material in it.
  expect(ca.certPem).not.toMatch(/PRIVATE KEY/);
});

test('metadata over TLS trusted through the run CA; the same request fails without it', async () => {
  await withAs({}, async (as, agent) => {
    const res = await request(`${as.issuer}/.well-known/oauth-authorization-server`, { dispatcher: agent });
    const meta = (await res.body.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(as.issuer);
    expect(meta.token_endpoint).toBe(`${as.issuer}/token`);
    expect(meta.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
    const oidc = await request(`${as.issuer}/.well-known/openid-configuration`, { dispatcher: agent });
    expect(((await oidc.body.json()) as Record<string, unknown>).issuer).toBe(as.issuer);
    const untrusting = new Agent();
    await expect(request(`${as.issuer}/jwks`, { dispatcher: untrusting })).rejects.toThrow();
    await untrusting.close();
  });
});

test('client credentials: a JWT for the resource with the scopes, basic or post; wrong secrets refused; recorded without secrets', async () => {
  await withAs({}, async (as, agent) => {
    const ok = await tokenRequest(as, agent, ask);
    expect(ok.status).toBe(200);
    expect(ok.json.token_type).toBe('Bearer');
    const claims = decodeJwt(String(ok.json.access_token));
    expect(claims.aud).toBe(RESOURCE);
    expect(claims.iss).toBe(as.issuer);
    expect(claims.scope).toBe('s1 s2');
    expect(Number(claims.exp)).toBeGreaterThan(Date.now() / 1000);
    const post = await tokenRequest(
      as,
      agent,
      { ...ask, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
      '',
    );
    expect(post.status).toBe(200);
    const bad = await tokenRequest(as, agent, ask, `Basic ${Buffer.from('client-1:nope').toString('base64')}`);
    expect(bad.status).toBe(401);
    expect(as.records.map((r) => r.clientAuth).filter(Boolean)).toEqual(['basic', 'post', 'basic']);
    expect(as.records.map((r) => r.clientAuthOk).filter((x) => x !== undefined)).toEqual([true, true, false]);
    expect(JSON.stringify(as.records)).not.toContain(CLIENT.clientSecret);
    expect(JSON.stringify(as.records)).not.toContain(String(ok.json.access_token));
    expect(await verifyBearer([`Bearer ${String(ok.json.access_token)}`], RESOURCE, protection(as))).toMatchObject({
      kind: 'issued',
    });
  });
});

test("a resource server's probes: a token typed JWT, one without aud, and forgeries that verify with the key they carry", async () => {
  await withAs({}, async (as, agent) => {
    const scope = SCOPES.join(' ');
    const typed = await as.mint({ aud: RESOURCE, scope, typ: 'JWT' });
    expect(decodeProtectedHeader(typed).typ).toBe('JWT');
    const noAud = await as.mint({ aud: null, scope });
    expect(decodeJwt(noAud).aud).toBeUndefined();
    const opts = { issuer: as.issuer, audience: RESOURCE, typ: 'at+jwt', algorithms: ['ES256'] };
    const jwk = await as.forgeWithOwnKey('jwk', { aud: RESOURCE, scope });
    expect((await jwtVerify(jwk, EmbeddedJWK, opts)).payload.scope).toBe(scope);
    // The jku key set is served over TLS of the run CA, on another origin than the issuer's.
    const jku = await as.forgeWithOwnKey('jku', { aud: RESOURCE, scope });
    const url = String(decodeProtectedHeader(jku).jku);
    expect(new URL(url).origin).not.toBe(as.issuer);
    const set = (await (await request(url, { dispatcher: agent })).body.json()) as JSONWebKeySet;
    expect((await jwtVerify(jku, createLocalJWKSet(set), opts)).payload.iss).toBe(as.issuer);
    expect(as.records.filter((r) => r.server === 'key-set' && r.status === 200)).toHaveLength(1);
    const x5c = await as.forgeWithOwnKey('x5c', { aud: RESOURCE, scope });
    const cert = new X509Certificate(Buffer.from(String(decodeProtectedHeader(x5c).x5c![0]), 'base64'));
    expect(cert.verify(cert.publicKey)).toBe(true); // self-signed
    expect((await jwtVerify(x5c, cert.publicKey, opts)).payload.aud).toBe(RESOURCE);
    // The runner's own protected resource (the scripted backend's) refuses each of them.
    for (const token of [typed, noAud, jwk, jku, x5c])
      expect((await verifyBearer([`Bearer ${token}`], RESOURCE, protection(as))).kind).toBe('invalid');
  });
});

test('misbehaviours: issuer, audience, scope, expiry, redirect, rejected client', async () => {
  await withAs({ misbehaviour: 'issuer-mismatch' }, async (as, agent) => {
    const res = await request(`${as.issuer}/.well-known/oauth-authorization-server`, { dispatcher: agent });
    expect(((await res.body.json()) as Record<string, unknown>).issuer).not.toBe(as.issuer);
  });
  await withAs({ misbehaviour: 'wrong-audience' }, async (as, agent) => {
    const t = await tokenRequest(as, agent, ask);
    expect(decodeJwt(String(t.json.access_token)).aud).not.toBe(RESOURCE);
    const v = await verifyBearer([`Bearer ${String(t.json.access_token)}`], RESOURCE, protection(as));
    expect(v.kind).toBe('invalid');
    expect(v.jti).toBeDefined();
  });
  await withAs({ misbehaviour: 'narrow-scope' }, async (as, agent) => {
    const t = await tokenRequest(as, agent, ask);
    expect(t.json.scope).toBe('s1');
    const v = await verifyBearer([`Bearer ${String(t.json.access_token)}`], RESOURCE, protection(as));
    expect(v.why).toMatch(/insufficient scope/);
  });
  await withAs({ misbehaviour: 'expired' }, async (as, agent) => {
    const t = await tokenRequest(as, agent, ask);
    expect(t.json.expires_in).toBe(0);
    expect(Number(decodeJwt(String(t.json.access_token)).exp)).toBeLessThan(Date.now() / 1000);
  });
  await withAs({ misbehaviour: 'redirect' }, async (as, agent) => {
    const t = await tokenRequest(as, agent, ask);
    expect(t.status).toBe(307);
    expect(new URL(t.location!).origin).not.toBe(as.issuer);
  });
  await withAs({ misbehaviour: 'reject-client' }, async (as, agent) => {
    expect((await tokenRequest(as, agent, ask)).status).toBe(401);
  });
});

test('untrusted-certificate: the server is not trusted through the run CA', async () => {
  await withAs({ misbehaviour: 'untrusted-certificate' }, async (as, agent) => {
    await expect(request(`${as.issuer}/jwks`, { dispatcher: agent })).rejects.toThrow();
    expect(as.records).toEqual([]);
  });
});

test('stall: the token endpoint answers only after stallMs', async () => {
  await withAs({ misbehaviour: 'stall', stallMs: 400 }, async (as, agent) => {
    const t0 = Date.now();
    expect((await tokenRequest(as, agent, ask)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
  });
});

test('the protected resource: no credential, a foreign token, two headers; the challenge names the metadata', async () => {
  await withAs({}, async (as) => {
    const p = protection(as);
    expect(await verifyBearer([], RESOURCE, p)).toEqual({ kind: 'none' });
    expect((await verifyBearer(['Bearer abc.def.ghi'], RESOURCE, p)).kind).toBe('invalid');
    expect((await verifyBearer(['Bearer a', 'Bearer b'], RESOURCE, p)).why).toMatch(/2 Authorization/);
    expect(metadataUrl(RESOURCE)).toBe('http://127.0.0.1:9/.well-known/oauth-protected-resource/hooks/a');
    expect(challenge(RESOURCE, p)).toBe(
      'Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/hooks/a", scope="s1 s2"',
    );
  });
});
