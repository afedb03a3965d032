// The adapter config (docs/harness-adapter.md section 2, contract versions 1 and 2), read and
// checked by hand: compiling the contract schema would cost more start-up time than the
// few rules it holds. Unknown members are ignored (later contract versions only add).
// The registration is passed on untouched: judging it is registration.ts's job.
import { readFileSync } from 'node:fs';
import { isObject, parseJsonBytes, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import { resolveSnapshot, type SnapshotId } from '../../src/protocol/snapshots.js';

export type HostPolicy = 'allow' | 'ask-refuse' | 'deny';
export type SessionOutcome = 'completed' | 'cancelled' | 'error' | 'unknown';

export interface ScenarioSession {
  readonly id: string;
  readonly cwd?: string;
}

export interface ToolStep {
  readonly id: string;
  readonly kind: 'tool';
  readonly tool: { readonly name: string; readonly input: JsonObject };
  readonly marker: string;
  readonly host: HostPolicy;
}

/** The content step kinds of contract version 2 (one per content boundary). */
export const CONTENT_STEP_KINDS = [
  'user.message.inbound',
  'user.message.outbound',
  'model.request',
  'model.response',
  'tool.output',
  'context.compact.before',
  'context.compact.after',
  'user.elicitation.request',
  'user.elicitation.result',
  'workspace.change',
] as const;
export type ContentStepKind = (typeof CONTENT_STEP_KINDS)[number];

/**
 * A content step: the kind-specific members are kept as given (`body`) and read by
 * content.ts, which knows each boundary's shape; only what every kind shares is checked here.
 */
export interface ContentStep {
  readonly id: string;
  readonly kind: ContentStepKind;
  readonly marker: string;
  readonly body: JsonObject;
}

export type Step =
  | { readonly id: string; readonly kind: 'session.start' }
  | { readonly id: string; readonly kind: 'session.end'; readonly outcome: SessionOutcome }
  | ToolStep
  | { readonly id: string; readonly kind: 'parallel'; readonly steps: readonly ToolStep[] }
  | ContentStep
  /** A step kind of a later contract version: reported as `unsupported`. */
  | { readonly id: string; readonly kind: 'unsupported'; readonly declared: string };

export interface AdapterConfig {
  readonly adapterContract: 1 | 2;
  /** The snapshot the claim is judged by (docs/harness-adapter.md section 2); absent from an earlier runner's config. */
  readonly snapshot?: SnapshotId;
  readonly registration: JsonValue;
  readonly sentinel: { readonly tool: string };
  readonly scenario: { readonly session: ScenarioSession; readonly steps: readonly Step[] };
  readonly report: string;
  /** Roots to trust for this run only (the runner's per-run CA; docs/harness-adapter.md section 10). */
  readonly tls?: { readonly caFile: string };
}

export type ConfigResult = { ok: true; config: AdapterConfig } | { ok: false; error: string };

const STEP_ID = /^[A-Za-z0-9._-]+$/;
const HOSTS: readonly string[] = ['allow', 'ask-refuse', 'deny'];
const SESSION_OUTCOMES: readonly string[] = ['completed', 'cancelled', 'error', 'unknown'];

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

class ConfigError extends Error {}
function need(cond: unknown, message: string): asserts cond {
  if (!cond) throw new ConfigError(message);
}

export function loadConfig(path: string): ConfigResult {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return { ok: false, error: `cannot read config ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok)
    return { ok: false, error: `config ${path} is not valid JSON: ${parsed.findings[0]?.message ?? 'parse error'}` };
  try {
    return { ok: true, config: checkConfig(parsed.value) };
  } catch (e) {
    if (e instanceof ConfigError) return { ok: false, error: `config ${path}: ${e.message}` };
    throw e;
  }
}

function checkConfig(value: JsonValue): AdapterConfig {
  need(isObject(value), 'must be a JSON object');
  need(value.adapterContract === 1 || value.adapterContract === 2, 'adapterContract must be 1 or 2');
  need('registration' in value, 'registration is missing');
  need(isObject(value.sentinel) && nonEmpty(value.sentinel.tool), 'sentinel.tool must be a non-empty string');
  need(nonEmpty(value.report), 'report must be a non-empty path');
  const scenario = value.scenario;
  need(isObject(scenario), 'scenario must be an object');
  const session = scenario.session;
  need(isObject(session) && nonEmpty(session.id), 'scenario.session.id must be a non-empty string');
  need(session.cwd === undefined || typeof session.cwd === 'string', 'scenario.session.cwd must be a string');
  need(Array.isArray(scenario.steps), 'scenario.steps must be a list');

  const seen = new Set<string>();
  const steps = scenario.steps.map((s, i) => checkStep(s, `scenario.steps[${i}]`, seen, true));
  const tls = value.tls;
  need(tls === undefined || (isObject(tls) && nonEmpty(tls.caFile)), 'tls.caFile must be a non-empty path');
  // Only a snapshot this harness knows by its full id: plain `draft` or a cut commit never comes from the runner.
  const known = typeof value.snapshot === 'string' ? resolveSnapshot(value.snapshot) : undefined;
  const snapshot = known?.id === value.snapshot ? known?.id : undefined;
  need(value.snapshot === undefined || snapshot !== undefined, 'snapshot must name a snapshot this harness knows');
  return {
    ...(isObject(tls) ? { tls: { caFile: tls.caFile as string } } : {}),
    ...(snapshot ? { snapshot } : {}),
    adapterContract: value.adapterContract,
    registration: value.registration as JsonValue,
    sentinel: { tool: value.sentinel.tool },
    scenario: {
      session: typeof session.cwd === 'string' ? { id: session.id, cwd: session.cwd } : { id: session.id },
      steps,
    },
    report: value.report,
  };
}

function checkStep(step: JsonValue, where: string, seen: Set<string>, topLevel: boolean): Step {
  need(isObject(step), `${where} must be an object`);
  need(typeof step.id === 'string' && STEP_ID.test(step.id), `${where}.id must match ${STEP_ID.source}`);
  // Outcomes are reported per step id, so two steps with one id could not be told apart.
  need(!seen.has(step.id), `${where}.id "${step.id}" is used twice`);
  seen.add(step.id);
  const id = step.id;
  need(typeof step.kind === 'string', `${where}.kind must be a string`);
  if (!topLevel) need(step.kind === 'tool', `${where}: a parallel step holds tool steps only`);
  switch (step.kind) {
    case 'session.start':
      return { id, kind: 'session.start' };
    case 'session.end':
      need(
        typeof step.outcome === 'string' && SESSION_OUTCOMES.includes(step.outcome),
        `${where}.outcome must be one of ${SESSION_OUTCOMES.join(', ')}`,
      );
      return { id, kind: 'session.end', outcome: step.outcome as SessionOutcome };
    case 'tool': {
      const tool = step.tool;
      need(isObject(tool) && nonEmpty(tool.name), `${where}.tool.name must be a non-empty string`);
      need(isObject(tool.input), `${where}.tool.input must be an object`);
      need(nonEmpty(step.marker), `${where}.marker must be a non-empty path`);
      need(
        typeof step.host === 'string' && HOSTS.includes(step.host),
        `${where}.host must be one of ${HOSTS.join(', ')}`,
      );
      return {
        id,
        kind: 'tool',
        tool: { name: tool.name, input: tool.input },
        marker: step.marker,
        host: step.host as HostPolicy,
      };
    }
    case 'parallel': {
      need(Array.isArray(step.steps) && step.steps.length > 0, `${where}.steps must be a non-empty list`);
      const inner = step.steps.map((s, i) => checkStep(s, `${where}.steps[${i}]`, seen, false) as ToolStep);
      return { id, kind: 'parallel', steps: inner };
    }
    default: {
      const kind = step.kind;
      if (!(CONTENT_STEP_KINDS as readonly string[]).includes(kind)) return { id, kind: 'unsupported', declared: kind };
      need(nonEmpty(step.marker), `${where}.marker must be a non-empty path`);
      return { id, kind: kind as ContentStepKind, marker: step.marker, body: step };
    }
  }
}
