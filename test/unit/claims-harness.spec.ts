// Claims for role harness and both: the harness block is resolved like a backend launch
// block (command, cwd) with its own defaults, a missing block is one line naming
// harness.command, and the run plan gets one project per role, transport and lifecycle.
import { test, expect } from '@playwright/test';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadClaim, type ClaimOutcome, type ResolvedClaim } from '../../src/claims/load.js';
import { plannedProjects, type RunPlan } from '../../src/engine/plan.js';
import { tempFolders } from '../support/temp.js';

const folder = tempFolders('ahp-claim-');

/** A folder holding the claim and an executable adapter at ./adapter.sh. */
function claimFile(yaml: string): { dir: string; file: string } {
  const dir = folder();
  writeFileSync(join(dir, 'adapter.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'adapter.sh'), 0o755);
  mkdirSync(join(dir, 'work'));
  const file = join(dir, 'claim.yaml');
  writeFileSync(file, yaml);
  return { dir, file };
}

const head = (role: string, transports = '[stdio, http]'): string =>
  `implementation: { name: demo, version: 1.0.0 }\nrole: ${role}\ntransports: ${transports}\nprofiles: [tool-interception]\n`;
const harnessBlock = 'harness:\n  command: ./adapter.sh\n  args: [--config, "{config}"]\n';
const backendBlock =
  `backend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [b.js], lifecycle: [persistent, per_event] }\n` +
  `  http: { command: ${JSON.stringify(process.execPath)}, args: [b.js, "{port}"], url: "http://127.0.0.1:{port}/hooks" }\n`;

function ok(o: ClaimOutcome): ResolvedClaim {
  if (o.kind !== 'ok') throw new Error(`expected a resolved claim, got ${JSON.stringify(o)}`);
  return o.claim;
}

function errorLine(o: ClaimOutcome): string {
  if (o.kind !== 'error') throw new Error(`expected a claim error, got ${JSON.stringify(o)}`);
  expect(o.messages, 'one problem, one line').toHaveLength(1);
  return o.messages[0]!;
}

const plan = (...claims: ResolvedClaim[]): RunPlan => ({
  runnerVersion: '0.0.0',
  createdAt: '2026-01-01T00:00:00Z',
  reportsDir: '/tmp/reports',
  workDir: '/tmp/work',
  containment: { kind: 'sandbox', tool: 'bubblewrap 0.8.0' },
  claims: claims.map((claim) => ({ claim, reportDir: `/tmp/reports/${claim.implementation.name}` })),
});

test.describe('loadClaim, role harness', () => {
  test('resolves the adapter command relative to the claim and defaults cwd, env and lifecycles', () => {
    const { dir, file } = claimFile(head('harness') + harnessBlock);
    const claim = ok(loadClaim(file));
    expect(claim.role).toBe('harness');
    expect(claim.harness).toEqual({
      command: join(dir, 'adapter.sh'),
      args: ['--config', '{config}'],
      cwd: dir,
      env: {},
      passEnv: [],
      lifecycles: ['persistent', 'per_event'],
      boundaries: [],
      uploads: false,
    });
    expect(claim.backend).toBeUndefined();
  });

  test('keeps cwd, env and lifecycles as given; a command without a slash is looked up on PATH', () => {
    const { dir, file } = claimFile(
      `${head('harness')}harness:\n  command: sh\n  args: [adapter.sh]\n  cwd: work\n  env: { HOME_X: a }\n  lifecycles: [per_event]\n`,
    );
    expect(ok(loadClaim(file)).harness).toEqual({
      command: 'sh',
      args: ['adapter.sh'],
      cwd: join(dir, 'work'),
      env: { HOME_X: 'a' },
      passEnv: [],
      lifecycles: ['per_event'],
      boundaries: [],
      uploads: false,
    });
  });

  test('does not require {config} in the args', () => {
    const { file } = claimFile(`${head('harness')}harness: { command: ./adapter.sh }\n`);
    expect(ok(loadClaim(file)).harness?.args).toEqual([]);
  });

  test('without a harness block: one line naming harness.command', () => {
    const { file } = claimFile(head('harness'));
    const message = errorLine(loadClaim(file));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('harness.command');
    expect(message).toContain('role harness');
  });

  test('a backend block is not needed (and is ignored)', () => {
    const { file } = claimFile(
      `${head('harness')}${harnessBlock}backend:\n  stdio: { command: no-such-backend-binary-xyz }\n`,
    );
    expect(ok(loadClaim(file)).backend).toBeUndefined();
  });

  test('an adapter that is not executable or not on PATH is one line naming harness.command', () => {
    for (const command of ['./missing-adapter.sh', 'no-such-adapter-binary-xyz']) {
      const { file } = claimFile(`${head('harness')}harness: { command: ${command} }\n`);
      const message = errorLine(loadClaim(file));
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toMatch(/harness\.command: /);
    }
  });

  test('schema problems in the harness block name the field', () => {
    const cases: [string, RegExp][] = [
      ['harness: { args: [x] }\n', /harness\.command is missing/],
      ['harness: { command: ./adapter.sh, colour: blue }\n', /harness\.colour is not a claim field/],
      [
        'harness: { command: ./adapter.sh, lifecycles: [sometimes] }\n',
        /harness\.lifecycles is \["sometimes"\]; it must be one of persistent, per_event/,
      ],
      ['harness: { command: ./adapter.sh, cwd: nowhere }\n', /harness\.cwd: .* is not a directory/],
    ];
    for (const [block, line] of cases) {
      const message = errorLine(loadClaim(claimFile(head('harness') + block).file));
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toMatch(line);
    }
  });

  test('an incomplete harness claim is still incomplete, not an error', () => {
    const { file } = claimFile(
      `implementation: { name: demo, version: 1.0.0 }\nrole: harness\ntransports: [stdio]\n${harnessBlock}`,
    );
    expect(loadClaim(file).kind).toBe('incomplete');
  });
});

test.describe('loadClaim, roles backend and both', () => {
  test('role both with both blocks resolves the backend and the harness', () => {
    const { dir, file } = claimFile(head('both') + backendBlock + harnessBlock);
    const claim = ok(loadClaim(file));
    expect(claim.role).toBe('both');
    expect(claim.backend?.stdio?.lifecycles).toEqual(['persistent', 'per_event']);
    expect(claim.backend?.http?.url).toBe('http://127.0.0.1:{port}/hooks');
    expect(claim.backend?.samples).toEqual({ deny: [], modify: [], content: [] });
    expect(claim.harness?.command).toBe(join(dir, 'adapter.sh'));
  });

  test('role both without the harness block: one line naming harness.command', () => {
    const message = errorLine(loadClaim(claimFile(head('both') + backendBlock).file));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('harness.command');
  });

  test('role both without a backend block: the backend errors as for role backend, one per claimed transport', () => {
    const o = loadClaim(claimFile(head('both') + harnessBlock).file);
    if (o.kind !== 'error') throw new Error(`expected a claim error, got ${JSON.stringify(o)}`);
    expect(o.messages).toHaveLength(2);
    expect(o.messages[0]).toMatch(
      /backend\.stdio: transport stdio is claimed but backend\.stdio \(command\) is missing/,
    );
    expect(o.messages[1]).toMatch(/backend\.http: transport http is claimed but backend\.http \(url\) is missing/);
  });

  test('role backend ignores a harness block and has no harness target', () => {
    const claim = ok(
      loadClaim(claimFile(`${head('backend')}${backendBlock}harness: { command: no-such-adapter-binary-xyz }\n`).file),
    );
    expect(claim.harness).toBeUndefined();
    expect(claim.backend?.stdio).toBeDefined();
  });
});

test.describe('plannedProjects', () => {
  test('role harness: one project per harness lifecycle on stdio, one for http', () => {
    const claim = ok(loadClaim(claimFile(head('harness') + harnessBlock).file));
    expect(plannedProjects(plan(claim)).map((p) => p.name)).toEqual([
      'demo:harness:stdio:persistent',
      'demo:harness:stdio:per_event',
      'demo:harness:http',
    ]);
  });

  test('role harness: the lifecycles of the harness block, and none for http only', () => {
    const perEvent = ok(
      loadClaim(
        claimFile(`${head('harness', '[stdio]')}harness: { command: ./adapter.sh, lifecycles: [per_event] }\n`).file,
      ),
    );
    const httpOnly = ok(loadClaim(claimFile(head('harness', '[http]') + harnessBlock).file));
    const projects = plannedProjects(plan(perEvent, { ...httpOnly, implementation: { name: 'web', version: '1' } }));
    expect(projects.map((p) => p.name)).toEqual(['demo:harness:stdio:per_event', 'web:harness:http']);
    expect(projects.map((p) => p.target)).toEqual([
      { claimIndex: 0, role: 'harness', transport: 'stdio', lifecycle: 'per_event' },
      { claimIndex: 1, role: 'harness', transport: 'http' },
    ]);
  });

  test('role both: the backend targets, then the harness targets', () => {
    const claim = ok(
      loadClaim(
        claimFile(`${head('both')}${backendBlock}harness: { command: ./adapter.sh, lifecycles: [persistent] }\n`).file,
      ),
    );
    expect(plannedProjects(plan(claim)).map((p) => p.name)).toEqual([
      'demo:backend:stdio:persistent',
      'demo:backend:stdio:per_event',
      'demo:backend:http',
      'demo:harness:stdio:persistent',
      'demo:harness:http',
    ]);
  });

  test('role backend: unchanged (the backend stdio lifecycles, then http)', () => {
    const claim = ok(loadClaim(claimFile(head('backend') + backendBlock + harnessBlock).file));
    expect(plannedProjects(plan(claim)).map((p) => p.name)).toEqual([
      'demo:backend:stdio:persistent',
      'demo:backend:stdio:per_event',
      'demo:backend:http',
    ]);
  });
});

test.describe('content-upload claim fields (issue 15 B)', () => {
  test('harness.uploads is kept; without it the upload checks are not applicable', () => {
    const on = ok(loadClaim(claimFile(`${head('harness')}${harnessBlock}  uploads: true\n`).file));
    expect(on.harness?.uploads).toBe(true);
    const off = ok(loadClaim(claimFile(head('harness') + harnessBlock).file));
    const reasons = (c: ResolvedClaim) =>
      plannedProjects(plan(c))
        .filter((p) => p.target.transport === 'http')
        .flatMap((p) => [...p.checks, ...p.notApplicable.map((x) => `n/a ${x.id}`)]);
    expect(reasons(on)).toContain('upload.request');
    expect(reasons(off)).toContain('n/a upload.request');
  });

  test('backend.upload is kept with the http port placeholder; it needs the http transport', () => {
    const upload = '  upload: { url: "http://127.0.0.1:{port}/uploads", maxBytes: 1024 }\n';
    const claim = ok(loadClaim(claimFile(head('backend') + backendBlock + upload).file));
    expect(claim.backend?.upload).toEqual({ url: 'http://127.0.0.1:{port}/uploads', maxBytes: 1024 });
    const stdioOnly = `backend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [b.js] }\n` + upload;
    expect(errorLine(loadClaim(claimFile(head('backend', '[stdio]') + stdioOnly).file))).toContain('backend.upload');
  });

  test('backend.upload.auth: kept, turns on upload.receiver-auth, and needs a variable of its own', () => {
    const withAuth = (tokenEnv: string, http = backendBlock) =>
      loadClaim(
        claimFile(
          head('backend') +
            http +
            `  upload: { url: "http://127.0.0.1:{port}/uploads", maxBytes: 1024, auth: { type: bearer, tokenEnv: ${tokenEnv} } }\n`,
        ).file,
      );
    const httpChecks = (c: ResolvedClaim) =>
      plannedProjects(plan(c))
        .filter((p) => p.target.transport === 'http')
        .flatMap((p) => [...p.checks, ...p.notApplicable.map((x) => `n/a ${x.id}: ${x.reason}`)]);
    const claim = ok(withAuth('DEMO_UPLOAD_TOKEN'));
    expect(claim.backend?.upload?.tokenEnv).toBe('DEMO_UPLOAD_TOKEN');
    expect(httpChecks(claim)).toContain('upload.receiver-auth');
    const open = ok(
      loadClaim(
        claimFile(
          head('backend') + backendBlock + '  upload: { url: "http://127.0.0.1:{port}/uploads", maxBytes: 1024 }\n',
        ).file,
      ),
    );
    expect(open.backend?.upload?.tokenEnv).toBeUndefined();
    expect(httpChecks(open).find((c) => c.startsWith('n/a upload.receiver-auth'))).toContain('backend.upload.auth');
    // The event token's variable for uploads too: one line.
    const shared = backendBlock.replace(
      'url: "http://127.0.0.1:{port}/hooks" }',
      'url: "http://127.0.0.1:{port}/hooks", auth: { type: bearer, tokenEnv: DEMO_TOKEN } }',
    );
    expect(errorLine(withAuth('DEMO_TOKEN', shared))).toContain('backend.upload.auth.tokenEnv');
    // Two variables holding one token: one line, without the token.
    process.env.DEMO_TOKEN = 'demo-same-secret';
    process.env.DEMO_UPLOAD_SAME = 'demo-same-secret';
    try {
      const line = errorLine(withAuth('DEMO_UPLOAD_SAME', shared));
      expect(line).toContain('holds the same token');
      expect(line).not.toContain('demo-same-secret');
    } finally {
      delete process.env.DEMO_TOKEN;
      delete process.env.DEMO_UPLOAD_SAME;
    }
    // A server the runner does not start needs the variable set.
    const running =
      `backend:\n  stdio: { command: ${JSON.stringify(process.execPath)}, args: [b.js] }\n` +
      '  http: { url: "http://127.0.0.1:8080/hooks" }\n';
    delete process.env.DEMO_UNSET_UPLOAD_TOKEN;
    const unset = loadClaim(
      claimFile(
        head('backend') +
          running +
          '  upload: { url: "http://127.0.0.1:8080/uploads", maxBytes: 1024, auth: { type: bearer, tokenEnv: DEMO_UNSET_UPLOAD_TOKEN } }\n',
      ).file,
    );
    expect(errorLine(unset)).toContain(
      'backend.upload.auth.tokenEnv: environment variable DEMO_UNSET_UPLOAD_TOKEN is not set',
    );
  });
});

test.describe('harness.authentication (issue 24)', () => {
  test('kept as given; absent when the claim does not say', () => {
    const said = ok(loadClaim(claimFile(`${head('harness')}${harnessBlock}  authentication: [bearer]\n`).file));
    expect(said.harness?.authentication).toEqual(['bearer']);
    const silent = ok(loadClaim(claimFile(head('harness') + harnessBlock).file));
    expect(silent.harness && 'authentication' in silent.harness).toBe(false);
  });

  test('a mechanism that is not portable, or a list written as one value, is one line naming the field', () => {
    const cases: [string, RegExp][] = [
      ['  authentication: [bearer, oath]\n', /harness\.authentication\[1\] .*bearer, oauth.*did you mean oauth\?/],
      ['  authentication: [mtls]\n', /harness\.authentication\[0\] .*bearer, oauth/],
      ['  authentication: bearer\n', /harness\.authentication/],
      ['  authentication: [bearer, bearer]\n', /harness\.authentication lists "bearer" twice; give each once/],
      [
        '  authentification: [bearer]\n',
        /harness\.authentification is not a claim field; did you mean authentication\?/,
      ],
    ];
    for (const [line, want] of cases) {
      const message = errorLine(loadClaim(claimFile(head('harness') + harnessBlock + line).file));
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toMatch(want);
    }
  });
});
