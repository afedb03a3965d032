// What the harness auth checks that bind hooks with an oauth preset judge, by what the
// harness says it supports (issue 24). capability-auth.md: `manifest.authentication` lists
// the mechanisms an implementation supports; the oauth preset is not needed merely to meet an
// OAuth-protected endpoint; which flow a client uses is its own policy; and an authentication
// it does not support must stop delivery (no unauthenticated fallback). So:
// - a harness that uses the binding (it asks the run's authorization server) is judged as an
//   OAuth client, by the check itself;
// - one that never asks is judged by its refusal: nothing reaches an oauth-bound endpoint,
//   and the registration is refused or each subscription's failure policy applies. A clean
//   refusal passes where the harness does not declare oauth; where it declares oauth it has
//   declared support it does not have (auth.oauth-client-credentials fails; the other checks
//   cannot see its OAuth client: incomplete); where nothing says, incomplete (never failed).
//   A claim that leaves oauth out decides even against a manifest listing it (noted): the runner
//   drives only client_credentials, and a harness may support only interactive flows.
// The declaration: the claim's `harness.authentication` when given, else the manifest of the
// harness's own session.start, read from the typical session (a run other checks of the
// target share: a harness that uses OAuth never pays for it).
import type { CheckSpec } from '../../src/checks/catalogue.js';
import type { AuthMechanism } from '../../src/protocol/catalogue.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import type { Judge } from './check.js';
import type { HarnessRun, HarnessSession, RunPlan } from './harness-session.js';
import { eventOf, eventType, frames, INTERCEPT, ran, reportedAs, stepOf, summary } from './harness-observations.js';
import { typicalSession } from './harness-scenarios.js';

type Obj = Record<string, unknown>;

/** What the runner learned of a harness's OAuth support. */
export interface Declaration {
  /** Whether it declares oauth; undefined: nothing says. */
  oauth?: boolean;
  /** Where the answer comes from, in words. */
  source: string;
  /** The claim and the manifest disagree about oauth (the claim decides; said in the evidence). */
  conflict?: string;
}

const listed = (l: readonly string[]): string => `[${l.join(', ')}]`;

/**
 * The declaration from the claim's list (absent: not given) and the manifest's
 * `authentication` (absent: not seen, or not a list of strings). The claim decides when given.
 */
export function declarationOf(
  claim: readonly AuthMechanism[] | undefined,
  manifest: readonly string[] | undefined,
): Declaration {
  const byClaim = claim?.includes('oauth');
  const byManifest = manifest?.includes('oauth');
  const conflict =
    byClaim !== undefined && byManifest !== undefined && byClaim !== byManifest
      ? `the claim's harness.authentication ${listed(claim!)} and the session.start manifest's authentication ${listed(manifest!)} disagree about oauth`
      : undefined;
  if (byClaim !== undefined)
    return {
      oauth: byClaim,
      source: `the claim's harness.authentication ${listed(claim!)}`,
      ...(conflict ? { conflict } : {}),
    };
  if (byManifest !== undefined)
    return { oauth: byManifest, source: `the session.start manifest's authentication ${listed(manifest!)}` };
  return { source: 'neither the claim (harness.authentication) nor a session.start manifest the runner saw' };
}

/** `manifest.authentication` of the first session.start a run delivered, if it is a list of strings. */
export function manifestAuthentication(run: HarnessRun): string[] | undefined {
  const start = frames(run).find((f) => eventType(f) === 'session.start');
  const manifest = start ? eventOf(start)?.manifest : undefined;
  const auth = manifest && typeof manifest === 'object' ? (manifest as Obj).authentication : undefined;
  return Array.isArray(auth) && auth.every((m) => typeof m === 'string') ? (auth as string[]) : undefined;
}

/** A frame's credential as the protected resource judged it. */
export function credentialOf(f: WireRecord): string {
  const a = f.http?.authorization;
  if (!a || a.count === 0) return 'no Authorization header';
  if (a.count > 1) return `${a.count} Authorization headers`;
  const b = a.bearer;
  if (!b) return 'an Authorization header';
  return b.kind === 'issued'
    ? 'a valid token of the run issuer'
    : `a credential the resource refused (${b.why ?? 'invalid'}${b.jti ? '; a token the run issuer gave out' : ''})`;
}

/** What the authorization server received, for evidence (no secrets are in it). */
export function asSummary(run: HarnessRun): Obj {
  return {
    issuer: run.auth?.issuer,
    misbehaviour: run.auth?.misbehaviour ?? 'none',
    requests: (run.auth?.records ?? []).map(
      (r) => `${r.server}: ${r.method} ${r.path} -> ${r.status ?? 'no answer'}${r.note ? ` (${r.note})` : ''}`,
    ),
  };
}

/** Did the harness ask the run's authorization server anything (it used the oauth binding)? */
export const usedOAuth = (run: HarnessRun): boolean => (run.auth?.records.length ?? 0) > 0;

const refusedRegistration = (run: HarnessRun): boolean =>
  run.report?.registration === 'rejected' || (run.exit.code !== 0 && run.exit.code !== null);

/**
 * What is wrong with a run's refusal of its oauth bindings (empty: a clean refusal). Nothing
 * may reach an oauth-bound hook; a refused registration delivers nothing at all; an accepted
 * one applies the failure policy of the oauth-bound interceptors to each tool step
 * (fail-closed: the call does not run; fail-open: it runs, and the plain interceptors are called).
 */
export function refusalProblems(run: HarnessRun, plan: RunPlan): string[] {
  if (run.timedOut) return [`the adapter did not finish run "${run.label}" before the scenario deadline`];
  const bound = plan.hooks.filter((h) => h.oauth?.preset).map((h) => h.name);
  const problems: string[] = [];
  const reached = frames(run).filter((f) => bound.includes(f.hook));
  if (reached.length)
    problems.push(
      `${reached.length} request(s) reached oauth-bound hook(s) (${[...new Set(reached.map((f) => f.hook))].join(', ')}), the first with ${credentialOf(reached[0]!)}`,
    );
  const steps = plan.steps.flatMap((s) => (s.kind === 'tool' ? [s.id] : []));
  if (refusedRegistration(run)) {
    const sent = frames(run).length - reached.length;
    if (sent) problems.push(`the registration was refused, yet ${sent} message(s) reached the other hooks`);
    const running = steps.filter((s) => ran(run, s));
    if (running.length) problems.push(`the registration was refused, yet the call(s) ${running.join(', ')} ran`);
    return problems;
  }
  const interceptors = (oauth: boolean) =>
    plan.hooks.filter(
      (h) =>
        !!h.oauth?.preset === oauth &&
        h.subscriptions.some((s) => s.mode === 'intercept' && s.events.includes('tool.before')),
    );
  const closed = interceptors(true).some((h) =>
    h.subscriptions.some((s) => s.mode === 'intercept' && (s.failurePolicy ?? 'fail-closed') === 'fail-closed'),
  );
  if (!interceptors(true).length) return problems;
  for (const step of steps) {
    if (closed && ran(run, step))
      problems.push(`the "${step}" call ran (${reportedAs(run, step)}): a fail-closed oauth-bound interceptor failed`);
    if (!closed) {
      if (!ran(run, step))
        problems.push(
          `the "${step}" call did not run (${reportedAs(run, step)}): the oauth-bound interceptor is fail-open`,
        );
      for (const h of interceptors(false))
        if (!frames(run, { hook: h.name, method: INTERCEPT }).some((f) => stepOf(f) === step))
          problems.push(`interceptor ${h.name} never received the "${step}" call (fail-open continues the chain)`);
    }
  }
  return problems;
}

/** The harness's declaration; `manifest`: read it even where the claim gives one (to compare). */
export async function declarationFor(harness: HarnessSession, manifest: boolean): Promise<Declaration> {
  const claim = harness.claim.harness?.authentication;
  if (claim !== undefined && !manifest) return declarationOf(claim, undefined);
  return declarationOf(claim, manifestAuthentication(await harness.sharedRun(typicalSession())));
}

/**
 * For a check whose runs bind hooks with an oauth preset: 'oauth' when the harness used the
 * binding in some run (the check goes on to judge its OAuth client); otherwise the refusal is
 * judged here, and 'refused' means it passed (a harness that does not declare oauth, refusing
 * cleanly). `judgesDeclaration`: this check reports a declaration the harness does not keep
 * (auth.oauth-client-credentials); the others leave it to that one.
 */
export async function oauthOrRefusal(
  harness: HarnessSession,
  judge: Judge,
  spec: CheckSpec,
  runs: readonly { run: HarnessRun; plan: RunPlan }[],
  judgesDeclaration = false,
): Promise<'oauth' | 'refused'> {
  if (runs.some((r) => usedOAuth(r.run))) return 'oauth';
  const received = Object.fromEntries(runs.map((r) => [r.run.label, summary(r.run)]));
  const problems = runs.flatMap((r) =>
    refusalProblems(r.run, r.plan).map((p) => (runs.length > 1 ? `${r.run.label}: ${p}` : p)),
  );
  if (problems.length)
    judge.fail(
      `the harness never asked the authorization server (it did not use the oauth binding), and did not refuse the binding cleanly:\n${problems.join('\n')}`,
      { received, expected: spec.expectation },
    );
  const declared = await declarationFor(harness, judgesDeclaration);
  const refused = runs.filter((r) => refusedRegistration(r.run)).length;
  const how =
    refused === runs.length
      ? 'the registration refused'
      : refused === 0
        ? 'the failure policy applied'
        : 'the registration refused or the failure policy applied';
  const refusal = `it refused the oauth binding${runs.length > 1 ? 's' : ''} (no request to the authorization server, nothing delivered to an oauth-bound hook, ${how})`;
  const evidence = { received: { ...received, declaration: declared }, expected: spec.expectation };
  if (declared.oauth === true) {
    if (judgesDeclaration)
      judge.fail(
        `${declared.source} declares oauth support, yet ${refusal}: support it does not have${declared.conflict ? ` (and ${declared.conflict})` : ''}`,
        evidence,
      );
    judge.incomplete(
      `${declared.source} declares oauth support, yet ${refusal}, so its OAuth client could not be judged here (auth.oauth-client-credentials reports the declaration)`,
      evidence,
    );
  }
  // The claim leaves oauth out while the manifest lists it: the vendor tells the certifier not to
  // judge an OAuth client. That is not a false declaration: the runner drives only the
  // client_credentials flow, and a harness whose OAuth is interactive only (authorization_code_pkce)
  // may refuse it, flow selection being client policy. The refusal itself was judged above.
  if (judgesDeclaration && declared.conflict)
    judge.note(
      `${declared.conflict}; the claim decides (a harness whose OAuth flows the runner cannot drive says so this way)`,
    );
  if (declared.oauth === undefined)
    judge.incomplete(
      `${refusal}, and ${declared.source} says whether it supports OAuth: a harness without OAuth may refuse, one that declares it may not (give harness.authentication in the claim)`,
      evidence,
    );
  judge.note(`${declared.source} does not list oauth; ${refusal}`);
  return 'refused';
}
