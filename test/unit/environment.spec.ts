// What an implementation gets of the environment: the allow-list, its claim's env and
// passEnv, and what the runner hands it; never the runner's own variables or secrets.
import { test, expect } from '@playwright/test';
import { implementationEnv } from '../../src/claims/environment.js';

const runner = {
  PATH: '/usr/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  TZ: 'UTC',
  AHP_RUN_FOLDER: '/tmp/ahp-run-1a2b3c',
  OTHER_VENDOR_TOKEN: 'secret-b',
  CI_SECRET: 'ci',
  VIRTUAL_ENV: '/venv',
};

test("the allow-list passes, the runner's own variables and other secrets do not", () => {
  const env = implementationEnv({ env: {}, passEnv: [] }, { TMPDIR: '/work/check-1' }, runner);
  expect(env).toEqual({
    PATH: '/usr/bin',
    HOME: '/root',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    TZ: 'UTC',
    TMPDIR: '/work/check-1',
  });
});

test('passEnv names pass as they are; env is added; what the runner hands over wins', () => {
  const env = implementationEnv(
    { env: { LOG: 'debug', TMPDIR: '/mine' }, passEnv: ['VIRTUAL_ENV', 'NOT_SET'] },
    { TMPDIR: '/work/check-2', ACME_TOKEN: 't' },
    runner,
  );
  expect(env).toMatchObject({ VIRTUAL_ENV: '/venv', LOG: 'debug', TMPDIR: '/work/check-2', ACME_TOKEN: 't' });
  expect(env).not.toHaveProperty('NOT_SET');
  expect(env).not.toHaveProperty('OTHER_VENDOR_TOKEN');
  expect(env).not.toHaveProperty('AHP_RUN_FOLDER');
});

test("the runner's own variables never pass, even when passEnv names them (the loader refuses such claims too)", () => {
  const env = implementationEnv(
    { env: {}, passEnv: ['AHP_RUN_FOLDER', 'TEST_WORKER_INDEX', 'VIRTUAL_ENV'] },
    {},
    { ...runner, TEST_WORKER_INDEX: '3' },
  );
  expect(env).not.toHaveProperty('AHP_RUN_FOLDER');
  expect(env).not.toHaveProperty('TEST_WORKER_INDEX');
  expect(env).toHaveProperty('VIRTUAL_ENV', '/venv');
});
