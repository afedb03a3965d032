// Claim files: load the YAML, check it against schemas/claim.schema.json, apply the
// completeness rule (AHP-CORE-001/002), and resolve how to launch the implementation
// (a backend per claimed transport, a harness through its adapter; `both` needs both).
// Every problem becomes one line that names the field, and a file's problems are all
// reported at once (docs/claims.md, "Completeness and errors"); nothing here prints.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { findOnPath } from '../../drivers/processes.js';
import {
  ClaimLimitError,
  implementationProblems,
  parseClaim,
  quoted,
  readClaimText,
  type ParsedClaim,
} from './limits.js';
import { checkPlaceholders, portLookalike } from './placeholders.js';
import { didYouMean } from './near-miss.js';
import { RUNNER_ENV } from './environment.js';
import { packageRoot } from '../package-root.js';
import { canonicalPath, isWithin } from '../safe-fs.js';
import { CAPABILITY_PROFILES, claimRoles, type Lifecycle, type Role, type Transport } from '../checks/catalogue.js';
import type { BoundaryEvent, ContentSample } from '../checks/boundaries.js';
import { NEWEST_SNAPSHOT, resolveSnapshot, SNAPSHOT_IDS, SNAPSHOTS, type SnapshotId } from '../protocol/snapshots.js';
import type { AuthMechanism } from '../protocol/catalogue.js';

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
  /**
   * OAuth-protected (only for a server the runner starts): the variables that get the
   * runner's issuer URL and the run CA file's path, and the scopes every token must carry.
   */
  oauth?: OAuthProtection;
}

export interface OAuthProtection {
  issuerEnv: string;
  caFileEnv: string;
  scopes: string[];
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
  /**
   * The content boundaries the harness supports (src/checks/boundaries.ts): events it emits
   * and whose modify target it applies. Their content checks need adapter contract 2
   * (docs/harness-adapter.md); default none.
   */
  boundaries: BoundaryEvent[];
  /**
   * The harness uploads immutable media attachments over the content-upload binding (a
   * subscription's `upload`): the upload checks run (docs/harness-adapter.md "Upload steps"); default false.
   */
  uploads: boolean;
  /**
   * The endpoint authentication mechanisms the claim says the harness supports (its
   * manifest's `authentication`). Absent: the claim does not say, and the checks that need
   * to know read the manifest of the harness's session.start (suites/support/oauth-declaration.ts).
   */
  authentication?: AuthMechanism[];
}

/** In `harness.args`: replaced by the adapter config file's path (also in env AHP_ADAPTER_CONFIG). */
export const CONFIG_PLACEHOLDER = '{config}';

export interface ResolvedClaim {
  file: string;
  dir: string;
  implementation: { name: string; version: string };
  /** The snapshot the claim is judged by (src/protocol/snapshots.ts). */
  snapshot: SnapshotId;
  /** What the claim said (`draft`, `draft@<commit>` or a release date), for the report when it differs. */
  snapshotRequested: string;
  role: Role | 'both';
  transports: Transport[];
  profiles: string[];
  timeoutMs: number;
  /** Present when the role is backend or both. */
  backend?: {
    stdio?: StdioLaunch;
    http?: HttpLaunch;
    samples: { deny: Sample[]; modify: Sample[]; content: ContentSample[] };
    /**
     * The backend serves `hooks/configuration` (draft@1d98c19): nothing on the wire
     * advertises it, so the claim says it (docs/claims.md).
     */
    configuration: boolean;
    /**
     * The backend's content-upload receiver, served beside its HTTP endpoint: `url` may use
     * the http block's `{port}`; `maxBytes` is the limit it enforces (docs/claims.md);
     * `tokenEnv`: the receiver requires its own bearer token, held in that variable
     * (`backend.upload.auth`), never the event endpoint's.
     */
    upload?: { url: string; maxBytes: number; tokenEnv?: string };
  };
  /** Present when the role is harness or both. */
  harness?: HarnessLaunch;
  /** `artifacts`: files of the implementation the claim names, each as written and resolved (hashed before launch). */
  artifacts: { name: string; path: string }[];
}

export type ClaimOutcome =
  | { kind: 'ok'; claim: ResolvedClaim }
  | {
      kind: 'incomplete';
      reason: string;
      implementation?: { name: string; version: string };
      file: string;
      /** The claim's `snapshot:` text, for the results of a claim that never resolved. */
      snapshot?: string;
    }
  /** Every problem of the file, one line each, each starting with the file's name. */
  | { kind: 'error'; messages: string[]; file: string };

const DEFAULT_TIMEOUT_MS = 2000;

type Validator = ReturnType<InstanceType<typeof Ajv2020>['compile']>;
let claimValidator: Validator | undefined;
function claimSchemaValidator(): Validator {
  if (!claimValidator) {
    const schema = JSON.parse(readFileSync(join(packageRoot(), 'schemas', 'claim.schema.json'), 'utf8')) as object;
    // allErrors: a claim's every problem at once; verbose: the schema beside each error, for "did you mean".
    claimValidator = new Ajv2020({ allErrors: true, verbose: true, strict: false }).compile(schema);
  }
  return claimValidator;
}

/** A JSON pointer's segments: `/backend/http/args/2` → backend, http, args, 2. */
const segments = (pointer: string): (string | number)[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
        .map((s) => (/^\d+$/.test(s) ? Number(s) : s));

/** Segments as a claim field: backend, http, args, 2 → `backend.http.args[2]`. */
const fieldName = (path: readonly (string | number)[]): string =>
  path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

class ClaimProblem extends Error {}

/** Why a claimed transport needs its backend block, in the words the loader has always used. */
const NEEDED_BLOCK: Record<string, string> = {
  'backend.stdio': 'transport stdio is claimed but backend.stdio (command) is missing',
  'backend.http': 'transport http is claimed but backend.http (url) is missing',
};

const A_TYPE: Record<string, string> = {
  string: 'a string',
  array: 'a list, such as [a, b]',
  object: 'a block of fields',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

/** Why a value is not of the type a field needs, with the fix where YAML misled the writer. */
function typeProblem(type: string, data: unknown, written: string | undefined): string {
  const want = A_TYPE[type] ?? type;
  // YAML reads 1.0, 2 and true as a number or a boolean: the fix is quotes.
  if (type === 'string' && (typeof data === 'number' || typeof data === 'boolean')) {
    const text = written ?? String(data);
    return `must be a string, and YAML reads ${text} as a ${typeof data}: write "${text}" in quotes`;
  }
  if (data === null) return `is empty; it must be ${want}`;
  if (type === 'array' && (typeof data === 'string' || typeof data === 'number'))
    return `must be a list: write [${written ?? String(data)}]`;
  return `must be ${want}`;
}

/** A value of the claim as a message shows it: JSON, cut short (a claim may hold anything). */
const shownValue = (data: unknown): string => {
  if (typeof data === 'string') return quoted(data);
  const json = JSON.stringify(data) ?? String(data);
  return json.length > 60 ? `${json.slice(0, 60)}...` : json;
};

/** A problem's line and where in the file it is, to list a file's problems in its order. */
interface Located {
  line: string;
  offset: number;
}

/**
 * The schema's errors as claim lines, all of them, without the noise Ajv adds around them:
 * the `if` that chose a `then`, the branches of a `oneOf` (one line for the whole), the
 * wrapper of `propertyNames`. `conditional` errors come from the schema's top-level allOf
 * (the blocks a role and its transports need) and are judged after completeness.
 */
function schemaProblems(
  errors: readonly ErrorObject[],
  parsed: ParsedClaim,
  role: unknown,
): { plain: Located[]; conditional: string[] } {
  const plain: Located[] = [];
  const conditional: string[] = [];
  const add = (at: readonly (string | number)[], line: string): number =>
    plain.push({ line, offset: parsed.offsetAt(at) });
  const alternatives = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  const insideAlternative = (e: ErrorObject): boolean =>
    alternatives.some((a) => a !== e && e.schemaPath.startsWith(`${a.schemaPath}/`));
  for (const e of errors) {
    if (e.keyword === 'if' || e.keyword === 'propertyNames' || insideAlternative(e)) continue;
    const path = segments(e.instancePath);
    const at = e.keyword === 'additionalProperties' ? [...path, String(e.params.additionalProperty)] : path;
    if (e.keyword === 'required') {
      const missing = [...path, String(e.params.missingProperty)];
      const name = fieldName(missing);
      if (!e.schemaPath.startsWith('#/allOf/')) {
        add(at, `${name} is missing`);
      } else if (name === 'harness') {
        conditional.push(`harness is missing: role ${String(role)} needs it (harness.command, the adapter to start)`);
      } else if (name !== 'backend') {
        // A missing backend block is reported as each claimed transport's missing block.
        conditional.push(`${name}: ${NEEDED_BLOCK[name] ?? 'is missing'}`);
      } else {
        // The `then` that requires the backend names the transport's block it requires in it.
        const then = e.parentSchema as { properties?: { backend?: { required?: string[] } } } | undefined;
        const block = `backend.${then?.properties?.backend?.required?.[0] ?? ''}`;
        conditional.push(`${block}: ${NEEDED_BLOCK[block] ?? 'is missing'}`);
      }
      continue;
    }
    const name = fieldName(path) || 'the claim';
    if (e.keyword === 'additionalProperties') {
      const extra = String(e.params.additionalProperty);
      const shownExtra = /^[A-Za-z0-9_.-]{1,60}$/.test(extra) ? extra : quoted(extra);
      const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const hint = didYouMean(extra, known);
      add(
        at,
        `${fieldName([...path, shownExtra])} is not a claim field` +
          (hint ? `; did you mean ${hint}?` : known.length ? ` (fields here: ${known.join(', ')})` : ''),
      );
    } else if (e.keyword === 'enum' || e.keyword === 'const') {
      const allowed = ((e.params.allowedValues as unknown[] | undefined) ?? [e.params.allowedValue]).map(String);
      const hint = typeof e.data === 'string' ? didYouMean(e.data, allowed) : undefined;
      add(
        at,
        `${name} is ${shownValue(e.data)}; it must be ${allowed.length > 1 ? 'one of ' : ''}${allowed.join(', ')}` +
          (hint ? ` (did you mean ${hint}?)` : ''),
      );
    } else if (e.keyword === 'oneOf' || e.keyword === 'anyOf') {
      const branches = errors.filter((b) => b.schemaPath.startsWith(`${e.schemaPath}/`) && b.keyword === 'enum');
      const allowed = [...new Set(branches.flatMap((b) => (b.params.allowedValues as unknown[]).map(String)))];
      add(
        at,
        allowed.length
          ? `${name} is ${shownValue(e.data)}; it must be one of ${allowed.join(', ')}, or a list of them`
          : `${name} ${String(e.message)}`,
      );
    } else if (e.keyword === 'uniqueItems' && Array.isArray(e.data)) {
      add(at, `${name} lists ${shownValue(e.data[Number(e.params.j)])} twice; give each once`);
    } else if (e.keyword === 'type') {
      add(at, `${name} ${typeProblem(String(e.params.type), e.data, parsed.sourceAt(path))}`);
    } else if (e.keyword === 'pattern' && name === 'snapshot' && typeof e.data === 'string') {
      add(at, unknownSnapshot(e.data));
    } else if (e.keyword === 'pattern' && e.propertyName !== undefined) {
      add(
        at,
        `${name}: ${quoted(e.propertyName)} is not a variable name (letters, digits and _, not starting with a digit)`,
      );
    } else {
      add(at, `${name} ${String(e.message)}`);
    }
  }
  return { plain, conditional: [...new Set(conditional)] };
}

/**
 * One line for a `snapshot:` this runner does not know, with the snapshot it was probably
 * meant to be: by the commit digits for `draft@<hex>` (a mistyped or cut commit), else by
 * the whole name (`Draft`, `draft-1d98c19`).
 */
function unknownSnapshot(requested: string): string {
  const hex = /^draft@([0-9a-f]+)$/.exec(requested)?.[1];
  // A draft snapshot's id holds its short commit after the `@`; a released one's is its date.
  const hint =
    hex !== undefined
      ? SNAPSHOT_IDS.find((id) => id.startsWith('draft@') && didYouMean(hex, [id.slice('draft@'.length)]) !== undefined)
      : didYouMean(requested, ['draft', ...SNAPSHOT_IDS]);
  return `snapshot: unknown snapshot ${quoted(requested)} (${hint ? `did you mean ${hint}? ` : ''}this runner knows ${SNAPSHOT_IDS.join(', ')}; plain draft means the newest, ${NEWEST_SNAPSHOT})`;
}

/** An `artifacts` entry: a regular file (links followed), relative to the claim. */
function resolveArtifact(name: string, dir: string, where: string): string {
  const path = isAbsolute(name) ? name : resolve(dir, name);
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ClaimProblem(`${where}: ${name}: no such file (resolved to ${path})`);
  }
  if (!st.isFile())
    throw new ClaimProblem(`${where}: ${name} is not a regular file (resolved to ${path}); list the files themselves`);
  return path;
}

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
  if (portLookalike(url)) return; // src/claims/placeholders.ts says what to write instead
  if (url.includes('{port}') && !hasCommand)
    throw new ClaimProblem(`${where}: "{port}" needs a command that starts the server`);
  let parsed: URL;
  try {
    parsed = new URL(url.replaceAll('{port}', '1'));
  } catch {
    throw new ClaimProblem(`${where}: "${url}" is not an absolute URL (such as http://127.0.0.1:{port}/hooks)`);
  }
  if (parsed.protocol === 'https:') return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (parsed.protocol !== 'http:' || !loopback) {
    throw new ClaimProblem(
      `${where}: plain http is allowed only to loopback addresses (use https for ${parsed.hostname})`,
    );
  }
}

type RawLifecycles = Lifecycle | Lifecycle[];

/** The launch blocks as written (after the schema check). */
interface RawStdio {
  command: string;
  args?: string[];
  lifecycles?: RawLifecycles;
  /** The earlier spelling of `lifecycles`. */
  lifecycle?: RawLifecycles;
  cwd?: string;
  env?: Record<string, string>;
  passEnv?: string[];
}
interface RawHttp {
  command?: string;
  args?: string[];
  url: string;
  cwd?: string;
  env?: Record<string, string>;
  passEnv?: string[];
  readyTimeoutMs?: number;
  auth?:
    { type: 'bearer'; tokenEnv: string } | { type: 'oauth'; issuerEnv: string; caFileEnv: string; scopes?: string[] };
}
interface RawBackend {
  stdio?: RawStdio;
  http?: RawHttp;
  samples?: { deny?: Sample[]; modify?: Sample[]; content?: ContentSample[] };
  configuration?: boolean;
  upload?: { url: string; maxBytes: number; auth?: { type: 'bearer'; tokenEnv: string } };
}
interface RawHarness {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  passEnv?: string[];
  lifecycles?: RawLifecycles;
  lifecycle?: RawLifecycles;
  boundaries?: BoundaryEvent[];
  uploads?: boolean;
  authentication?: AuthMechanism[];
}

/** `lifecycles` or its other spelling `lifecycle`, one value or a list (docs/claims.md). */
function lifecyclesOf(block: { lifecycles?: RawLifecycles; lifecycle?: RawLifecycles }, where: string) {
  if (block.lifecycles !== undefined && block.lifecycle !== undefined)
    throw new ClaimProblem(`${where}: give lifecycles or lifecycle (its other spelling), not both`);
  const given = block.lifecycles ?? block.lifecycle;
  return given === undefined ? undefined : Array.isArray(given) ? given : [given];
}

/** Runs `f`, or records its claim problem and gives undefined: a file's problems are all reported. */
type Attempt = <T>(f: () => T) => T | undefined;

/** The backend launch blocks, one per claimed transport. */
function resolveBackend(
  b: RawBackend | undefined,
  transports: Transport[],
  dir: string,
  attempt: Attempt,
): NonNullable<ResolvedClaim['backend']> {
  const backend: NonNullable<ResolvedClaim['backend']> = {
    samples: { deny: b?.samples?.deny ?? [], modify: b?.samples?.modify ?? [], content: b?.samples?.content ?? [] },
    configuration: b?.configuration ?? false,
  };
  const upload = b?.upload;
  if (upload)
    attempt(() => {
      // Served beside the HTTP endpoint: its {port} is the http block's.
      if (!transports.includes('http'))
        throw new ClaimProblem(
          'backend.upload: the upload receiver is served beside the HTTP backend; claim transports http',
        );
      checkUrlTemplate(upload.url, b?.http?.command !== undefined, 'backend.upload.url');
      const tokenEnv = upload.auth?.tokenEnv;
      if (tokenEnv !== undefined) {
        // Upload credentials never inherit the event endpoint's (capability-auth.md@40d064d,
        // "Registration"): one variable for both would make them the same token.
        const eventAuth = b?.http?.auth;
        const eventVars =
          eventAuth?.type === 'bearer'
            ? [eventAuth.tokenEnv]
            : eventAuth?.type === 'oauth'
              ? [eventAuth.issuerEnv, eventAuth.caFileEnv]
              : [];
        if (eventVars.includes(tokenEnv))
          throw new ClaimProblem(
            `backend.upload.auth.tokenEnv: ${tokenEnv} is also a backend.http.auth variable; the upload token must be its own`,
          );
        const eventToken = eventAuth?.type === 'bearer' ? process.env[eventAuth.tokenEnv] : undefined;
        if (eventToken && process.env[tokenEnv] === eventToken)
          throw new ClaimProblem(
            `backend.upload.auth.tokenEnv: ${tokenEnv} holds the same token as backend.http.auth.tokenEnv; the upload token must be its own`,
          );
        // As for backend.http.auth: a server the runner starts gets a fresh token when unset.
        if (!process.env[tokenEnv] && b?.http?.command === undefined)
          throw new ClaimProblem(
            `backend.upload.auth.tokenEnv: environment variable ${tokenEnv} is not set (required when the runner does not start the server: no command)`,
          );
      }
      backend.upload = {
        url: upload.url,
        maxBytes: upload.maxBytes,
        ...(tokenEnv !== undefined ? { tokenEnv } : {}),
      };
    });
  for (const t of transports) {
    const where = `backend.${t}`;
    if (t === 'stdio') {
      const s = b?.stdio;
      if (!s) continue; // the schema's conditional requirement reports it
      const command = attempt(() => resolveCommand(s.command, dir, `${where}.command`));
      const cwd = attempt(() => resolveCwd(s.cwd, dir, `${where}.cwd`));
      const passEnv = attempt(() => passEnvOf(s.passEnv, `${where}.passEnv`));
      const lifecycles = attempt((): Lifecycle[] => lifecyclesOf(s, where) ?? ['persistent']);
      if (command && cwd && passEnv && lifecycles)
        backend.stdio = { command, args: s.args ?? [], cwd, env: s.env ?? {}, passEnv, lifecycles };
    } else {
      const h = b?.http;
      if (!h) continue;
      const url = attempt(() => {
        checkUrlTemplate(h.url, h.command !== undefined, `${where}.url`);
        return h.url;
      });
      const auth = h.auth;
      const token = attempt(() => {
        // The runner's authorization server lives only during the run, so only a server it
        // starts can be told to trust it.
        if (auth?.type === 'oauth') {
          if (h.command === undefined)
            throw new ClaimProblem(
              `${where}.auth: type oauth needs a server the runner starts (command): the runner's authorization server exists only during the run`,
            );
          if (auth.issuerEnv === auth.caFileEnv)
            throw new ClaimProblem(`${where}.auth: issuerEnv and caFileEnv must be two variables`);
          return true;
        }
        // A server the runner starts gets a fresh token when the variable is unset
        // (suites/support/backend-session.ts); one already running needs the real one.
        if (auth && !process.env[auth.tokenEnv] && h.command === undefined)
          throw new ClaimProblem(
            `${where}.auth.tokenEnv: environment variable ${auth.tokenEnv} is not set (required when the runner does not start the server: no command)`,
          );
        return true;
      });
      const command =
        h.command === undefined ? null : attempt(() => resolveCommand(h.command!, dir, `${where}.command`));
      const cwd = attempt(() => resolveCwd(h.cwd, dir, `${where}.cwd`));
      const passEnv = attempt(() => passEnvOf(h.passEnv, `${where}.passEnv`));
      if (url && token && command !== undefined && cwd && passEnv)
        backend.http = {
          ...(command === null ? {} : { command }),
          args: h.args ?? [],
          url,
          cwd,
          env: h.env ?? {},
          passEnv,
          readyTimeoutMs: h.readyTimeoutMs ?? 10_000,
          ...(auth?.type === 'bearer' ? { tokenEnv: auth.tokenEnv } : {}),
          ...(auth?.type === 'oauth'
            ? { oauth: { issuerEnv: auth.issuerEnv, caFileEnv: auth.caFileEnv, scopes: auth.scopes ?? [] } }
            : {}),
        };
    }
  }
  return backend;
}

/** AHP-CORE-001: a claim names each transport and capability profile; AHP-CORE-002: at least one profile. */
function incompleteness(capability: readonly string[], transports: readonly Transport[]): string | undefined {
  const noProfile = capability.length === 0;
  const noTransport = transports.length === 0;
  if (noProfile && noTransport)
    return (
      `the claim names no capability profile (${CAPABILITY_PROFILES.join(', ')}) and no transport binding (stdio, http); ` +
      'a Base Protocol claim is incomplete without them (AHP-CORE-001, AHP-CORE-002)'
    );
  if (noProfile)
    return (
      `the claim names no capability profile (${CAPABILITY_PROFILES.join(', ')}); ` +
      'a Base Protocol claim is incomplete without one (AHP-CORE-001, AHP-CORE-002)'
    );
  if (noTransport)
    return 'the claim names no transport binding (stdio, http); a Base Protocol claim is incomplete without one (AHP-CORE-001)';
  return undefined;
}

export function loadClaim(file: string): ClaimOutcome {
  const path = resolve(file);
  const dir = dirname(path);
  const refuse = (lines: readonly string[]): ClaimOutcome => ({
    kind: 'error',
    file,
    messages: [...new Set(lines)].map((l) => `${file}: ${l}`),
  });
  // Size, YAML aliases, implementation name and version: src/claims/limits.ts.
  let parsed: ParsedClaim;
  try {
    parsed = parseClaim(readClaimText(path));
  } catch (e) {
    if (e instanceof ClaimLimitError) return refuse(e.problems);
    throw e;
  }
  const raw = parsed.data;
  const implementation = implementationProblems(raw);
  const validate = claimSchemaValidator();
  const valid = validate(raw);
  const role = (raw as { role?: unknown } | null)?.role;
  const { plain, conditional } = valid
    ? { plain: [], conditional: [] }
    : schemaProblems(validate.errors!, parsed, role);
  // The name and version rules are in the schema too; the limits' lines say why.
  const said = implementation.map((p) => `implementation.${p.field}`);
  const schemaLines = plain.filter(
    ({ line }) => !said.some((f) => line.startsWith(`${f} `) || line.startsWith(`${f}:`)),
  );
  const c = raw as {
    implementation: { name: string; version: string };
    snapshot?: string;
    role: Role | 'both';
    transports?: Transport[];
    profiles?: string[];
    timeoutMs?: number;
    artifacts?: string[];
    backend?: RawBackend;
    harness?: RawHarness;
  };
  const profiles = Array.isArray(c?.profiles) ? c.profiles.filter((p) => typeof p === 'string') : [];
  const unknown = profiles.flatMap((p, i): Located[] => {
    if ((CAPABILITY_PROFILES as readonly string[]).includes(p) || ['base', 'stdio', 'http'].includes(p)) return [];
    const hint = didYouMean(p, CAPABILITY_PROFILES);
    const line = `profiles: unknown profile ${quoted(p)} (${hint ? `did you mean ${hint}? ` : ''}capability profiles: ${CAPABILITY_PROFILES.join(', ')})`;
    return [{ line, offset: parsed.offsetAt(['profiles', i]) }];
  });
  const early = [
    ...implementation.map((p) => ({ line: p.line, offset: parsed.offsetAt(['implementation', p.field]) })),
    ...schemaLines,
    ...unknown,
  ];
  // In the file's order (a stable sort: one place's problems keep the schema's order).
  early.sort((a, b) => a.offset - b.offset);
  if (early.length) return refuse([...early.map((p) => p.line), ...conditional]);

  const transports = c.transports ?? [];
  const capability = profiles.filter((p) => (CAPABILITY_PROFILES as readonly string[]).includes(p));
  const reason = incompleteness(capability, transports);
  if (reason)
    return {
      kind: 'incomplete',
      file,
      implementation: c.implementation,
      reason,
      // As the claim would resolve it: no snapshot: means plain draft.
      snapshot: typeof c.snapshot === 'string' ? c.snapshot : 'draft',
    };

  const problems: string[] = [...conditional];
  const attempt: Attempt = (f) => {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof ClaimProblem)) throw err;
      problems.push(err.message);
      return undefined;
    }
  };
  const roles = claimRoles(c.role);
  const requested = c.snapshot ?? 'draft';
  const snapshot = resolveSnapshot(requested);
  if (snapshot === undefined) problems.push(unknownSnapshot(requested));
  const claim: ResolvedClaim = {
    file: path,
    dir,
    implementation: c.implementation,
    snapshot: snapshot?.id ?? NEWEST_SNAPSHOT,
    snapshotRequested: requested,
    role: c.role,
    transports,
    profiles: capability,
    timeoutMs: c.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    artifacts: (c.artifacts ?? []).flatMap((name, i) => {
      const path = attempt(() => resolveArtifact(name, dir, `artifacts[${i}]`));
      return path ? [{ name, path }] : [];
    }),
  };
  // A block for a role the claim does not cover is ignored.
  if (roles.includes('backend')) {
    claim.backend = resolveBackend(c.backend, transports, dir, attempt);
    problems.push(...checkPlaceholders('backend', c.backend, transports));
    if (claim.backend.configuration && snapshot && !snapshot.rules.configuration)
      problems.push(
        `backend.configuration: hooks/configuration is not part of ${snapshot.id} (claim a snapshot that has it: ${SNAPSHOTS.filter(
          (s) => s.rules.configuration,
        )
          .map((s) => s.id)
          .join(', ')})`,
      );
  }
  const h = c.harness;
  if (roles.includes('harness') && h) {
    const command = attempt(() => resolveCommand(h.command, dir, 'harness.command'));
    const cwd = attempt(() => resolveCwd(h.cwd, dir, 'harness.cwd'));
    const passEnv = attempt(() => passEnvOf(h.passEnv, 'harness.passEnv'));
    const lifecycles = attempt((): Lifecycle[] => lifecyclesOf(h, 'harness') ?? ['persistent', 'per_event']);
    if (command && cwd && passEnv && lifecycles)
      claim.harness = {
        command,
        args: h.args ?? [],
        cwd,
        env: h.env ?? {},
        passEnv,
        lifecycles,
        boundaries: h.boundaries ?? [],
        uploads: h.uploads ?? false,
        ...(h.authentication !== undefined ? { authentication: h.authentication } : {}),
      };
    problems.push(...checkPlaceholders('harness', h, transports));
  }
  return problems.length ? refuse(problems) : { kind: 'ok', claim };
}

/** Every working folder a claim starts its implementation in, with the field that sets it. */
export function claimWorkingFolders(c: ResolvedClaim): { field: string; cwd: string }[] {
  return [
    ...(c.backend?.stdio ? [{ field: 'backend.stdio.cwd', cwd: c.backend.stdio.cwd }] : []),
    ...(c.backend?.http?.command !== undefined ? [{ field: 'backend.http.cwd', cwd: c.backend.http.cwd }] : []),
    ...(c.harness ? [{ field: 'harness.cwd', cwd: c.harness.cwd }] : []),
  ];
}

/**
 * A claim whose working folder is one of the runner's own folders (the reports folder, the
 * run's work folder) or inside one, as one line: the implementation may write its working
 * folder, so it would reach the verdicts and the run's files. A working folder that holds
 * the reports folder is allowed (the usual layout: reports/ beside the claim): the reports
 * folder is hidden from the implementation inside it (drivers/containment.ts), and the
 * runner never writes through a link planted there (src/safe-fs.ts).
 */
export function workingFolderProblem(
  c: ResolvedClaim,
  folders: readonly { what: string; path: string }[],
): string | undefined {
  for (const { field, cwd } of claimWorkingFolders(c))
    for (const f of folders)
      if (isWithin(cwd, f.path))
        return `${field}: ${cwd} is ${canonicalPath(cwd) === canonicalPath(f.path) ? '' : 'inside '}${f.what} (${f.path}); an implementation may write its working folder, so give it one of its own`;
  return undefined;
}
