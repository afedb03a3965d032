#!/usr/bin/env node
// The reference AHP harness: an adapter and a tiny harness in one program, conforming to
// the harness adapter contract (docs/harness-adapter.md) unless a fault mode deliberately
// breaks one rule (faults.ts).
//
//   node dist/reference/harness/main.js --config <path> [--fault <mode>] [--snapshot <id>]
//     [--authentication bearer|bearer,oauth] [--trace <file>]
//   (the fault may also come from $AHP_REFERENCE_HARNESS_FAULT; --fault wins; see args.ts)
//
// Exit status: 0 the scenario ran; 1 the registration was refused (report written,
// nothing started or sent); 2 bad arguments or config; 3 the harness itself failed.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { killAllTracked } from '../../drivers/processes.js';
import { parseHarnessArgs } from './args.js';
import { loadConfig } from './config.js';
import { hasUnportableAuth, loadRegistration, withoutUnportableAuth } from './registration.js';
import { acceptedReport, rejectedReport, writeReport } from './report.js';
import { Run } from './run.js';
import { configureHooks } from './configuration.js';
import { snapshotOf } from '../../src/protocol/snapshots.js';
import { runScenario } from './scenario.js';
import { faultProbe } from '../fault-probe.js';

/** Total wait for observations still in flight when the scenario is over. */
const OBSERVATION_DRAIN_MS = 2000;

/**
 * --trace (a bench instrument, scripts/bench.ts): the run's process start and, at exit, its
 * end, in epoch ms, one O_APPEND line each (a run with a start and no end was killed).
 */
let traceRun: ((what: string) => void) | undefined;
function startTrace(file: string): void {
  const id = randomBytes(6).toString('hex');
  traceRun = (what) => {
    try {
      appendFileSync(file, `${id} ${what}\n`);
    } catch {
      /* an instrument must not fail the run */
    }
  };
  traceRun(`start ${performance.timeOrigin.toFixed(1)}`);
}
function exitTraced(code: number): never {
  traceRun?.(`exit ${(performance.timeOrigin + performance.now()).toFixed(1)} ${code}`);
  process.exit(code);
}

const say = (line: string): void => {
  process.stderr.write(`reference-harness: ${line}\n`);
};

async function main(): Promise<number> {
  const args = parseHarnessArgs(process.argv.slice(2));
  if (!args.ok) {
    say(args.error);
    return 2;
  }
  if (args.trace !== undefined) startTrace(args.trace);
  const loaded = loadConfig(args.config);
  if (!loaded.ok) {
    say(loaded.error);
    return 2;
  }
  const { config } = loaded;
  if (args.fault) say(`fault mode ${args.fault} is on`);
  const fault = faultProbe(args.fault);

  // --snapshot wins; else the claim's snapshot, which the runner puts in the config.
  const snapshot = args.snapshotGiven ? args.snapshot : (config.snapshot ?? args.snapshot);
  const { rules } = snapshotOf(snapshot);
  let trust: string | undefined;
  if (config.tls) {
    try {
      trust = readFileSync(config.tls.caFile, 'utf8');
    } catch (e) {
      say(`cannot read tls.caFile: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
      return 2;
    }
  }
  const registration = loadRegistration(
    hasUnportableAuth(config.registration) && fault.is('accept-unportable-auth')
      ? withoutUnportableAuth(config.registration)
      : config.registration,
    fault,
    rules.configuration,
    snapshot,
  );
  if (!registration.ok) {
    say(`registration refused: ${registration.reason}`);
    writeReport(config.report, rejectedReport(registration.reason, config.adapterContract));
    return 1;
  }

  const run = new Run(
    registration.hooks,
    config.scenario.session,
    config.sentinel.tool,
    fault,
    snapshot,
    trust,
    args.authentication,
  );
  try {
    // Before any event: backends registered without subscriptions are asked for them.
    await configureHooks(run);
    const steps = await runScenario(run, config.scenario.steps);
    await run.observations.settle(OBSERVATION_DRAIN_MS);
    writeReport(config.report, acceptedReport(steps, config.adapterContract));
  } finally {
    await run.close();
  }
  return 0;
}

main().then(
  async (code) => {
    await killAllTracked(200);
    exitTraced(code);
  },
  async (err: unknown) => {
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    say(`internal failure: ${detail.split('\n')[0]}`);
    await killAllTracked(200);
    exitTraced(3);
  },
);
