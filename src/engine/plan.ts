// A run plan: the resolved claims of one `ahp-conformance run`, and the Playwright
// projects they become (claim × role × transport × lifecycle). Applicability is decided
// here, before anything runs: each project collects only the checks that apply to its
// target (its role's suite folder and a grep of its check ids), and the checks the claim
// cannot exercise are declared not applicable with the reason. The CLI writes the plan into
// the run's private folder (src/engine/run-folder.ts); playwright.config.ts is its only
// reader and hands each project its claim and target through `use` (suites/support/check.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { applicableChecks, checkSpec, claimRoles, type Lifecycle } from '../checks/catalogue.js';
import type { ResolvedClaim } from '../claims/load.js';
import type { ContainmentState } from '../../drivers/containment.js';
import { targetName, type ImplementationFile, type Target } from '../results/model.js';
import type { DeclaredNotApplicable } from '../results/run-record.js';
import type { RunInfo } from '../results/model.js';
import type { ExpectedFailure } from '../results/expected-failures.js';
import { selected } from '../results/check-title.js';

export interface PlannedClaim {
  claim: ResolvedClaim;
  /** reports/<implementation>/ */
  reportDir: string;
  /** `run --timeout-ms`: the claim's own `timeoutMs` and the run's (already in `claim`). */
  timeoutMsOverride?: { claim: number; run: number };
  /** The implementation's files, hashed before launch (src/engine/implementation-files.ts). */
  implementationFiles?: ImplementationFile[];
}

export interface RunPlan {
  runnerVersion: string;
  createdAt: string;
  reportsDir: string;
  /** A partial run writing inside a full run's reports folder: that whole folder, hidden from implementations. */
  hiddenReportsDir?: string;
  /** --grep / --grep-invert: recorded, so a merge of shards that ran them is not taken for a full run. */
  selection?: RunInfo['selection'];
  /** --full-transcripts: results.json keeps every transcript entry of passing checks too. */
  fullTranscripts?: true;
  /** --repeat N (N > 1): Playwright runs every check N times, and the reporter folds them (src/results/repetitions.ts). */
  repeat?: number;
  /** The folder the run started in: results name claim files relative to it. */
  cwd?: string;
  /**
   * --expected-failures, for Playwright's expected failures (src/results/expected-failures.ts,
   * listedChecks); left out of a run with --retries or --max-failures, where Playwright would
   * treat a listed check differently (no retry, not counted towards the maximum).
   */
  expectedFailures?: ExpectedFailure[];
  /**
   * The run's private folder (src/engine/run-folder.ts): the plan, the outcome and the
   * per-check folders of the implementations (src/engine/workspace.ts); hidden from them.
   */
  workDir: string;
  /** How implementations are contained in this run (decided once, by the CLI). */
  containment: ContainmentState;
  claims: PlannedClaim[];
}

export interface PlannedProject {
  name: string;
  target: Target;
  /** The checks this project runs, in catalogue order. */
  checks: string[];
  /** Checks of the target the claim cannot exercise: reported, never run. */
  notApplicable: DeclaredNotApplicable[];
}

/**
 * The targets one claim certifies, in plan order: for each role it covers (`both`:
 * backend, then harness), for each claimed transport: stdio once per lifecycle (the
 * backend's `backend.stdio` lifecycles, the harness's `harness.lifecycles`), http once.
 */
export function claimTargets(claim: ResolvedClaim, claimIndex: number): Target[] {
  const out: Target[] = [];
  for (const role of claimRoles(claim.role)) {
    for (const transport of claim.transports) {
      const stdioLifecycles = role === 'backend' ? claim.backend?.stdio?.lifecycles : claim.harness?.lifecycles;
      const lifecycles: (Lifecycle | undefined)[] =
        transport === 'stdio' ? (stdioLifecycles ?? ['persistent']) : [undefined];
      for (const lifecycle of lifecycles)
        out.push({ claimIndex, role, transport, ...(lifecycle ? { lifecycle } : {}) });
    }
  }
  return out;
}

/**
 * Why a check that applies to the target cannot be exercised with this claim, if it
 * cannot: a check of a rule that the claim's snapshot does not have (the catalogue row's
 * `snapshots`), the sample checks without the claim's samples of their kind, and the
 * backend's `hooks/configuration` checks of the other case than the claim's, the
 * content checks of boundaries the claim does not claim, the backend authentication
 * checks without a claimed `backend.http.auth`, and upload.receiver-auth without a claimed
 * `backend.upload.auth`.
 */
function unexercisable(claim: ResolvedClaim, id: string): string | undefined {
  const only = checkSpec(id).snapshots;
  if (only !== undefined && !only.includes(claim.snapshot)) {
    return `the rule it judges is not part of ${claim.snapshot} (it is in ${only.join(', ')})`;
  }
  const samples = checkSpec(id).samples;
  if (samples && (claim.backend?.samples[samples].length ?? 0) === 0) {
    return `the claim lists no ${samples} samples, so the ${samples} path was not exercised`;
  }
  const boundary = checkSpec(id).boundary;
  if (boundary !== undefined) {
    if (checkSpec(id).roles.includes('harness') && !(claim.harness?.boundaries ?? []).includes(boundary))
      return `the claim does not list ${boundary} among the harness's content boundaries (harness.boundaries)`;
    if (
      checkSpec(id).roles.includes('backend') &&
      !(claim.backend?.samples.content ?? []).some((s) => s.event === boundary)
    )
      return `the claim gives no content sample of ${boundary} (backend.samples.content)`;
  }
  const auth = checkSpec(id).auth;
  const http = claim.backend?.http;
  if (auth === 'claimed' && http?.tokenEnv === undefined && http?.oauth === undefined)
    return 'the claim does not say the backend requires authentication (backend.http.auth)';
  if (auth === 'oauth' && http?.oauth === undefined)
    return 'the claim does not say the backend is OAuth-protected (backend.http.auth type oauth)';
  if (checkSpec(id).uploads) {
    if (checkSpec(id).roles.includes('harness') && !claim.harness?.uploads)
      return 'the claim does not say the harness uploads attachments (harness.uploads)';
    if (checkSpec(id).roles.includes('backend') && !claim.backend?.upload)
      return 'the claim names no upload receiver of the backend (backend.upload)';
  }
  if (auth === 'upload' && claim.backend?.upload?.tokenEnv === undefined)
    return 'the claim does not say the upload receiver requires its own token (backend.upload.auth)';
  const configuration = checkSpec(id).configuration;
  const served = claim.backend?.configuration ?? false;
  if (configuration === 'served' && !served)
    return 'the claim does not say the backend serves hooks/configuration (backend.configuration); base.configuration-unoffered judges what a request for it gets';
  if (configuration === 'not-served' && served)
    return 'the claim says the backend serves hooks/configuration (backend.configuration); base.configuration judges its reply';
  return undefined;
}

/** One project per (claim, role, transport, lifecycle) the claims certify, with its checks. */
export function plannedProjects(plan: Pick<RunPlan, 'claims'>): PlannedProject[] {
  return plan.claims.flatMap(({ claim }, claimIndex) =>
    claimTargets(claim, claimIndex).map((target) => {
      const checks: string[] = [];
      const notApplicable: DeclaredNotApplicable[] = [];
      for (const spec of applicableChecks(target.role, target.transport, target.lifecycle, claim.profiles)) {
        const reason = unexercisable(claim, spec.id);
        if (reason)
          notApplicable.push({
            id: spec.id,
            reason,
            role: target.role,
            transport: target.transport,
            ...(target.lifecycle ? { lifecycle: target.lifecycle } : {}),
          });
        else checks.push(spec.id);
      }
      return { name: targetName(claim.implementation.name, target), target, checks, notApplicable };
    }),
  );
}

/**
 * The projects as `--grep` and `--grep-invert` leave them (src/results/check-title.ts:
 * matched against each check's title, not Playwright's title path); a project left with no
 * check is left out. The whole plan stays what the claims need (a partial run says so).
 */
export function selectedProjects(
  projects: readonly PlannedProject[],
  selection: RunPlan['selection'],
): PlannedProject[] {
  if (!selection) return [...projects];
  return projects.flatMap((p) => {
    const checks = p.checks.filter((id) => selected(selection, p.name, id, checkSpec(id).title));
    return checks.length ? [{ ...p, checks }] : [];
  });
}

export function writePlan(plan: RunPlan, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
}

export function readPlan(file: string): RunPlan {
  return JSON.parse(readFileSync(file, 'utf8')) as RunPlan;
}
