// Command line of the reference harness:
//   --config <path> [--fault <mode>] [--snapshot <draft@commit>] [--authentication <list>] [--trace <file>]
// --snapshot: the upstream snapshot whose rules the harness follows (src/protocol/snapshots.ts;
// plain `draft` is the newest). Without it, the config's `snapshot` (the claim's, which the
// runner hands every adapter), else draft@2b5da580, the snapshot the bundled claim pins.
// --authentication: the endpoint authentication it supports, `bearer,oauth` (the default) or
// `bearer` (a bearer-only harness: it refuses oauth bindings and its manifest says so).
// --trace is a bench instrument (scripts/bench.ts), not part of the harness's behaviour: it
// appends the run's process start and exit times to <file>.
// The fault may also come from $AHP_REFERENCE_HARNESS_FAULT (the runner sets it when it
// cannot change the claimed command line); --fault wins. Errors are one line.
import { parseArgs } from 'node:util';
import { isFaultMode, type FaultMode } from './faults.js';
import { OLDEST_SNAPSHOT, resolveSnapshot, type SnapshotId } from '../../src/protocol/snapshots.js';
import { AUTH_MECHANISMS, type AuthMechanism } from '../../src/protocol/catalogue.js';

const FAULT_ENV = 'AHP_REFERENCE_HARNESS_FAULT';

export type HarnessArgs =
  | {
      ok: true;
      config: string;
      snapshot: SnapshotId;
      /** Whether --snapshot was given (else the config's snapshot decides, main.ts). */
      snapshotGiven: boolean;
      authentication: readonly AuthMechanism[];
      fault?: FaultMode;
      trace?: string;
    }
  | { ok: false; error: string };

/** `bearer` or `bearer,oauth`: bearer is always supported (http.ts), oauth may be left out. */
function authenticationOf(value: string | undefined): readonly AuthMechanism[] | undefined {
  if (value === undefined) return AUTH_MECHANISMS;
  const listed = value.split(',').map((m) => m.trim());
  if (new Set(listed).size !== listed.length || !listed.includes('bearer')) return undefined;
  return listed.every((m) => (AUTH_MECHANISMS as readonly string[]).includes(m))
    ? (listed as AuthMechanism[])
    : undefined;
}

export function parseHarnessArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): HarnessArgs {
  let values: {
    config?: string | undefined;
    fault?: string | undefined;
    trace?: string | undefined;
    snapshot?: string | undefined;
    authentication?: string | undefined;
  };
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: 'string' },
        fault: { type: 'string' },
        trace: { type: 'string' },
        snapshot: { type: 'string' },
        authentication: { type: 'string' },
      },
    }).values;
  } catch (e) {
    return { ok: false, error: (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? 'bad arguments' };
  }
  if (values.config === undefined || values.config === '') return { ok: false, error: '--config <path> is required' };
  if (values.trace === '') return { ok: false, error: '--trace must name a file' };
  const trace = values.trace !== undefined ? { trace: values.trace } : {};
  const snapshot = values.snapshot === undefined ? OLDEST_SNAPSHOT : resolveSnapshot(values.snapshot)?.id;
  if (snapshot === undefined) return { ok: false, error: `unknown snapshot ${JSON.stringify(values.snapshot)}` };
  const authentication = authenticationOf(values.authentication);
  if (authentication === undefined)
    return {
      ok: false,
      error: `--authentication ${JSON.stringify(values.authentication)} must be bearer or bearer,oauth`,
    };
  const fault = values.fault ?? (env[FAULT_ENV] || undefined);
  const snapshotGiven = values.snapshot !== undefined;
  if (fault === undefined)
    return { ok: true, config: values.config, snapshot, snapshotGiven, authentication, ...trace };
  if (!isFaultMode(fault)) return { ok: false, error: `unknown fault mode ${JSON.stringify(fault)}` };
  return { ok: true, config: values.config, snapshot, snapshotGiven, authentication, fault, ...trace };
}
