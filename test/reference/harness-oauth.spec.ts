// The reference harness's OAuth client (reference/harness/oauth.ts) against the runner's
// authorization server: it gets a resource-bound token and caches it, and refuses every
// scripted misbehaviour; its deadline bounds a stalled acquisition.
import { NO_FAULT } from '../../reference/harness/faults.js';
import { test, expect } from '@playwright/test';
import { createRunCa } from '../../drivers/auth/ca.js';
import { AuthorizationServer, type Misbehaviour } from '../../drivers/auth/authorization-server.js';
import { OAuthClient, metadataUrls, resolveSecretRef } from '../../reference/harness/oauth.js';

const ENV = 'AHP_TEST_OAUTH_SECRET';
const RESOURCE = 'http://127.0.0.1:9/hooks/a';

async function attempt(misbehaviour: Misbehaviour | undefined, deadlineMs = 5000, stallMs?: number) {
  const ca = await createRunCa();
  const as = await AuthorizationServer.start({ ca, clientId: 'c', clientSecret: 's3cret', misbehaviour, stallMs });
  process.env[ENV] = 's3cret';
  const client = new OAuthClient(ca.certPem, NO_FAULT);
  const preset = {
    type: 'oauth',
    issuer: as.issuer,
    resource: RESOURCE,
    clientId: 'c',
    clientSecretRef: `env:${ENV}`,
    flow: 'client_credentials',
    scopes: ['x', 'y'],
  };
  try {
    const first = await client.token(preset, deadlineMs);
    const second = first.ok ? await client.token(preset, deadlineMs) : undefined;
    return { first, second, records: [...as.records] };
  } finally {
    await client.close();
    await as.close();
  }
}

test('a token for the resource with the scopes, by client_secret_basic, cached for the next dispatch', async () => {
  const { first, second, records } = await attempt(undefined);
  expect(first.ok).toBe(true);
  expect(second).toEqual(first);
  const token = records.filter((r) => r.path === '/token');
  expect(token).toHaveLength(1);
  expect(token[0]).toMatchObject({ clientAuth: 'basic', clientAuthOk: true, resource: [RESOURCE], scope: 'x y' });
});

for (const m of [
  'untrusted-certificate',
  'issuer-mismatch',
  'wrong-audience',
  'narrow-scope',
  'expired',
  'redirect',
  'reject-client',
] as const)
  test(`refuses: ${m}`, async () => {
    const { first, records } = await attempt(m);
    expect(first.ok).toBe(false);
    expect(records.some((r) => r.server === 'redirect-target')).toBe(false);
    if (!first.ok) expect(first.failure).not.toContain('s3cret');
  });

test('a stalled token endpoint ends within the deadline', async () => {
  const t0 = Date.now();
  const { first } = await attempt('stall', 600, 5000);
  expect(first.ok).toBe(false);
  expect(Date.now() - t0).toBeLessThan(3000);
});

test('secret references and metadata locations', () => {
  delete process.env.AHP_TEST_UNSET_SECRET;
  expect(resolveSecretRef('env:AHP_TEST_UNSET_SECRET').ok).toBe(false);
  expect(resolveSecretRef('vault:x').ok).toBe(false);
  expect(resolveSecretRef(undefined).ok).toBe(false);
  expect(metadataUrls('https://as.example/tenant')).toEqual([
    'https://as.example/.well-known/oauth-authorization-server/tenant',
    'https://as.example/.well-known/openid-configuration/tenant',
  ]);
});
