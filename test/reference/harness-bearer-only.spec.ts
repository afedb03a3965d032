// A harness without OAuth (issue 24): the reference harness started bearer-only
// (--authentication bearer) refuses oauth bindings before delivery and says so in its
// manifest, and the auth checks that bind hooks with an oauth preset judge that refusal by what
// the harness declares (suites/support/oauth-declaration.ts): conformant where it does not
// declare oauth, a failure of auth.oauth-client-credentials where it declares oauth (a claim
// leaving oauth out decides against a manifest listing it). One `ahp-conformance run` of four claims, each narrowed to the
// checks it is here for.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseHarnessArgs } from '../../reference/harness/args.js';
import { sessionStartEvent } from '../../reference/harness/events.js';
import { FaultProbe } from '../../reference/fault-probe.js';
import { NO_FAULT } from '../../reference/harness/faults.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { checkGrep, escapeRegExp } from '../../src/results/check-title.js';
import { ROOT } from '../support/paths.js';
import { resultsReader } from '../support/fault-matrix.js';

const MAIN = resolve(ROOT, 'dist', 'reference', 'harness', 'main.js');
const EXAMPLE = resolve(ROOT, 'claims', 'examples', 'bearer-only-harness.yaml');
const OAUTH_CHECKS = [
  'auth.oauth-client-credentials',
  'auth.token-validation',
  'auth.no-fallback',
  'auth.acquisition-deadline',
];

test('--authentication: bearer,oauth by default, bearer alone allowed, anything else one line', () => {
  expect(parseHarnessArgs(['--config', 'c.json'], {})).toMatchObject({ ok: true, authentication: ['bearer', 'oauth'] });
  expect(parseHarnessArgs(['--config', 'c.json', '--authentication', 'bearer'], {})).toMatchObject({
    ok: true,
    authentication: ['bearer'],
  });
  for (const bad of ['oauth', 'bearer,bearer', 'bearer,oauth,mtls', ''])
    expect(parseHarnessArgs(['--config', 'c.json', '--authentication', bad], {})).toEqual({
      ok: false,
      error: `--authentication ${JSON.stringify(bad)} must be bearer or bearer,oauth`,
    });
});

test('the manifest lists what the harness supports; the fault lists oauth it does not have', () => {
  const session = { id: 's-1' };
  const cases: [unknown, string[]][] = [
    [sessionStartEvent(session), ['bearer', 'oauth']],
    [sessionStartEvent(session, NO_FAULT, ['bearer']), ['bearer']],
    [sessionStartEvent(session, new FaultProbe('oauth-declared-unsupported'), ['bearer']), ['bearer', 'oauth']],
  ];
  for (const [event, listed] of cases) {
    expect((event as { manifest: { authentication: string[] } }).manifest.authentication).toEqual(listed);
    expect(isWireValid(validate('event:session.start', event as never))).toBe(true);
  }
});

test('the auth checks judge a bearer-only harness by its refusal and its declaration', () => {
  // Four claims in one run, a few checks each (about 20 adapter launches in all). The other
  // auth checks (portable mechanisms, the 401 challenge) bind no oauth preset: unchanged.
  test.setTimeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'ahp-bearer-only-'));
  try {
    const variant = (name: string, extra: { authentication?: string; fault?: string }): string => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(
        file,
        [
          `implementation: { name: ${name}, version: 0.0.0 }`,
          'snapshot: draft@2b5da580',
          'role: harness',
          'transports: [http]',
          'profiles: [tool-interception, lifecycle-observation]',
          'harness:',
          `  command: ${JSON.stringify(process.execPath)}`,
          `  args: [${JSON.stringify(MAIN)}, --config, "{config}", --authentication, bearer${extra.fault ? `, --fault, ${extra.fault}` : ''}]`,
          ...(extra.authentication ? [`  authentication: ${extra.authentication}`] : []),
          '',
        ].join('\n'),
      );
      return file;
    };
    const claims: [string, string, readonly string[]][] = [
      // The example claim (harness.authentication [bearer]): every check with an oauth preset passes.
      ['bearer-only-harness', EXAMPLE, OAUTH_CHECKS],
      // No claim field: the session.start manifest ([bearer]) decides.
      ['by-manifest', variant('by-manifest', {}), ['auth.oauth-client-credentials']],
      // The claim declares oauth the harness refuses.
      [
        'overclaimed',
        variant('overclaimed', { authentication: '[bearer, oauth]' }),
        ['auth.oauth-client-credentials', 'auth.no-fallback'],
      ],
      // The claim says bearer, the manifest says oauth (the oauth-declared-unsupported fault).
      [
        'disagreeing',
        variant('disagreeing', { authentication: '[bearer]', fault: 'oauth-declared-unsupported' }),
        ['auth.oauth-client-credentials', 'auth.no-fallback'],
      ],
    ];
    const grep = claims.map(([name, , checks]) => `(^| )${escapeRegExp(name)}:\\S* .*${checkGrep(checks)}`).join('|');
    const reports = join(dir, 'reports');
    const r = spawnSync(
      process.execPath,
      [
        resolve(ROOT, 'bin', 'ahp-conformance.js'),
        'run',
        ...claims.map(([, file]) => file),
        '--reports',
        reports,
        '--workers',
        '2',
        '--grep',
        grep,
      ],
      { encoding: 'utf8', cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, AHP_PROGRESS: 'line' } },
    );
    // Exit 1: one claim (overclaimed) is nonconformant.
    expect(r.status, `${r.stderr}${r.stdout.slice(-3000)}`).toBe(1);
    const results = resultsReader(reports);
    const statuses = (name: string): Record<string, string> =>
      Object.fromEntries(results(name).checks.map((c) => [c.id, `${c.status}: ${c.message.split('\n')[0]}`]));

    const example = statuses('bearer-only-harness');
    expect(Object.keys(example).sort()).toEqual([...OAUTH_CHECKS].sort());
    for (const id of OAUTH_CHECKS)
      expect(example[id], id).toMatch(/^passed: the claim's harness\.authentication \[bearer\] does not list oauth/);
    expect(results('bearer-only-harness').verdict).toBe('partial');

    expect(statuses('by-manifest')['auth.oauth-client-credentials']).toMatch(
      /^passed: the session\.start manifest's authentication \[bearer\] does not list oauth; it refused/,
    );

    const over = statuses('overclaimed');
    expect(over['auth.oauth-client-credentials']).toMatch(
      /^failed: the claim's harness\.authentication \[bearer, oauth\] declares oauth support, yet it refused/,
    );
    expect(over['auth.no-fallback']).toMatch(/^incomplete: .*declares oauth support/);
    expect(results('overclaimed').verdict).toBe('nonconformant');

    const disagreeing = statuses('disagreeing');
    // The claim decides (an OAuth client with interactive flows only says so this way); noted.
    expect(disagreeing['auth.oauth-client-credentials']).toMatch(/^passed: /);
    expect(disagreeing['auth.no-fallback']).toMatch(/^passed: the claim's harness\.authentication \[bearer\]/);
    expect(results('disagreeing').verdict).toBe('partial'); // narrowed by --grep
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
