// A run plan: the resolved claims of one `ahp-conformance run`, and the Playwright
// projects they become (claim × role × transport × lifecycle). The CLI writes the plan
// to a file; playwright.config.ts and the suites' fixtures read it back through the
// AHP_RUN_PLAN environment variable, so every worker sees the same claims.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Lifecycle, Role, Transport } from '../checks/catalogue.js';
import type { ResolvedClaim } from '../claims/load.js';
import type { ContainmentState } from '../../drivers/containment.js';

export const PLAN_ENV = 'AHP_RUN_PLAN';

export interface PlannedClaim {
  claim: ResolvedClaim;
  /** reports/<implementation>/ */
  reportDir: string;
}

export interface RunPlan {
  runnerVersion: string;
  createdAt: string;
  reportsDir: string;
  /** The run's work folder: per-check folders of the implementations (src/engine/workspace.ts). */
  workDir: string;
  /** How implementations are contained in this run (decided once, by the CLI). */
  containment: ContainmentState;
  claims: PlannedClaim[];
}

export interface Target {
  claimIndex: number;
  role: Role;
  transport: Transport;
  /** stdio only. */
  lifecycle?: Lifecycle;
}

export interface PlannedProject {
  name: string;
  target: Target;
}

/** The roles a claim covers, in the order they are certified (`both`: backend, then harness). */
export const claimRoles = (role: Role | 'both'): Role[] => (role === 'both' ? ['backend', 'harness'] : [role]);

export function projectName(claim: ResolvedClaim, t: Target): string {
  return [claim.implementation.name, t.role, t.transport, t.lifecycle].filter(Boolean).join(':');
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
      const lifecycles: (Lifecycle | undefined)[] = transport === 'stdio' ? stdioLifecycles ?? ['persistent'] : [undefined];
      for (const lifecycle of lifecycles) out.push({ claimIndex, role, transport, ...(lifecycle ? { lifecycle } : {}) });
    }
  }
  return out;
}

/** One project per (claim, role, transport, lifecycle) the claims certify. */
export function plannedProjects(plan: RunPlan): PlannedProject[] {
  return plan.claims.flatMap(({ claim }, claimIndex) => claimTargets(claim, claimIndex).map((target) => ({ name: projectName(claim, target), target })));
}

export function writePlan(plan: RunPlan, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
}

let cached: { file: string; plan: RunPlan } | undefined;

/** The plan named by AHP_RUN_PLAN, or undefined when Playwright runs without `ahp-conformance run`. */
export function planFromEnv(): RunPlan | undefined {
  const file = process.env[PLAN_ENV];
  if (!file) return undefined;
  if (cached?.file !== file) cached = { file, plan: JSON.parse(readFileSync(file, 'utf8')) as RunPlan };
  return cached.plan;
}

export const planFile = (reportsDir: string): string => join(reportsDir, '.run', 'plan.json');

/** Harness scenario runs shared between checks of one target during a run (removed by `run`). */
export const sharedRunsDir = (reportsDir: string): string => join(reportsDir, '.run', 'harness-runs');
