// The WWW-Authenticate reader auth.challenge judges with (src/checks/www-authenticate.ts).
import { test, expect } from '@playwright/test';
import { parseChallenges } from '../../src/checks/www-authenticate.js';

test('challenges, their params, quoted values and a token68', () => {
  expect(parseChallenges('Bearer')).toEqual([{ scheme: 'bearer', params: {} }]);
  expect(parseChallenges('Bearer realm="a, b", error="invalid_token", Basic realm=x')).toEqual([
    { scheme: 'bearer', params: { realm: 'a, b', error: 'invalid_token' } },
    { scheme: 'basic', params: { realm: 'x' } },
  ]);
  expect(parseChallenges('Negotiate abc123==, bearer resource_metadata="https://as.test/.well-known/x"')).toEqual([
    { scheme: 'negotiate', params: { '': 'abc123==' } },
    { scheme: 'bearer', params: { resource_metadata: 'https://as.test/.well-known/x' } },
  ]);
  expect(parseChallenges('Bearer realm="say \\"hi\\""')).toEqual([{ scheme: 'bearer', params: { realm: 'say "hi"' } }]);
});

test('nothing readable gives no challenge, never a throw', () => {
  expect(parseChallenges('')).toEqual([]);
  expect(parseChallenges('"quoted"')).toEqual([]);
  expect(parseChallenges('=x')).toEqual([]);
  // "Bearer" inside a quoted value of another scheme is no Bearer challenge.
  expect(parseChallenges('Basic realm="Bearer"').map((c) => c.scheme)).toEqual(['basic']);
});
