// The scripted backend as the registration sees it, one implementation per transport: what
// a hook's `transport` entry says, whether its deadlines must allow for starting the
// backend, what a run starts for it and stops after, and how its records are named in a
// transcript. The harness session picks one per hook from its transport, so a new
// transport is one implementation here (and its registration shape), not a branch there.
// What the runner decides (timing, paths) is passed in: drivers import nothing of src/.
import { join } from 'node:path';
import type { RunLog } from './collector.js';
import { ScriptedHttpBackend, type HttpProtection } from './http-server.js';
import type { WireRecord } from './script.js';

type Obj = Record<string, unknown>;
export type EndpointTransport = WireRecord['transport'];

/** One hook as its endpoint needs it, with the session's defaults already applied. */
export interface EndpointHook {
  name: string;
  lifecycle: 'persistent' | 'per_event';
  /** The deadline the backend's own waits derive from (the hook's written intercept deadline). */
  deadlineMs: number;
  /** stdio: arguments appended to the backend's command line. */
  extraArgs?: readonly string[];
  /** stdio: a command that does not exist (a backend that cannot be started). */
  missingCommand?: boolean;
}

/** What one run gives its endpoints. */
export interface EndpointRun {
  log: RunLog;
  runDir: string;
  /** The bearer secret the HTTP backend redacts. */
  token: string;
  /** The wire collector the stdio backend reports to (host:port). */
  collectorAddress: string;
  /** The compiled stdio program (the runner knows where its build is). */
  stdioMain: string;
  /** The stdio backend's hard cap on its own life. */
  lifetimeMs: number;
  /** The stdio backend's wait arguments for a deadline (src/timing.ts; drivers import none of it). */
  waitArgs: (deadlineMs: number) => string[];
  /** http: the hooks whose endpoint is an OAuth-protected resource, and its issuer. */
  protect?: HttpProtection;
}

/** A transport's endpoint while one run lasts. */
export interface RunEndpoint {
  /** The registration's `transport` object for a hook. */
  transportFor(hook: EndpointHook): Obj;
  /** Stop what start() started; never throws. */
  close(): Promise<void>;
}

export interface ScriptedEndpoint {
  readonly transport: EndpointTransport;
  /** Whether the harness starts the backend inside a hook's deadline (the deadline then includes its measured start-up). */
  readonly needsStartup: boolean;
  /** How a record's `pid` is named in the transcript. */
  who(pid: number): string;
  /** Start what a run with hooks of this transport needs (at most once per run). */
  start(run: EndpointRun): Promise<RunEndpoint>;
}

/** The stdio program's command line (after the node executable), as registered and as the start-up probe runs it. */
export function stdioBackendArgs(o: {
  stdioMain: string;
  collectorAddress: string;
  key: string;
  hook: string;
  lifecycle: string;
  lifetimeMs: number;
  waitArgs: readonly string[];
  extraArgs?: readonly string[];
}): string[] {
  return [
    o.stdioMain,
    '--collector',
    o.collectorAddress,
    '--key',
    o.key,
    '--hook',
    o.hook,
    '--lifecycle',
    o.lifecycle,
    '--lifetime-ms',
    String(o.lifetimeMs),
    ...o.waitArgs,
    ...(o.extraArgs ?? []),
  ];
}

const stdioEndpoint: ScriptedEndpoint = {
  transport: 'stdio',
  needsStartup: true,
  who: (pid) => `pid ${pid}`,
  // The harness launches the process itself: nothing to start per run.
  start: async (run) => ({
    transportFor: (h) => ({
      type: 'stdio',
      command: h.missingCommand ? join(run.runDir, 'no-such-backend') : process.execPath,
      lifecycle: h.lifecycle,
      args: stdioBackendArgs({
        stdioMain: run.stdioMain,
        collectorAddress: run.collectorAddress,
        key: run.log.key,
        hook: h.name,
        lifecycle: h.lifecycle,
        lifetimeMs: run.lifetimeMs,
        waitArgs: run.waitArgs(h.deadlineMs),
        extraArgs: h.extraArgs,
      }),
    }),
    close: async () => undefined,
  }),
};

const httpEndpoint: ScriptedEndpoint = {
  transport: 'http',
  needsStartup: false,
  who: (pid) => `request ${pid}`,
  // The run's own loopback server, serving only this run's log.
  start: async (run) => {
    const server = await ScriptedHttpBackend.start(() => run.log, run.token, run.protect);
    return {
      transportFor: (h) => ({ type: 'http', url: server.url(h.name) }),
      close: () => server.close(),
    };
  },
};

const ENDPOINTS: Record<EndpointTransport, ScriptedEndpoint> = { stdio: stdioEndpoint, http: httpEndpoint };

export function endpointFor(transport: EndpointTransport): ScriptedEndpoint {
  return ENDPOINTS[transport];
}
