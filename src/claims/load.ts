// Claim files: load the YAML, check it against schemas/claim.schema.json, apply the
// completeness rule (AHP-CORE-001/002), and resolve how to launch the implementation
// (a backend per claimed transport, a harness through its adapter; `both` needs both).
// Every problem becomes one line that names the field; nothing here prints.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { findOnPath } from '../../drivers/processes.js';
import { checkImplementation, ClaimLimitError, parseClaimYaml, readClaimText } from './limits.js';
import { RUNNER_ENV } from './environment.js';
import { packageRoot } from '../package-root.js';
import { CAPABILITY_PROFILES, claimRoles, type Lifecycle, type Role, type Transport } from '../checks/catalogue.js';

export interface Sample {
  event: 'tool.before';
  tool: { name: string; input: Record<string, unknown>; kind?: string };
  effects?: string[];
  modify?: Record<string, unknown>;
}

export interface StdioLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Names of the runner's variables passed on as they are (src/claims/environment.ts). */
  passEnv: string[];
  lifecycles: Lifecycle[];
}

export interface HttpLaunch {
  /** Absent: the server is already running at `url`. */
  command?: string;
  args: string[];
  /** May hold `{port}`, filled with a free loopback port at launch. */
  url: string;
  cwd: string;
  env: Record<string, string>;
  passEnv: string[];
  readyTimeoutMs: number;
  /** The environment variable holding the bearer token (never the token itself). */
  tokenEnv?: string;
}

/** How to start a harness under test: its adapter (docs/harness-adapter.md). */
export interface HarnessLaunch {
  command: string;
  /** Normally holds {@link CONFIG_PLACEHOLDER}, replaced by the config file's absolute path at launch. */
  args: string[];
  cwd: string;
  env: Record<string, string>;
  passEnv: string[];
  /** The stdio backend lifecycles the harness supports (default both). */
  lifecycles: Lifecycle[];
}

/** In `harness.args`: replaced by the adapter config file's path (also in env AHP_ADAPTER_CONFIG). */
export const CONFIG_PLACEHOLDER = '{config}';

export interface ResolvedClaim {
  file: string;
  dir: string;
  implementation: { name: string; version: string };
  snapshot: 'draft';
  role: Role | 'both';
  transports: Transport[];
  profiles: string[];
  timeoutMs: number;
  /** Present when the role is backend or both. */
  backend?: {
    stdio?: StdioLaunch;
    http?: HttpLaunch;
    samples: { deny: Sample[]; modify: Sample[] };
  };
  /** Present when the role is harness or both. */
  harness?: HarnessLaunch;
}

export type ClaimOutcome =
  | { kind: 'ok'; claim: ResolvedClaim }
  | { kind: 'incomplete'; reason: string; implementation?: { name: string; version: string }; file: string }
  | { kind: 'error'; message: string; file: string };

const DEFAULT_TIMEOUT_MS = 2000;

let claimValidator: ReturnType<InstanceType<typeof Ajv2020>['compile']> | undefined;
function claimSchemaValidator(): ReturnType<InstanceType<typeof Ajv2020>['compile']> {
  if (!claimValidator) {
    const schema = JSON.parse(readFileSync(join(packageRoot(), 'schemas', 'claim.schema.json'), 'utf8')) as object;
    claimValidator = new Ajv2020({ allErrors: false, strict: false }).compile(schema);
  }
  return claimValidator;
}

/** `/backend/stdio/command` → `backend.stdio.command`. */
const field = (pointer: string): string =>
  pointer === ''
    ? '(top level)'
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
        .join('.');

class ClaimProblem extends Error {}

/** Resolve a command as the claim format says: with a '/', relative to the claim; else on PATH. */
function resolveCommand(command: string, dir: string, where: string): string {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(dir, command);
    try {
      accessSync(path, constants.X_OK);
    } catch {
      throw new ClaimProblem(`${where}: ${command} is not an executable file (resolved to ${path})`);
    }
    return path;
  }
  if (!findOnPath(command, process.env.PATH ?? ''))
    throw new ClaimProblem(`${where}: "${command}" is not found on PATH`);
  return command;
}

function resolveCwd(cwd: string | undefined, dir: string, where: string): string {
  const path = cwd === undefined ? dir : resolve(dir, cwd);
  try {
    if (!statSync(path).isDirectory()) throw new Error();
  } catch {
    throw new ClaimProblem(`${where}: ${path} is not a directory`);
  }
  return path;
}

/** A `passEnv` list, refused if it names a variable the runner sets for itself. */
function passEnvOf(list: string[] | undefined, where: string): string[] {
  const own = (list ?? []).find((n) => RUNNER_ENV.includes(n));
  if (own !== undefined)
    throw new ClaimProblem(`${where}: ${own} is a variable the runner sets for itself; no implementation gets it`);
  return list ?? [];
}

function checkUrlTemplate(url: string, hasCommand: boolean, where: string): void {
  if (url.includes('{port}') && !hasCommand)
    throw new ClaimProblem(`${where}: "{port}" needs a command that starts the server`);
  let parsed: URL;
  try {
    parsed = new URL(url.replaceAll('{port}', '1'));
  } catch {
    throw new ClaimProblem(`${where}: "${url}" is not an absolute URL`);
  }
  if (parsed.protocol === 'https:') return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (parsed.protocol !== 'http:' || !loopback) {
    throw new ClaimProblem(`${where}: plain http is allowed only to loopback addresses (use https for ${parsed.host})`);
  }
}

/** The `backend` block as written (after the schema check). */
interface RawBackend {
  stdio?: {
    command: string;
    args?: string[];
    lifecycle?: Lifecycle | Lifecycle[];
    cwd?: string;
    env?: Record<string, string>;
    passEnv?: string[];
  };
  http?: {
    command?: string;
    args?: string[];
    url: string;
    cwd?: string;
    env?: Record<string, string>;
    passEnv?: string[];
    readyTimeoutMs?: number;
    auth?: { type: 'bearer'; tokenEnv: string };
  };
  samples?: { deny?: Sample[]; modify?: Sample[] };
}

/** The backend launch blocks, one per claimed transport. */
function resolveBackend(
  b: RawBackend | undefined,
  transports: Transport[],
  dir: string,
): NonNullable<ResolvedClaim['backend']> {
  const backend: NonNullable<ResolvedClaim['backend']> = {
    samples: { deny: b?.samples?.deny ?? [], modify: b?.samples?.modify ?? [] },
  };
  for (const t of transports) {
    const where = `backend.${t}`;
    if (t === 'stdio') {
      const s = b?.stdio;
      if (!s) throw new ClaimProblem(`${where}: transport stdio is claimed but backend.stdio (command) is missing`);
      backend.stdio = {
        command: resolveCommand(s.command, dir, `${where}.command`),
        args: s.args ?? [],
        cwd: resolveCwd(s.cwd, dir, `${where}.cwd`),
        env: s.env ?? {},
        passEnv: passEnvOf(s.passEnv, `${where}.passEnv`),
        lifecycles:
          s.lifecycle === undefined ? ['persistent'] : Array.isArray(s.lifecycle) ? s.lifecycle : [s.lifecycle],
      };
    } else {
      const h = b?.http;
      if (!h) throw new ClaimProblem(`${where}: transport http is claimed but backend.http (url) is missing`);
      checkUrlTemplate(h.url, h.command !== undefined, `${where}.url`);
      if (h.auth && !process.env[h.auth.tokenEnv]) {
        throw new ClaimProblem(`${where}.auth.tokenEnv: environment variable ${h.auth.tokenEnv} is not set`);
      }
      backend.http = {
        ...(h.command === undefined ? {} : { command: resolveCommand(h.command, dir, `${where}.command`) }),
        args: h.args ?? [],
        url: h.url,
        cwd: resolveCwd(h.cwd, dir, `${where}.cwd`),
        env: h.env ?? {},
        passEnv: passEnvOf(h.passEnv, `${where}.passEnv`),
        readyTimeoutMs: h.readyTimeoutMs ?? 10_000,
        ...(h.auth ? { tokenEnv: h.auth.tokenEnv } : {}),
      };
    }
  }
  return backend;
}

export function loadClaim(file: string): ClaimOutcome {
  const path = resolve(file);
  const dir = dirname(path);
  // Size, YAML aliases, implementation name and version: src/claims/limits.ts.
  let raw: unknown;
  try {
    raw = parseClaimYaml(readClaimText(path));
    checkImplementation(raw);
  } catch (e) {
    if (e instanceof ClaimLimitError) return { kind: 'error', file, message: `${file}: ${e.message}` };
    throw e;
  }
  const validate = claimSchemaValidator();
  if (!validate(raw)) {
    const e = validate.errors![0]!;
    const at =
      e.keyword === 'required'
        ? `${field(e.instancePath)}${e.instancePath ? '.' : ''}${String(e.params.missingProperty)}`
        : e.keyword === 'additionalProperties'
          ? `${field(e.instancePath)}${e.instancePath ? '.' : ''}${String(e.params.additionalProperty)}`
          : field(e.instancePath);
    const why =
      e.keyword === 'required'
        ? 'is missing'
        : e.keyword === 'additionalProperties'
          ? 'is not a claim field'
          : e.keyword === 'enum' || e.keyword === 'const'
            ? `${e.message} (${JSON.stringify(e.params.allowedValues ?? e.params.allowedValue)})`
            : String(e.message);
    return { kind: 'error', file, message: `${file}: ${at} ${why}` };
  }
  const c = raw as {
    implementation: { name: string; version: string };
    role: Role | 'both';
    transports?: Transport[];
    profiles?: string[];
    timeoutMs?: number;
    backend?: RawBackend;
    harness?: {
      command: string;
      args?: string[];
      cwd?: string;
      env?: Record<string, string>;
      passEnv?: string[];
      lifecycles?: Lifecycle[];
    };
  };
  const transports = c.transports ?? [];
  const profiles = c.profiles ?? [];
  const unknown = profiles.filter(
    (p) => !(CAPABILITY_PROFILES as readonly string[]).includes(p) && !['base', 'stdio', 'http'].includes(p),
  );
  if (unknown.length) {
    return {
      kind: 'error',
      file,
      message: `${file}: profiles: unknown profile "${unknown[0]}" (capability profiles: ${CAPABILITY_PROFILES.join(', ')})`,
    };
  }
  // AHP-CORE-001/002: the Base Protocol needs a capability profile and a transport binding.
  const capability = profiles.filter((p) => (CAPABILITY_PROFILES as readonly string[]).includes(p));
  const missing = [
    capability.length === 0 ? 'a capability profile' : '',
    transports.length === 0 ? 'a transport binding' : '',
  ].filter(Boolean);
  if (missing.length) {
    return {
      kind: 'incomplete',
      file,
      implementation: c.implementation,
      reason: `the claim names no ${missing.join(' and no ')}; a Base Protocol claim is incomplete without both (AHP-CORE-001, AHP-CORE-002)`,
    };
  }
  const roles = claimRoles(c.role);
  try {
    const claim: ResolvedClaim = {
      file: path,
      dir,
      implementation: c.implementation,
      snapshot: 'draft',
      role: c.role,
      transports,
      profiles: capability,
      timeoutMs: c.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    };
    // A block for a role the claim does not cover is ignored.
    if (roles.includes('backend')) claim.backend = resolveBackend(c.backend, transports, dir);
    if (roles.includes('harness')) {
      const h = c.harness;
      if (!h)
        throw new ClaimProblem(
          `harness.command: role ${c.role} is claimed but harness.command (the adapter to start) is missing`,
        );
      claim.harness = {
        command: resolveCommand(h.command, dir, 'harness.command'),
        args: h.args ?? [],
        cwd: resolveCwd(h.cwd, dir, 'harness.cwd'),
        env: h.env ?? {},
        passEnv: passEnvOf(h.passEnv, 'harness.passEnv'),
        lifecycles: h.lifecycles ?? ['persistent', 'per_event'],
      };
    }
    return { kind: 'ok', claim };
  } catch (err) {
    if (err instanceof ClaimProblem) return { kind: 'error', file, message: `${file}: ${err.message}` };
    throw err;
  }
}
