// backend.http.auth in claims: bearer gives the token variable, oauth (only for a server the
// runner starts) the issuer and CA file variables and the scopes; the plan runs the OAuth
// checks only where the claim says oauth, and the other auth checks for either.
import { test, expect } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadClaim, type ClaimOutcome, type ResolvedClaim } from '../../src/claims/load.js';
import { plannedProjects } from '../../src/engine/plan.js';
import { tempFolders } from '../support/temp.js';

const folder = tempFolders('ahp-claim-auth-');

function load(http: string): ClaimOutcome {
  const dir = folder();
  const file = join(dir, 'claim.yaml');
  writeFileSync(
    file,
    'implementation: { name: demo, version: 1.0.0 }\nrole: backend\ntransports: [http]\nprofiles: [tool-interception]\n' +
      `backend:\n  http: ${http}\n`,
  );
  return loadClaim(file);
}

const started = `command: ${JSON.stringify(process.execPath)}, args: [b.js, "{port}"], url: "http://127.0.0.1:{port}/hooks"`;

function ok(o: ClaimOutcome): ResolvedClaim {
  if (o.kind !== 'ok') throw new Error(`expected a resolved claim, got ${JSON.stringify(o)}`);
  return o.claim;
}

/** Check id -> applicable (true) or the plan's reason it is not. */
function authChecks(claim: ResolvedClaim): Record<string, true | string> {
  const [project] = plannedProjects({ claims: [{ claim, reportDir: '' }] });
  const out: Record<string, true | string> = {};
  for (const id of project!.checks) if (id.startsWith('auth.')) out[id] = true;
  for (const n of project!.notApplicable) if (n.id.startsWith('auth.')) out[n.id] = n.reason;
  return out;
}

test('oauth: the variables and scopes resolve, and every backend auth check applies', () => {
  const claim = ok(
    load(`{ ${started}, auth: { type: oauth, issuerEnv: DEMO_ISSUER, caFileEnv: DEMO_CA, scopes: [hooks.write] } }`),
  );
  expect(claim.backend!.http!.oauth).toEqual({
    issuerEnv: 'DEMO_ISSUER',
    caFileEnv: 'DEMO_CA',
    scopes: ['hooks.write'],
  });
  expect(claim.backend!.http!.tokenEnv).toBeUndefined();
  const checks = authChecks(claim);
  for (const id of [
    'auth.refuses-unauthenticated',
    'auth.refuses-wrong-credentials',
    'auth.refusal-challenge',
    'auth.resource-metadata',
    'auth.token-binding',
  ])
    expect(checks[id], id).toBe(true);
});

test('bearer: the OAuth checks are not applicable, the others run', () => {
  const claim = ok(load(`{ ${started}, auth: { type: bearer, tokenEnv: DEMO_TOKEN } }`));
  const checks = authChecks(claim);
  expect(checks['auth.refuses-unauthenticated']).toBe(true);
  expect(checks['auth.resource-metadata']).toMatch(/OAuth/);
  expect(checks['auth.token-binding']).toMatch(/OAuth/);
});

test('oauth without a command is one line: the authorization server exists only during the run', () => {
  const o = load(
    '{ url: "http://127.0.0.1:8080/hooks", auth: { type: oauth, issuerEnv: DEMO_ISSUER, caFileEnv: DEMO_CA } }',
  );
  expect(o.kind).toBe('error');
  if (o.kind !== 'error') return;
  expect(o.messages).toHaveLength(1);
  expect(o.messages[0]).toContain('type oauth needs a server the runner starts');
});

test('oauth needs both variables, and two different ones', () => {
  expect(load(`{ ${started}, auth: { type: oauth, issuerEnv: DEMO_ISSUER } }`).kind).toBe('error');
  expect(load(`{ ${started}, auth: { type: oauth, issuerEnv: DEMO_ISSUER, caFileEnv: DEMO_ISSUER } }`).kind).toBe(
    'error',
  );
  expect(
    load(`{ ${started}, auth: { type: oauth, issuerEnv: DEMO_ISSUER, caFileEnv: DEMO_CA, tokenEnv: X } }`).kind,
  ).toBe('error');
});
