// The profile layer: seed Base Protocol check 8 (every event names its harness with
// non-empty string `name` and `version`). It is reported beside the wire layer and
// never changes wire validity.
import { test, expect } from '@playwright/test';
import { isWireValid, PROFILE_CHECKS, profileFindings, validate, type Finding } from '../../src/protocol/validator.js';
import { expectWireValid, interceptOf, makeEvent, observeOf, without, type Obj } from '../support/wire.js';

const toolBefore = (over: Obj = {}): Obj =>
  makeEvent('tool.before', {
    call: { id: 'call-1' },
    tool: { name: 'read_file', input: { path: 'a.txt' }, origin: 'native' },
    path: 'native',
    ...over,
  });
const turnEnd = (over: Obj = {}): Obj =>
  makeEvent('turn.end', { turn: { id: 'turn-1' }, outcome: 'completed', continuationCount: 0, items: [], ...over });

const profile = (findings: readonly Finding[]) => findings.filter((f) => f.layer === 'profile');

/** Exactly these profile findings (by path), all from check base-8, and still wire-valid. */
function expectBase8(findings: readonly Finding[], paths: string[]): void {
  expectWireValid(findings);
  const got = profile(findings);
  expect(got.map((f) => f.path).sort(), JSON.stringify(findings)).toEqual([...paths].sort());
  for (const f of got) {
    expect(f.check).toBe('base-8');
    expect(f.code).toBe('profile.harness-metadata');
    expect(f.message.length).toBeGreaterThan(0);
  }
}

/** The same event as a bare event (both kinds), a hooks/observe notification and, when interceptable, a hooks/intercept request. */
function carriers(ev: Obj, interceptable: boolean): [string, string, unknown][] {
  const out: [string, string, unknown][] = [
    [`event:${String(ev.type)}`, '', ev],
    ['event', '', ev],
    ['observe-notification', '/params/event', observeOf(ev)],
    ['ahp', '/params/event', observeOf(ev)],
  ];
  if (interceptable) {
    out.push(['intercept-request', '/params/event', interceptOf(ev, { effects: ['deny'] })]);
    out.push(['ahp', '/params/event', interceptOf(ev, { effects: ['deny'] })]);
  }
  return out;
}

test('the check id is base-8', () => {
  expect(PROFILE_CHECKS.harnessMetadata).toBe('base-8');
});

for (const [label, build, interceptable] of [
  ['tool.before', toolBefore, true],
  ['turn.end', turnEnd, false],
] as const) {
  test.describe(`${label} (${interceptable ? 'observed and intercepted' : 'observed only'})`, () => {
    test('good harness metadata: no profile finding', () => {
      for (const [kind, , value] of carriers(build(), interceptable)) {
        const findings = validate(kind, value);
        expectWireValid(findings);
        expect(profile(findings), kind).toEqual([]);
      }
    });

    test('no harness member: one base-8 finding at .../harness, still wire-valid', () => {
      for (const [kind, base, value] of carriers(without(build(), 'harness'), interceptable)) {
        expectBase8(validate(kind, value), [`${base}/harness`]);
      }
    });

    test('empty harness name: base-8 finding at .../harness/name, still wire-valid', () => {
      for (const [kind, base, value] of carriers(build({ harness: { name: '', version: '1.2.3' } }), interceptable)) {
        expectBase8(validate(kind, value), [`${base}/harness/name`]);
      }
    });

    test('non-string harness version: base-8 finding at .../harness/version, still wire-valid', () => {
      for (const version of [1, 1.5, true, null, ['1'], { major: 1 }]) {
        for (const [kind, base, value] of carriers(build({ harness: { name: 'acme', version } }), interceptable)) {
          expectBase8(validate(kind, value), [`${base}/harness/version`]);
        }
      }
    });

    test('harness without name or version, or not an object at all', () => {
      for (const [kind, base, value] of carriers(build({ harness: {} }), interceptable)) {
        expectBase8(validate(kind, value), [`${base}/harness/name`, `${base}/harness/version`]);
      }
      for (const harness of ['acme 1.0', null, ['acme', '1.0']]) {
        for (const [kind, base, value] of carriers(build({ harness }), interceptable)) {
          expectBase8(validate(kind, value), [`${base}/harness`]);
        }
      }
    });
  });
}

test('profile findings never flip wire validity, and wireOnly drops them', () => {
  const bare = without(toolBefore(), 'harness');
  const findings = validate('observe-notification', observeOf(bare));
  expect(isWireValid(findings)).toBe(true);
  expect(profile(findings)).toHaveLength(1);
  expect(validate('observe-notification', observeOf(bare), { wireOnly: true })).toEqual([]);
});

test('a wire-invalid message still gets its profile finding, in the profile layer', () => {
  // An observation must not carry an id: wire-invalid, and the missing harness is reported separately.
  const findings = validate('observe-notification', { ...observeOf(without(turnEnd(), 'harness')), id: 'x' });
  expect(isWireValid(findings)).toBe(false);
  const prof = profile(findings);
  expect(prof.map((f) => [f.path, f.check])).toEqual([['/params/event/harness', 'base-8']]);
});

test('session.start: the wire schema itself requires harness, and says so once (no profile finding on top)', () => {
  const manifest = {
    events: [],
    gaps: [],
    transports: ['stdio'],
    authentication: [],
    toolPaths: ['native'],
    contentCategories: ['text'],
    limits: {},
    managedPolicy: { scopes: ['user'], disableable: true },
    correlationIdentityFields: ['id'],
  };
  const start = makeEvent('session.start', {
    session: { id: 'sess-1' },
    trigger: 'startup',
    permissionMode: 'default',
    manifest,
    items: [],
  });
  expectWireValid(validate('event:session.start', start));
  expect(profile(validate('event:session.start', start))).toEqual([]);
  const missing = validate('event:session.start', without(start, 'harness'));
  expect(isWireValid(missing)).toBe(false);
  // The wire error names the missing member; a profile warning would only repeat it (issue 12).
  expect(profile(missing)).toEqual([]);
  expect(missing.filter((f) => f.code === 'schema.required').map((f) => [f.path, f.message])).toEqual([
    ['', 'missing required member "harness"'],
  ]);
});

test('values that carry no event get no profile finding', () => {
  expect(
    profile(
      validate('intercept-response', {
        jsonrpc: '2.0',
        id: 'evt-1',
        result: { protocolVersion: 'draft', effects: [] },
      }),
    ),
  ).toEqual([]);
  expect(profile(validate('capabilities', { effects: [] }))).toEqual([]);
  expect(profileFindings('registration', { protocolVersion: 'draft', hooks: [] })).toEqual([]);
  // An event-shaped value judged as a non-event kind is not an event here either.
  expect(profileFindings('content-part', without(toolBefore(), 'harness'))).toEqual([]);
});

test.describe('draft@1d98c19: harness is a wire rule on every event, so base-8 never repeats it', () => {
  const opts = { snapshot: 'draft@1d98c19' } as const;
  for (const [label, build, interceptable] of [
    ['tool.before', toolBefore, true],
    ['turn.end', turnEnd, false],
  ] as const) {
    test(`${label}: a missing, empty or non-string harness is a wire error with no profile finding`, () => {
      carriers(build(), interceptable).forEach(([kind, base, value], i) => {
        expectWireValid(validate(kind, value, opts));
        for (const [bad, where] of [
          [without(build(), 'harness'), `${base}`],
          [build({ harness: { name: '', version: '1' } }), `${base}/harness/name`],
          [build({ harness: { name: 'h', version: 2 } }), `${base}/harness/version`],
        ] as const) {
          const findings = validate(kind, carriers(bad, interceptable)[i]![2], opts);
          expect(isWireValid(findings), `${kind} ${where}`).toBe(false);
          expect(profile(findings), `${kind} ${where}`).toEqual([]);
        }
      });
    });
  }

  test('the same values under draft@2b5da580 (the default) keep their base-8 finding', () => {
    const findings = validate('observe-notification', observeOf(without(turnEnd(), 'harness')));
    expect(isWireValid(findings)).toBe(true);
    expect(profile(findings).map((f) => f.check)).toEqual(['base-8']);
  });
});
