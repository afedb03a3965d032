// Command line of the reference harness:
//   --config <path> [--fault <mode>] [--trace <file>]
// --trace is a bench instrument (scripts/bench.ts), not part of the harness's behaviour: it
// appends the run's process start and exit times to <file>.
// The fault may also come from $AHP_REFERENCE_HARNESS_FAULT (the runner sets it when it
// cannot change the claimed command line); --fault wins. Errors are one line.
import { parseArgs } from 'node:util';
import { isFaultMode, type FaultMode } from './faults.js';

const FAULT_ENV = 'AHP_REFERENCE_HARNESS_FAULT';

export type HarnessArgs =
  { ok: true; config: string; fault?: FaultMode; trace?: string } | { ok: false; error: string };

export function parseHarnessArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): HarnessArgs {
  let values: { config?: string | undefined; fault?: string | undefined; trace?: string | undefined };
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: { config: { type: 'string' }, fault: { type: 'string' }, trace: { type: 'string' } },
    }).values;
  } catch (e) {
    return { ok: false, error: (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? 'bad arguments' };
  }
  if (values.config === undefined || values.config === '') return { ok: false, error: '--config <path> is required' };
  if (values.trace === '') return { ok: false, error: '--trace must name a file' };
  const trace = values.trace !== undefined ? { trace: values.trace } : {};
  const fault = values.fault ?? (env[FAULT_ENV] || undefined);
  if (fault === undefined) return { ok: true, config: values.config, ...trace };
  if (!isFaultMode(fault)) return { ok: false, error: `unknown fault mode ${JSON.stringify(fault)}` };
  return { ok: true, config: values.config, fault, ...trace };
}
