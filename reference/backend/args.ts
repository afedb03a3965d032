// Command line of the reference backend:
//   --transport stdio [--lifecycle persistent|per_event] [--fault <mode>] [--policy <file.json>]   (default persistent)
//   [--snapshot draft@2b5da580|draft@1d98c19] (either transport; default draft@2b5da580): the rules it
//   follows; under a snapshot with hooks/configuration it serves one unless --no-configuration.
//   [--timeout-ms <n>] (either transport; only with --fault slow-reverse-refusals, which needs it): the
//   claim's timeoutMs, which the mode's slow replies keep within (hold.ts).
//   (AHP_REFERENCE_START_BURN_MS=<n> in the environment: burn n ms of CPU before serving, a slow but correct start)
//   --trace <file> (either transport): a bench instrument (scripts/bench.ts), not part of the
//   backend's behaviour: append one line per process start and one per exchange handled to <file>.
//   --transport http --port <n> [--host 127.0.0.1] [--path /hooks] [--auth bearer] [--token-env NAME] [--fault <mode>] [--policy <file.json>]
//   (--auth bearer --token-env NAME: requires the bearer token in NAME and refuses to start without it;
//   --token-env alone requires it only when NAME is set)
//   [--auth oauth --issuer-env NAME --ca-file-env NAME [--scopes a,b]] (HTTP): OAuth-protected (oauth.ts):
//   the issuer URL and the CA file's path come from those variables, and it refuses to start without them.
//   [--upload-token-env NAME] (HTTP): the upload receiver requires its own bearer token, read from NAME
//   (refuses to start without it); the event endpoint's credentials never open it.
import { parseArgs } from 'node:util';
import {
  OLDEST_SNAPSHOT,
  resolveSnapshot,
  snapshotOf,
  SNAPSHOT_IDS,
  type SnapshotId,
} from '../../src/protocol/snapshots.js';
import { faultMismatch, faultSpec, isFaultMode, type FaultMode } from './faults.js';
import { DEFAULT_POLICY, loadPolicyFile, type Policy } from './policy.js';

/** What every transport shares: the snapshot followed and whether hooks/configuration is served. */
interface Common {
  readonly snapshot: SnapshotId;
  /** Serves hooks/configuration (only where the snapshot has it). */
  readonly configuration: boolean;
  /** The claim's timeoutMs (--timeout-ms), for slow-reverse-refusals. */
  readonly timeoutMs?: number;
}

export type Options = Common &
  (
    | {
        readonly transport: 'stdio';
        readonly lifecycle: 'persistent' | 'per_event';
        readonly fault?: FaultMode;
        readonly policy: Policy;
        readonly trace?: string;
      }
    | {
        readonly transport: 'http';
        readonly port: number;
        readonly host: string;
        readonly path: string;
        readonly tokenEnv?: string;
        /** The variable holding the upload receiver's own bearer token (--upload-token-env). */
        readonly uploadTokenEnv?: string;
        /** Bearer authentication is claimed: start only with the token (fail closed). */
        readonly auth?: 'bearer' | 'oauth';
        /** --auth oauth: the variables naming the trusted issuer and the CA file, and the required scopes. */
        readonly oauth?: { readonly issuerEnv: string; readonly caFileEnv: string; readonly scopes: readonly string[] };
        readonly fault?: FaultMode;
        readonly policy: Policy;
        readonly trace?: string;
      }
  );

export type ArgsResult = { ok: true; options: Options } | { ok: false; error: string };

const STDIO_ONLY = ['lifecycle'] as const;
const HTTP_ONLY = [
  'port',
  'host',
  'path',
  'token-env',
  'auth',
  'issuer-env',
  'ca-file-env',
  'scopes',
  'upload-token-env',
] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parse argv (without node and the script). Errors are one line, ready for stderr. */
export function parseBackendArgs(argv: readonly string[]): ArgsResult {
  const fail = (error: string): ArgsResult => ({ ok: false, error });
  let values: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        transport: { type: 'string' },
        lifecycle: { type: 'string' },
        fault: { type: 'string' },
        policy: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        path: { type: 'string' },
        'token-env': { type: 'string' },
        auth: { type: 'string' },
        'issuer-env': { type: 'string' },
        'ca-file-env': { type: 'string' },
        scopes: { type: 'string' },
        'upload-token-env': { type: 'string' },
        trace: { type: 'string' },
        snapshot: { type: 'string' },
        'no-configuration': { type: 'boolean' },
        'timeout-ms': { type: 'string' },
      },
    });
    values = parsed.values as Record<string, string | undefined>;
  } catch (e) {
    return fail((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? 'bad arguments');
  }

  const transport = values.transport;
  if (transport !== 'stdio' && transport !== 'http') return fail('--transport must be stdio or http');
  const foreign = transport === 'stdio' ? HTTP_ONLY : STDIO_ONLY;
  for (const name of foreign)
    if (values[name] !== undefined) return fail(`--${name} does not apply to --transport ${transport}`);

  let fault: FaultMode | undefined;
  if (values.fault !== undefined) {
    if (!isFaultMode(values.fault)) return fail(`unknown --fault ${JSON.stringify(values.fault)}`);
    fault = values.fault;
  }

  const snapshot = values.snapshot === undefined ? snapshotOf(OLDEST_SNAPSHOT) : resolveSnapshot(values.snapshot);
  if (snapshot === undefined) return fail(`--snapshot must be one of ${SNAPSHOT_IDS.join(', ')}`);
  const noConfiguration = (values as Record<string, unknown>)['no-configuration'] === true;
  if (noConfiguration && !snapshot.rules.configuration)
    return fail(`--no-configuration: ${snapshot.id} has no hooks/configuration`);
  const timeout = values['timeout-ms'];
  if (timeout !== undefined && (!/^\d{1,6}$/.test(timeout) || Number(timeout) < 1))
    return fail("--timeout-ms must be a positive integer (the claim's timeoutMs)");
  // A slow mode keeps its replies within the claim's deadline, so it must know it; nothing else reads it.
  const needsTimeout = fault !== undefined && faultSpec(fault).timeoutMs === 'needed';
  if (needsTimeout !== (timeout !== undefined))
    return fail(
      needsTimeout
        ? `fault ${fault} needs --timeout-ms <the claim's timeoutMs>`
        : '--timeout-ms applies only to a fault that answers slowly',
    );
  const common: Common = {
    snapshot: snapshot.id,
    configuration: snapshot.rules.configuration && !noConfiguration,
    ...(timeout !== undefined ? { timeoutMs: Number(timeout) } : {}),
  };

  if (values.trace === '') return fail('--trace must name a file');
  const trace = values.trace !== undefined ? { trace: values.trace } : {};

  let policy = DEFAULT_POLICY;
  if (values.policy !== undefined) {
    const loaded = loadPolicyFile(values.policy);
    if (!loaded.ok) return fail(loaded.error.split('\n')[0] ?? 'bad policy');
    policy = loaded.policy;
  }

  if (transport === 'stdio') {
    // Default persistent: it also answers a per_event exchange (one line, EOF) correctly.
    const lifecycle = values.lifecycle ?? 'persistent';
    if (lifecycle !== 'persistent' && lifecycle !== 'per_event')
      return fail('--lifecycle must be persistent or per_event');
    if (fault) {
      const why = faultMismatch(fault, 'stdio', lifecycle, common);
      if (why) return fail(why);
    }
    return {
      ok: true,
      options: fault
        ? { ...common, transport, lifecycle, fault, policy, ...trace }
        : { ...common, transport, lifecycle, policy, ...trace },
    };
  }

  if (values.port === undefined || !/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
    return fail('--port must be an integer from 0 to 65535');
  }
  const port = Number(values.port);
  const host = values.host ?? '127.0.0.1';
  if (host === '') return fail('--host must not be empty');
  const path = values.path ?? '/hooks';
  if (!path.startsWith('/') || /[?#\s]/.test(path))
    return fail('--path must be an absolute path without query or fragment');
  const tokenEnv = values['token-env'];
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    return fail('--token-env must be an environment variable name');
  const uploadTokenEnv = values['upload-token-env'];
  if (uploadTokenEnv !== undefined && !ENV_NAME.test(uploadTokenEnv))
    return fail('--upload-token-env must be an environment variable name');
  if (uploadTokenEnv !== undefined && uploadTokenEnv === tokenEnv)
    return fail('--upload-token-env must name another variable than --token-env: upload credentials are their own');
  const auth = values.auth;
  if (auth !== undefined && auth !== 'bearer' && auth !== 'oauth') return fail('--auth must be bearer or oauth');
  if (auth === 'bearer' && tokenEnv === undefined) return fail('--auth bearer needs --token-env NAME');
  const issuerEnv = values['issuer-env'];
  const caFileEnv = values['ca-file-env'];
  const oauthOnly = issuerEnv !== undefined || caFileEnv !== undefined || values.scopes !== undefined;
  if (oauthOnly && auth !== 'oauth') return fail('--issuer-env, --ca-file-env and --scopes need --auth oauth');
  let oauth: { issuerEnv: string; caFileEnv: string; scopes: string[] } | undefined;
  if (auth === 'oauth') {
    if (tokenEnv !== undefined) return fail('--token-env does not apply to --auth oauth');
    if (issuerEnv === undefined || !ENV_NAME.test(issuerEnv))
      return fail('--auth oauth needs --issuer-env NAME (an environment variable name)');
    if (caFileEnv === undefined || !ENV_NAME.test(caFileEnv))
      return fail('--auth oauth needs --ca-file-env NAME (an environment variable name)');
    const scopes = (values.scopes ?? '').split(',').filter(Boolean);
    // RFC 6749 3.3: scope tokens are printable ASCII without space, " and \.
    if (scopes.some((sc) => !/^[!#-[\]-~]+$/.test(sc)))
      return fail('--scopes must be scope tokens separated by commas');
    oauth = { issuerEnv, caFileEnv, scopes };
  }
  if (fault) {
    const why = faultMismatch(fault, 'http', undefined, common);
    if (why) return fail(why);
    if (faultSpec(fault).oauth && auth !== 'oauth') return fail(`fault ${fault} needs --auth oauth`);
  }
  const options: Options = {
    ...common,
    transport,
    port,
    host,
    path,
    policy,
    ...(tokenEnv !== undefined ? { tokenEnv } : {}),
    ...(uploadTokenEnv !== undefined ? { uploadTokenEnv } : {}),
    ...(auth !== undefined ? { auth } : {}),
    ...(oauth ? { oauth } : {}),
    ...(fault ? { fault } : {}),
    ...trace,
  };
  return { ok: true, options };
}
