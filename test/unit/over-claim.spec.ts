// The claim against the behaviour (src/results/over-claim.ts, issue 25 item 5), on runs
// built by hand: what the sessions make of a harness run's frames and a backend's replies
// (suites/support/claim-observations.ts), each finding with its level, one agreeing picture
// without findings, hostile observations bounded, and the reporter, the report section and
// the closing line carrying the findings.
import { test, expect } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, TestResult } from '@playwright/test/reporter';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import type { Reply } from '../../drivers/channel.js';
import { observeBackendExchange, observeHarnessRun } from '../../suites/support/claim-observations.js';
import {
  claimFindings,
  findingsLine,
  type ClaimDeclarations,
  type FindingsInput,
} from '../../src/results/over-claim.js';
import { mergeObserved, readObserved, type Observed } from '../../src/results/observed.js';
import {
  targetKey,
  type CheckResult,
  type CheckStatus,
  type Finding,
  type TargetKey,
} from '../../src/results/model.js';
import { BOUNDARY_EVENTS } from '../../src/checks/boundaries.js';
import { ANNOTATION, ATTACHMENT } from '../../src/results/annotations.js';
import ResultsReporter from '../../src/results/reporter.js';
import { runMetadata, type RunOutcome } from '../../src/results/run-record.js';
import { claimPage } from '../../src/results/html/claim-page.js';
import { checkResult, reporterPlan, reporterTestCase, resultsWith, validResults } from '../support/results-fixture.js';

type Obj = Record<string, unknown>;

const HTTP: TargetKey = { role: 'harness', transport: 'http' };
const STDIO: TargetKey = { role: 'harness', transport: 'stdio', lifecycle: 'persistent' };
const BACKEND: TargetKey = { role: 'backend', transport: 'http' };

/** A manifest like the reference harness's: tool events and every boundary, both modes. */
function manifest(o: { transports?: string[]; authentication?: string[]; boundaries?: readonly string[] } = {}): Obj {
  return {
    events: [
      { event: 'tool.before', modes: ['intercept', 'observe'], capabilities: { effects: ['deny', 'modify'] } },
      { event: 'tool.after', modes: ['observe'] },
      { event: 'session.start', modes: ['observe'] },
      ...(o.boundaries ?? []).map((event) => ({
        event,
        modes: ['intercept', 'observe'],
        capabilities: { effects: ['modify'] },
      })),
    ],
    gaps: [],
    transports: o.transports ?? ['stdio', 'http'],
    authentication: o.authentication ?? ['bearer', 'oauth'],
  };
}

const frame = (method: string, event: Obj, capabilities?: Obj): WireRecord => ({
  t: 1,
  hook: 'a',
  transport: 'http',
  kind: 'frame',
  method,
  message: {
    jsonrpc: '2.0',
    method,
    params: { protocolVersion: 'draft', event, ...(capabilities ? { capabilities } : {}) },
  },
});

/** session.start with its manifest, observed (or intercepted: a harness that never observes). */
const start = (m: Obj, method = 'hooks/observe'): WireRecord => frame(method, { type: 'session.start', manifest: m });
const interceptOf = (type: string, effects: string[]): WireRecord => frame('hooks/intercept', { type }, { effects });
const observeOf = (type: string): WireRecord => frame('hooks/observe', { type });

/** What a target's checks saw: the harness runs given. */
const harnessRuns = (...runs: { records: WireRecord[]; auth?: { records: unknown[] } }[]): Observed =>
  runs.map((r) => observeHarnessRun(r)).reduce(mergeObserved, {});

/** One check of a target, at its catalogue level unless given. */
const ran = (
  t: TargetKey,
  id: string,
  status: CheckStatus = 'passed',
  level: 'MUST' | 'SHOULD' = 'MUST',
): CheckResult => checkResult(id, t.role, t.transport, t.lifecycle, status, level);

const HARNESS_DECLARES: ClaimDeclarations = { harness: { boundaries: [], uploads: false } };

function findings(o: {
  declares?: ClaimDeclarations;
  profiles?: string[];
  transports?: ('stdio' | 'http')[];
  targets?: TargetKey[];
  observed: Observed | Map<string, Observed>;
  checks?: CheckResult[];
}): Finding[] {
  const targets = o.targets ?? [HTTP];
  const input: FindingsInput = {
    claim: {
      transports: o.transports ?? ['stdio', 'http'],
      profiles: o.profiles ?? ['tool-interception', 'lifecycle-observation'],
    },
    declares: o.declares ?? HARNESS_DECLARES,
    targets,
    observed: o.observed instanceof Map ? o.observed : new Map([[targetKey(targets[0]!), o.observed]]),
    checks: o.checks ?? [],
  };
  return claimFindings(input);
}

/** A harness that does what a claim of both profiles and no boundaries says. */
const agreeing = (): Observed =>
  harnessRuns({
    records: [
      start(manifest()),
      interceptOf('tool.before', ['deny', 'modify']),
      observeOf('tool.before'),
      observeOf('tool.after'),
    ],
  });

test.describe('what the sessions observe', () => {
  test('a harness run: events by method, advertised effects per event, the manifest, OAuth use', () => {
    const o = harnessRuns(
      { records: [start(manifest()), interceptOf('tool.before', ['deny', 'modify']), observeOf('tool.after')] },
      { records: [interceptOf('user.message.inbound', ['modify'])], auth: { records: [] } },
      { records: [], auth: { records: [{ path: '/token' }] } },
    );
    expect(o.intercepted).toEqual(['tool.before', 'user.message.inbound']);
    expect(o.observed).toEqual(['session.start', 'tool.after']);
    expect(o.advertised).toEqual({ 'tool.before': ['deny', 'modify'], 'user.message.inbound': ['modify'] });
    expect(o.manifest?.transports).toEqual(['http', 'stdio']);
    expect(o.manifest?.authentication).toEqual(['bearer', 'oauth']);
    expect(o.manifest?.events.find((e) => e.event === 'tool.before')).toEqual({
      event: 'tool.before',
      modes: ['intercept', 'observe'],
      effects: ['deny', 'modify'],
    });
    expect([o.oauthRuns, o.oauthUsed]).toEqual([2, 1]);
  });

  test('a backend: effects returned per event, hooks/configuration answered and what it subscribes', () => {
    const reply = (value: unknown): Reply =>
      ({ kind: 'reply', transport: 'http', raw: '', utf8: true, value, latencyMs: 1 }) as Reply;
    const sent = { jsonrpc: '2.0', id: 1, method: 'hooks/intercept', params: { event: { type: 'tool.before' } } };
    const denied = observeBackendExchange(
      sent,
      reply({ id: 1, result: { effects: [{ type: 'deny', reason: 'no' }] } }),
    );
    expect(denied).toEqual({ returned: { 'tool.before': ['deny'] } });
    // An error, or no reply at all, says nothing of the effects.
    expect(observeBackendExchange(sent, reply({ id: 1, error: { code: -32000 } }))).toBeUndefined();
    expect(observeBackendExchange(sent, { kind: 'none', transport: 'http', why: 'timeout' })).toBeUndefined();
    const asked = { jsonrpc: '2.0', id: 2, method: 'hooks/configuration', params: {} };
    const configured = observeBackendExchange(
      asked,
      reply({
        id: 2,
        result: {
          configuration: {
            subscriptions: [
              { events: ['tool.before'], mode: 'intercept' },
              { events: ['tool.after', 'session.end'], mode: 'observe' },
            ],
          },
        },
      }),
    );
    expect(configured).toEqual({
      configuration: { asked: 1, answered: 1, intercept: ['tool.before'], observe: ['session.end', 'tool.after'] },
    });
    expect(observeBackendExchange(asked, reply({ id: 2, error: { code: -32601 } }))).toEqual({
      configuration: { asked: 1, answered: 0, intercept: [], observe: [] },
    });
  });

  test('hostile observations are bounded: no markup, no long names, no huge lists, no negative counts', () => {
    const many = Array.from({ length: 500 }, (_, i) => `e${i}`);
    const o = readObserved({
      intercepted: ['<script>alert(1)</script>', 'x'.repeat(500), 'tool.before', 7, ...many],
      advertised: Object.fromEntries([...many.map((k) => [k, ['deny']]), ['<b>', ['deny']]]),
      uploads: -3,
      oauthRuns: 1e12,
      manifest: { events: 'nope', transports: ['http', '"><img>'], authentication: 'oauth' },
      configuration: { asked: 'many', answered: 1, intercept: ['tool.before'], observe: null },
    });
    expect(o.intercepted).toContain('tool.before');
    expect(o.intercepted!.length).toBeLessThanOrEqual(64);
    expect(o.intercepted!.some((n) => n.includes('<') || n.length > 100)).toBe(false);
    expect(Object.keys(o.advertised!).length).toBeLessThanOrEqual(64);
    expect(Object.keys(o.advertised!)).not.toContain('<b>');
    expect(o.uploads).toBe(0);
    expect(o.oauthRuns).toBe(1_000_000);
    expect(o.manifest).toEqual({ events: [], transports: ['http'], authentication: [] });
    expect(o.configuration).toEqual({ asked: 0, answered: 1, intercept: ['tool.before'], observe: [] });
    expect(readObserved('not an object')).toEqual({});
  });
});

test.describe('the claim says more than was seen', () => {
  test('agreement: a claim the harness keeps has no finding', () => {
    const checks = [ran(HTTP, 'lo.notification-shape'), ran(HTTP, 'ti.intercept-request')];
    expect(findings({ observed: agreeing(), checks })).toEqual([]);
  });

  test('profile-unexercised: lifecycle-observation claimed, no hooks/observe; a failure where lo.notification-shape failed', () => {
    const o = harnessRuns({
      records: [start(manifest(), 'hooks/intercept'), interceptOf('tool.before', ['deny', 'modify'])],
    });
    const failed = findings({ observed: o, checks: [ran(HTTP, 'lo.notification-shape', 'failed')] });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      kind: 'profile-unexercised',
      level: 'failure',
      check: 'lo.notification-shape',
      requirement: 'AHP-CORE-001',
      targets: ['harness/http'],
    });
    // The check could not judge: the finding stands, as a warning.
    expect(findings({ observed: o, checks: [ran(HTTP, 'lo.notification-shape', 'incomplete')] })[0]?.level).toBe(
      'warning',
    );
    // The check that exercises it did not run (--grep): nothing to say.
    expect(findings({ observed: o, checks: [] })).toEqual([]);
    expect(findings({ observed: o, checks: [ran(HTTP, 'lo.notification-shape', 'not-applicable')] })).toEqual([]);
  });

  test('profile-unexercised: tool-interception claimed, no hooks/intercept', () => {
    const o = harnessRuns({ records: [start(manifest()), observeOf('tool.after')] });
    const f = findings({ observed: o, checks: [ran(HTTP, 'ti.intercept-request', 'failed')] });
    expect(f.map((x) => [x.kind, x.level, x.check])).toEqual([
      ['profile-unexercised', 'failure', 'ti.intercept-request'],
    ]);
  });

  test('boundary-unexercised: a listed boundary never sent, judged by its canonical check', () => {
    const declares: ClaimDeclarations = {
      harness: { boundaries: ['model.request.before', 'tool.after'], uploads: false },
    };
    // Its manifest lists both boundaries; it only ever sent tool.after.
    const o = mergeObserved(
      agreeing(),
      harnessRuns({
        records: [
          start(manifest({ boundaries: ['model.request.before', 'tool.after'] })),
          interceptOf('tool.after', ['modify']),
        ],
      }),
    );
    const f = findings({
      declares,
      observed: o,
      checks: [ran(HTTP, 'content.model-request.canonical', 'failed'), ran(HTTP, 'content.tool-output.canonical')],
    });
    expect(f.map((x) => [x.kind, x.level, x.check])).toEqual([
      ['boundary-unexercised', 'failure', 'content.model-request.canonical'],
    ]);
    expect(f[0]!.says).toContain('model.request.before');
  });

  test('uploads-unexercised: harness.uploads claimed, nothing uploaded while upload.request ran', () => {
    const declares: ClaimDeclarations = { harness: { boundaries: [], uploads: true } };
    const none = findings({
      declares,
      observed: { ...agreeing(), uploads: 0 },
      checks: [ran(HTTP, 'upload.request', 'failed')],
    });
    expect(none.map((x) => [x.kind, x.level, x.check])).toEqual([['uploads-unexercised', 'failure', 'upload.request']]);
    expect(
      findings({ declares, observed: { ...agreeing(), uploads: 1 }, checks: [ran(HTTP, 'upload.request')] }),
    ).toEqual([]);
  });

  test('authentication-unused: oauth declared (by the claim, else the manifest), never used in runs with OAuth-protected hooks', () => {
    const unused = mergeObserved(agreeing(), harnessRuns({ records: [], auth: { records: [] } }));
    const checks = [ran(HTTP, 'auth.oauth-client-credentials', 'failed')];
    const byManifest = findings({ observed: unused, checks });
    expect(byManifest.map((x) => [x.kind, x.level, x.check])).toEqual([
      ['authentication-unused', 'failure', 'auth.oauth-client-credentials'],
    ]);
    expect(byManifest[0]!.says).toContain("session.start manifest's authentication [bearer, oauth]");
    // The claim leaves oauth out: nothing declared unused (the manifest's listing is another finding).
    const bearer: ClaimDeclarations = { harness: { boundaries: [], uploads: false, authentication: ['bearer'] } };
    expect(findings({ declares: bearer, observed: unused, checks }).map((x) => x.kind)).toEqual([
      'authentication-uncovered',
    ]);
    // It used OAuth in one of the runs: no finding.
    const used = mergeObserved(unused, harnessRuns({ records: [], auth: { records: [{}] } }));
    expect(findings({ observed: used, checks: [ran(HTTP, 'auth.oauth-client-credentials')] })).toEqual([]);
  });

  test('configuration-unanswered and sample-effect-unseen (backend)', () => {
    const declares: ClaimDeclarations = {
      backend: {
        configuration: true,
        samples: { deny: 1, modify: 1, content: ['model.request.before', 'user.elicitation.request'] },
      },
    };
    const o: Observed = {
      configuration: { asked: 1, answered: 0, intercept: [], observe: [] },
      returned: { 'tool.before': ['deny'] },
    };
    const f = findings({
      declares,
      targets: [BACKEND],
      observed: o,
      checks: [
        ran(BACKEND, 'base.configuration', 'failed'),
        ran(BACKEND, 'ti.deny-samples'),
        ran(BACKEND, 'ti.modify-samples', 'failed'),
        ran(BACKEND, 'content.model-request.canonical-edits', 'incomplete'),
        ran(BACKEND, 'content.elicitation-request.canonical-edits'),
      ],
    });
    expect(f.map((x) => [x.kind, x.level, x.check])).toEqual([
      ['configuration-unanswered', 'failure', 'base.configuration'],
      ['sample-effect-unseen', 'failure', 'ti.modify-samples'],
      // A boundary without a modify target (user.elicitation.request) takes no edit: no finding there.
      ['sample-effect-unseen', 'warning', 'content.model-request.canonical-edits'],
    ]);
  });
});

test.describe('the implementation does more than the claim covers', () => {
  test('profile-uncovered: a harness that observes, claimed for tool-interception only', () => {
    const f = findings({ profiles: ['tool-interception'], observed: agreeing() });
    expect(f.map((x) => [x.kind, x.level])).toEqual([['profile-uncovered', 'warning']]);
    expect(f[0]!.says).toContain('lifecycle-observation');
    expect(f[0]!.evidence).toContain('hooks/observe sent for [session.start, tool.after, tool.before]');
  });

  test('boundaries-uncovered: interception at boundaries harness.boundaries leaves out, by manifest and by request', () => {
    const o = mergeObserved(
      harnessRuns({ records: [start(manifest({ boundaries: ['context.compact.before'] }))] }),
      harnessRuns({ records: [interceptOf('user.message.inbound', ['deny', 'modify'])] }),
    );
    const declares: ClaimDeclarations = { harness: { boundaries: ['user.message.outbound'], uploads: false } };
    const f = findings({ declares, observed: mergeObserved(agreeing(), o) });
    expect(f.map((x) => [x.kind, x.level, x.requirement])).toEqual([
      ['advertised-beyond-manifest', 'warning', 'AHP-CAP-001'],
      ['boundaries-uncovered', 'warning', 'AHP-CAP-001'],
    ]);
    const b = f.find((x) => x.kind === 'boundaries-uncovered')!;
    expect(b.says).toContain('context.compact.before, user.message.inbound');
    expect(b.evidence).toContain('user.message.inbound (advertising [deny, modify])');
    expect(b.evidence).toContain('context.compact.before (effects [modify])');
    // The reference harness's manifest lists every boundary: a claim of them all has none uncovered.
    const all: ClaimDeclarations = { harness: { boundaries: [...BOUNDARY_EVENTS], uploads: false } };
    const every = harnessRuns({ records: [start(manifest({ boundaries: BOUNDARY_EVENTS }))] });
    expect(findings({ declares: all, observed: mergeObserved(agreeing(), every) })).toEqual([]);
  });

  test('advertised-beyond-manifest: an intercept advertises an effect its manifest does not list for the event', () => {
    const o = mergeObserved(agreeing(), harnessRuns({ records: [interceptOf('tool.before', ['deny', 'ask'])] }));
    const f = findings({ observed: o });
    expect(f.map((x) => x.kind)).toEqual(['advertised-beyond-manifest']);
    expect(f[0]!.evidence).toBe('tool.before: [ask] (the manifest lists [deny, modify])');
    // Without a manifest seen, nothing to compare with.
    const bare = harnessRuns({ records: [interceptOf('tool.before', ['deny', 'ask']), observeOf('tool.after')] });
    expect(findings({ observed: bare })).toEqual([]);
  });

  test('transport-uncovered: the manifest lists a transport the claim does not', () => {
    const f = findings({ transports: ['http'], observed: agreeing() });
    expect(f.map((x) => [x.kind, x.level, x.requirement])).toEqual([
      ['transport-uncovered', 'warning', 'AHP-CORE-001'],
    ]);
    expect(f[0]!.says).toContain('stdio');
    // A transport no claim can name (no binding of the runner) is not held against it.
    const odd = harnessRuns({ records: [start(manifest({ transports: ['http', 'stdio', 'carrier-pigeon'] }))] });
    expect(findings({ observed: mergeObserved(agreeing(), odd) })).toEqual([]);
  });

  test('authentication-uncovered: the manifest lists oauth, the claim says bearer only', () => {
    const declares: ClaimDeclarations = { harness: { boundaries: [], uploads: false, authentication: ['bearer'] } };
    const f = findings({ declares, observed: agreeing() });
    expect(f.map((x) => [x.kind, x.level, x.requirement])).toEqual([
      ['authentication-uncovered', 'warning', 'AHP-AUTH-001'],
    ]);
    expect(f[0]!.evidence).toBe('manifest authentication [bearer, oauth]; claim [bearer]');
    // Manifests seen in several runs are united: one listing oauth is enough.
    const bearerOnly = harnessRuns({
      records: [start(manifest({ authentication: ['bearer'] })), observeOf('tool.after')],
    });
    expect(findings({ declares, observed: mergeObserved(agreeing(), bearerOnly) }).map((x) => x.kind)).toEqual([
      'authentication-uncovered',
    ]);
    // A harness whose manifest agrees with the claim (the bearer-only example's).
    const onlyBearer = harnessRuns({
      records: [
        start(manifest({ authentication: ['bearer'] })),
        interceptOf('tool.before', ['deny']),
        observeOf('tool.after'),
      ],
    });
    expect(findings({ declares, observed: onlyBearer })).toEqual([]);
  });

  test('configuration-unclaimed (a SHOULD check: always a warning) and profile-uncovered by a configuration result', () => {
    const declares: ClaimDeclarations = {
      backend: { configuration: false, samples: { deny: 0, modify: 0, content: [] } },
    };
    const o: Observed = {
      configuration: { asked: 1, answered: 1, intercept: ['tool.before'], observe: ['tool.after'] },
    };
    const f = findings({
      declares,
      profiles: ['tool-interception'],
      targets: [BACKEND],
      observed: o,
      checks: [ran(BACKEND, 'base.configuration-unoffered', 'failed', 'SHOULD')],
    });
    expect(f.map((x) => [x.kind, x.level, x.check ?? ''])).toEqual([
      ['configuration-unclaimed', 'warning', 'base.configuration-unoffered'],
      ['profile-uncovered', 'warning', ''],
    ]);
    expect(f[1]!.says).toContain('lifecycle-observation');
  });

  test('effects-uncovered: a backend returns deny, modify and boundary edits no sample covers', () => {
    const declares: ClaimDeclarations = {
      backend: { configuration: false, samples: { deny: 1, modify: 0, content: ['tool.after'] } },
    };
    const o: Observed = {
      returned: {
        'tool.before': ['deny', 'modify'],
        'tool.after': ['modify'],
        'model.request.before': ['modify'],
        'session.start': ['deny'],
      },
    };
    const f = findings({ declares, targets: [BACKEND], observed: o });
    expect(f.map((x) => [x.kind, x.level])).toEqual([['effects-uncovered', 'warning']]);
    expect(f[0]!.evidence).toBe(
      'modify at tool.before (no backend.samples.modify: ti.modify-samples did not run); modify at model.request.before (no content sample of it: content.model-request.canonical-edits did not run)',
    );
  });

  test('a finding seen on several targets is listed once with each target', () => {
    const observed = new Map([
      [targetKey(HTTP), agreeing()],
      [targetKey(STDIO), agreeing()],
    ]);
    const f = findings({
      transports: ['http', 'stdio'],
      profiles: ['tool-interception'],
      targets: [STDIO, HTTP],
      observed,
    });
    expect(f.map((x) => [x.kind, x.targets])).toEqual([
      ['profile-uncovered', ['harness/stdio/persistent', 'harness/http']],
    ]);
  });
});

test.describe('where the findings go', () => {
  const observedAttachment = (o: Observed) => ({
    name: ATTACHMENT.observed,
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify(o)),
  });

  test('the reporter unites every check’s observations and judges them with the claim the plan recorded', () => {
    const base = reporterPlan();
    const declares: ClaimDeclarations = {
      backend: { configuration: false, samples: { deny: 0, modify: 0, content: [] } },
    };
    const plan = {
      ...base,
      claims: [{ ...base.claims[0]!, claim: { ...base.claims[0]!.claim, profiles: ['tool-interception'] }, declares }],
    };
    const result = (id: string, o: Observed): TestResult =>
      ({
        retry: 0,
        status: 'passed',
        duration: 1,
        annotations: [{ type: ANNOTATION.check, description: id }],
        attachments: [observedAttachment(o)],
        errors: [],
      }) as unknown as TestResult;
    const dir = mkdtempSync(join(tmpdir(), 'ahp-over-claim-'));
    try {
      const file = join(dir, 'outcome.json');
      const reporter = new ResultsReporter({ outcomeFile: file, mode: 'run' });
      reporter.onBegin({ metadata: runMetadata(plan) } as unknown as FullConfig);
      reporter.onTestEnd(
        { ...reporterTestCase, id: 'a' } as never,
        result('ti.result-valid', { returned: { 'tool.before': ['deny'] } }),
      );
      reporter.onTestEnd(
        { ...reporterTestCase, id: 'b' } as never,
        result('ti.response-id', { returned: { 'tool.before': ['modify'] } }),
      );
      reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1 } as never);
      const outcome = JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
      const r = outcome.claims[0]!;
      expect(validResults(r), JSON.stringify(validResults.errors)).toBe(true);
      expect(r.findings?.map((f) => [f.kind, f.targets])).toEqual([['effects-uncovered', ['backend/http']]]);
      expect(r.findings?.[0]?.evidence).toContain('deny at tool.before');
      expect(r.findings?.[0]?.evidence).toContain('modify at tool.before');
      // A warning changes no verdict.
      expect(r.verdict).not.toBe('nonconformant');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a plan of an earlier version recorded no declarations: no findings, no section', () => {
    const r = resultsWith({ 'ti.result-valid': 'passed' });
    expect(r.findings).toBeUndefined();
    expect(claimPage(r)).not.toContain('Claim against behaviour');
  });

  test('the report section, escaped, and the closing line', () => {
    const finding: Finding = {
      kind: 'boundaries-uncovered',
      level: 'warning',
      says: 'The harness intercepts <b>x</b>.',
      evidence: 'hooks/intercept sent for [user.message.inbound]',
      requirement: 'AHP-CAP-001',
      targets: ['harness/http'],
    };
    const failure: Finding = { ...finding, kind: 'uploads-unexercised', level: 'failure', check: 'upload.request' };
    const r = { ...resultsWith({ 'upload.request': 'failed' }), findings: [failure, finding] };
    expect(validResults(r), JSON.stringify(validResults.errors)).toBe(true);
    const html = claimPage(r);
    expect(html).toContain('<h2 id="claim-against-behaviour">Claim against behaviour</h2>');
    expect(html).toContain('1 failure (the check named decides the verdict), 1 warning.');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('<code>upload.request</code>');
    expect(claimPage({ ...r, findings: [] })).toContain('agrees with what the implementation advertised and did');
    expect(findingsLine([failure, finding])).toBe(
      'claim against behaviour: 1 failure, 1 warning (uploads-unexercised, boundaries-uncovered)',
    );
    expect(findingsLine([])).toBeUndefined();
  });
});
