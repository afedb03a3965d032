// The claim against the behaviour (issue 25, item 5): after the run, what the claim says is
// compared once with what the implementation advertised (its intercepts' capabilities, its
// session.start manifest, its hooks/configuration result) and what it did in the checks
// (src/results/observed.ts). Two directions:
// - the claim says more than was seen: a profile, boundary, upload, OAuth support or sample
//   the implementation never exercised although the checks that exercise it ran;
// - the implementation advertises or does more than the claim covers: the certificate says
//   nothing about it (content boundaries, transports, authentication mechanisms, profiles,
//   effects no sample covers, an intercept advertising beyond its own manifest).
// A finding is a failure only where the spec makes the claim false and the check that judges
// exactly that failed at MUST level for the target: that check decides the verdict, the
// finding explains it. Every other finding is a warning and changes nothing.
import { BOUNDARIES, BOUNDARY_EVENTS, contentCheckId } from '../checks/boundaries.js';
import type { Transport } from '../checks/catalogue.js';
import { targetKey, targetLabel, type CheckResult, type ClaimSummary, type Finding, type TargetKey } from './model.js';
import type { Observed } from './observed.js';

/** What the claim says beyond role, transports and profiles (recorded with the plan: src/engine/claim-declarations.ts). */
export interface ClaimDeclarations {
  harness?: {
    boundaries: string[];
    uploads: boolean;
    /** Absent: the claim does not say (the manifest's list is the declaration). */
    authentication?: string[];
  };
  backend?: {
    configuration: boolean;
    /** How many deny and modify samples, and the events of the content samples. */
    samples: { deny: number; modify: number; content: string[] };
  };
}

export interface FindingsInput {
  claim: Pick<ClaimSummary, 'transports' | 'profiles'>;
  declares: ClaimDeclarations;
  targets: readonly TargetKey[];
  /** Per target ({@link targetKey}): what its checks observed. */
  observed: ReadonlyMap<string, Observed>;
  checks: readonly CheckResult[];
}

/** A finding before its level (from its check's result) and targets. */
type Draft = Omit<Finding, 'level' | 'targets'>;

const TRANSPORTS: readonly Transport[] = ['stdio', 'http'];
/** The portable endpoint authentication mechanisms (AHP-AUTH-001): the ones a claim can list. */
const PORTABLE_AUTH = ['bearer', 'oauth'];
const LO = 'lifecycle-observation';
const TI = 'tool-interception';

const list = (xs: readonly string[]): string => `[${xs.join(', ')}]`;
const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The checks of one target, asked whether one ran to a result. */
class TargetChecks {
  constructor(private readonly mine: readonly CheckResult[]) {}

  /** Ran and judged (or could not judge): not declared not applicable, not left out. */
  ran(id: string): boolean {
    return this.mine.some((c) => c.id === id && c.status !== 'not-run' && c.status !== 'not-applicable');
  }

  failedMust(id: string): boolean {
    return this.mine.some((c) => c.id === id && c.status === 'failed' && c.level === 'MUST');
  }
}

function harnessFindings(input: FindingsInput, o: Observed, checks: TargetChecks): Draft[] {
  const out: Draft[] = [];
  const declared = input.declares.harness ?? { boundaries: [], uploads: false };
  const profiles = input.claim.profiles;
  const intercepted = o.intercepted ?? [];
  const observedEvents = o.observed ?? [];
  const manifest = o.manifest;
  const manifestModes = (mode: string): string[] =>
    (manifest?.events ?? []).filter((e) => e.modes.includes(mode)).map((e) => e.event);

  // The claim says more than was seen.
  if (profiles.includes(LO) && checks.ran('lo.notification-shape') && observedEvents.length === 0)
    out.push({
      kind: 'profile-unexercised',
      says: `The claim lists the ${LO} profile, yet the harness sent no hooks/observe.`,
      evidence: 'no hooks/observe in any check of this target, lo.notification-shape subscribing an observer included',
      requirement: 'AHP-CORE-001',
      check: 'lo.notification-shape',
    });
  if (profiles.includes(TI) && checks.ran('ti.intercept-request') && intercepted.length === 0)
    out.push({
      kind: 'profile-unexercised',
      says: `The claim lists the ${TI} profile, yet the harness sent no hooks/intercept.`,
      evidence:
        'no hooks/intercept in any check of this target, ti.intercept-request subscribing an interceptor included',
      requirement: 'AHP-CORE-001',
      check: 'ti.intercept-request',
    });
  for (const b of BOUNDARIES) {
    if (!declared.boundaries.includes(b.event)) continue;
    const id = contentCheckId(b, 'canonical');
    if (checks.ran(id) && !intercepted.includes(b.event) && !observedEvents.includes(b.event))
      out.push({
        kind: 'boundary-unexercised',
        says: `The claim lists ${b.event} in harness.boundaries, yet the harness never sent that event.`,
        evidence: `no hooks/intercept or hooks/observe of ${b.event} in any check of this target, its content checks included`,
        requirement: 'AHP-CORE-001',
        check: id,
      });
  }
  if (declared.uploads && checks.ran('upload.request') && !o.uploads)
    out.push({
      kind: 'uploads-unexercised',
      says: 'The claim says the harness uploads attachments (harness.uploads), yet it uploaded nothing.',
      evidence: "the runner's upload receiver got no upload request in any check of this target",
      requirement: 'AHP-CORE-001',
      check: 'upload.request',
    });
  const oauthSource =
    declared.authentication !== undefined
      ? `the claim's harness.authentication ${list(declared.authentication)}`
      : manifest && manifest.authentication.length
        ? `the session.start manifest's authentication ${list(manifest.authentication)}`
        : undefined;
  const declaresOAuth = (declared.authentication ?? manifest?.authentication ?? []).includes('oauth');
  if (declaresOAuth && o.oauthRuns && !o.oauthUsed && checks.ran('auth.oauth-client-credentials'))
    out.push({
      kind: 'authentication-unused',
      says: `${oauthSource![0]!.toUpperCase()}${oauthSource!.slice(1)} declares oauth, yet the harness never used it.`,
      evidence: `it asked the run's authorization server in none of ${plural(o.oauthRuns, 'run')} with OAuth-protected hooks`,
      requirement: 'AHP-AUTH-001',
      check: 'auth.oauth-client-credentials',
    });

  // The implementation advertises or does more than the claim covers.
  // Per mode: the events sent so and those the manifest offers so, against the profile that covers that mode.
  for (const [mode, sent, profile, verb] of [
    ['observe', observedEvents, LO, 'observes'],
    ['intercept', intercepted, TI, 'intercepts'],
  ] as const) {
    const offered = manifestModes(mode);
    if (profiles.includes(profile) || sent.length + offered.length === 0) continue;
    out.push({
      kind: 'profile-uncovered',
      says: `The harness ${verb} events, yet the claim does not list the ${profile} profile: the certificate does not cover it.`,
      evidence: [
        sent.length ? `hooks/${mode} sent for ${list(sent)}` : '',
        offered.length ? `the session.start manifest lists ${mode} for ${list(offered)}` : '',
      ]
        .filter(Boolean)
        .join('; '),
      requirement: 'AHP-CORE-001',
    });
  }
  const advertised = o.advertised ?? {};
  const boundaryEvents: readonly string[] = BOUNDARY_EVENTS;
  const unclaimed = (events: readonly string[]): string[] =>
    events.filter((e) => boundaryEvents.includes(e) && !declared.boundaries.includes(e));
  const byRequest = unclaimed([...new Set([...intercepted, ...Object.keys(advertised)])].sort());
  const byManifest = unclaimed(manifestModes('intercept'));
  const uncovered = [...new Set([...byRequest, ...byManifest])].sort();
  if (uncovered.length)
    out.push({
      kind: 'boundaries-uncovered',
      says: `The harness ${byRequest.length ? 'intercepts' : 'advertises interception at'} content boundaries the claim does not list in harness.boundaries (${uncovered.join(', ')}): their content checks did not run.`,
      evidence: [
        byRequest.length
          ? `hooks/intercept sent for ${byRequest.map((e) => `${e} (advertising ${list(advertised[e] ?? [])})`).join(', ')}`
          : '',
        byManifest.length
          ? `the session.start manifest lists intercept for ${byManifest
              .map((e) => `${e} (effects ${list(manifest!.events.find((x) => x.event === e)?.effects ?? [])})`)
              .join(', ')}`
          : '',
      ]
        .filter(Boolean)
        .join('; '),
      requirement: 'AHP-CAP-001',
    });
  if (manifest) {
    const beyond = Object.entries(advertised).flatMap(([event, effects]) => {
      const entry = manifest.events.find((e) => e.event === event);
      const allowed = entry?.modes.includes('intercept') ? entry.effects : [];
      const extra = minus(effects, allowed);
      return extra.length
        ? [
            `${event}: ${list(extra)} (the manifest ${entry ? `lists ${entry.modes.includes('intercept') ? list(allowed) : 'no intercept mode'}` : 'does not list the event'})`,
          ]
        : [];
    });
    if (beyond.length)
      out.push({
        kind: 'advertised-beyond-manifest',
        says: "The harness's intercepts advertise effects its own session.start manifest does not list for the event (an intercept's advertisement stays within the manifest's).",
        evidence: beyond.join('; '),
        requirement: 'AHP-CAP-001',
      });
    const transports = minus(
      manifest.transports.filter((t) => (TRANSPORTS as readonly string[]).includes(t)),
      input.claim.transports,
    );
    if (transports.length)
      out.push({
        kind: 'transport-uncovered',
        says: `The harness's session.start manifest lists ${transports.join(', ')}, which the claim does not list among its transports: the certificate does not cover ${transports.length === 1 ? 'it' : 'them'}.`,
        evidence: `manifest transports ${list(manifest.transports)}; claim transports ${list(input.claim.transports)}`,
        requirement: 'AHP-CORE-001',
      });
    if (declared.authentication !== undefined) {
      const left = minus(
        manifest.authentication.filter((m) => PORTABLE_AUTH.includes(m)),
        declared.authentication,
      );
      if (left.length)
        out.push({
          kind: 'authentication-uncovered',
          says: `The harness's session.start manifest lists ${left.join(', ')} authentication, which the claim's harness.authentication leaves out: the certificate does not judge it.`,
          evidence: `manifest authentication ${list(manifest.authentication)}; claim ${list(declared.authentication)}${o.oauthRuns ? `; it asked the run's authorization server in ${o.oauthUsed ?? 0} of ${plural(o.oauthRuns, 'run')} with OAuth-protected hooks` : ''}`,
          requirement: 'AHP-AUTH-001',
        });
    }
  }
  return out;
}

function backendFindings(input: FindingsInput, o: Observed, checks: TargetChecks): Draft[] {
  const out: Draft[] = [];
  const declared = input.declares.backend ?? { configuration: false, samples: { deny: 0, modify: 0, content: [] } };
  const profiles = input.claim.profiles;
  const returned = o.returned ?? {};
  const returnedAt = (event: string): string[] => returned[event] ?? [];
  const c = o.configuration;

  // The claim says more than was seen.
  if (declared.configuration && c && c.asked > 0 && c.answered === 0)
    out.push({
      kind: 'configuration-unanswered',
      says: 'The claim says the backend serves hooks/configuration (backend.configuration), yet it answered no request for it with a result.',
      evidence: `${plural(c.asked, 'hooks/configuration request')}, no success result`,
      requirement: 'AHP-CORE-001',
      check: 'base.configuration',
    });
  const unseen = (what: string, count: number, id: string, event: string, effect: string, field: string): void => {
    if (count > 0 && checks.ran(id) && !returnedAt(event).includes(effect))
      out.push({
        kind: 'sample-effect-unseen',
        says: `The claim gives ${what} (${field}), yet the backend never returned ${effect} at ${event}.`,
        evidence: `no ${effect} in any hooks/intercept result of ${event} in the checks of this target (returned there: ${list(returnedAt(event))})`,
        requirement: 'AHP-CORE-001',
        check: id,
      });
  };
  unseen(
    plural(declared.samples.deny, 'deny sample'),
    declared.samples.deny,
    'ti.deny-samples',
    'tool.before',
    'deny',
    'backend.samples.deny',
  );
  unseen(
    plural(declared.samples.modify, 'modify sample'),
    declared.samples.modify,
    'ti.modify-samples',
    'tool.before',
    'modify',
    'backend.samples.modify',
  );
  for (const b of BOUNDARIES)
    // A boundary without a modify target takes no edit: its sample says nothing is returned.
    if (b.target && declared.samples.content.includes(b.event))
      unseen(
        `a content sample of ${b.event}`,
        1,
        contentCheckId(b, 'canonical-edits'),
        b.event,
        'modify',
        'backend.samples.content',
      );

  // The implementation does more than the claim covers.
  if (!declared.configuration && c && c.answered > 0)
    out.push({
      kind: 'configuration-unclaimed',
      says: 'The claim does not say the backend serves hooks/configuration (backend.configuration), yet it answered the request with a result.',
      evidence: `${c.answered} of ${plural(c.asked, 'hooks/configuration request')} got a success result${c.intercept.length ? `; it subscribes intercept ${list(c.intercept)}` : ''}${c.observe.length ? `; observe ${list(c.observe)}` : ''}`,
      requirement: 'AHP-CORE-001',
      check: 'base.configuration-unoffered',
    });
  // Per mode its configuration result subscribes, against the profile that covers that mode.
  for (const [events, profile, mode, what] of [
    [c?.observe ?? [], LO, 'observe', 'observations'],
    [c?.intercept ?? [], TI, 'intercept', 'interceptions'],
  ] as const)
    if (events.length && !profiles.includes(profile))
      out.push({
        kind: 'profile-uncovered',
        says: `The backend's hooks/configuration result subscribes ${what}, yet the claim does not list the ${profile} profile: the certificate does not cover it.`,
        evidence: `${mode} ${list(events)}`,
        requirement: 'AHP-CORE-001',
      });
  const uncovered: string[] = [];
  if (returnedAt('tool.before').includes('deny') && declared.samples.deny === 0)
    uncovered.push('deny at tool.before (no backend.samples.deny: ti.deny-samples did not run)');
  if (returnedAt('tool.before').includes('modify') && declared.samples.modify === 0)
    uncovered.push('modify at tool.before (no backend.samples.modify: ti.modify-samples did not run)');
  for (const b of BOUNDARIES)
    if (returnedAt(b.event).includes('modify') && !declared.samples.content.includes(b.event))
      uncovered.push(
        `modify at ${b.event} (no content sample of it: ${contentCheckId(b, 'canonical-edits')} did not run)`,
      );
  if (uncovered.length)
    out.push({
      kind: 'effects-uncovered',
      says: "The backend returned effects the claim's samples do not cover: the checks that judge such decisions did not run.",
      evidence: uncovered.join('; '),
      requirement: 'AHP-DEC-001',
    });
  return out;
}

/**
 * The findings of one claim: judged per target, then each finding once with the targets it
 * was seen on. Empty when the claim and the behaviour agree.
 */
export function claimFindings(input: FindingsInput): Finding[] {
  const found = new Map<string, Finding>();
  for (const t of input.targets) {
    const key = targetKey(t);
    const checks = new TargetChecks(input.checks.filter((c) => targetKey(c) === key));
    const o = input.observed.get(key) ?? {};
    const drafts = t.role === 'harness' ? harnessFindings(input, o, checks) : backendFindings(input, o, checks);
    for (const d of drafts) {
      const level: Finding['level'] = d.check && checks.failedMust(d.check) ? 'failure' : 'warning';
      const id = JSON.stringify([d.kind, level, d.says, d.evidence, d.check ?? '']);
      const had = found.get(id);
      if (had) had.targets.push(targetLabel(t));
      else
        found.set(id, {
          kind: d.kind,
          level,
          says: d.says,
          evidence: d.evidence,
          requirement: d.requirement,
          ...(d.check ? { check: d.check } : {}),
          targets: [targetLabel(t)],
        });
    }
  }
  // Failures first, then by kind: a reader meets what decided the verdict first.
  return [...found.values()].sort(
    (a, b) => (a.level === b.level ? 0 : a.level === 'failure' ? -1 : 1) || a.kind.localeCompare(b.kind),
  );
}

/** The closing line's account of a claim's findings: `1 failure, 2 warnings (kind, kind)`; undefined when none. */
export function findingsLine(findings: readonly Finding[] | undefined): string | undefined {
  if (!findings?.length) return undefined;
  const failures = findings.filter((f) => f.level === 'failure').length;
  const warnings = findings.length - failures;
  const counts = [failures ? plural(failures, 'failure') : '', warnings ? plural(warnings, 'warning') : '']
    .filter(Boolean)
    .join(', ');
  return `claim against behaviour: ${counts} (${[...new Set(findings.map((f) => f.kind))].join(', ')})`;
}
