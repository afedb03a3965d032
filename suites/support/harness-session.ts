// The runner's side of harness certification: it plays the backend and drives the
// harness under test through its adapter (docs/harness-adapter.md). One `run()` writes a
// registration pointing at the scripted backend, a scenario and a script, starts the
// adapter once, and returns everything observable: the frames each hook received (wire
// log), the sentinel's marker files, the adapter's report, exit status and output.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { packageRoot } from '../../src/package-root.js';
import type { Lifecycle, Transport } from '../../src/checks/catalogue.js';
import { CONFIG_PLACEHOLDER, type ResolvedClaim } from '../../src/claims/load.js';
import { launchAdapter, Limiter, type AdapterExit } from '../../drivers/adapter-launch.js';
import type { SharedRunStore, SharedRuns } from '../../drivers/adapter-runs.js';
import type { Transcript } from '../../drivers/transcript.js';
import { Folder, readRegularFile, readUntrustedFile, writeFileSafely } from '../../src/safe-fs.js';
import {
  endpointFor,
  stdioBackendArgs,
  type RunEndpoint,
  type ScriptedEndpoint,
} from '../../drivers/scripted-backend/endpoint.js';
import { WireCollector } from '../../drivers/scripted-backend/collector.js';
import { nowMs, type BackendScript, type HookScript, type WireRecord } from '../../drivers/scripted-backend/script.js';
import { implementationEnv } from '../../src/claims/environment.js';
import { CLIENT_SECRET_ENV, RunAuth, type RunAuthObservation, type RunAuthPlan } from './harness-auth.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { ObservedLog } from '../../src/results/observed.js';
import { observeHarnessRun } from './claim-observations.js';
import type { CheckWorkspace } from '../../src/engine/workspace.js';
import type { ContentStepKind } from '../../src/checks/boundaries.js';
import {
  ADAPTER_RUNS_AT_ONCE,
  adapterRunDeadlineMs,
  backendSettleMs,
  collectorAckWaitMs,
  perEventEofFirstWaitMs,
  perEventEofWaitMs,
  registrationTimeoutMs,
  scriptedBackendLifetimeMs,
  START_ALLOWANCE_MS,
} from '../../src/timing.js';

type Obj = Record<string, unknown>;

export const SENTINEL_TOOL = 'ahp_sentinel';
/** The adapter contract of runs with only version 1 step kinds, and of runs with content steps. */
export const ADAPTER_CONTRACT = 1;
export const ADAPTER_CONTRACT_CONTENT = 2;
export const TOKEN_ENV = 'AHP_CONFORMANCE_TEST_TOKEN';
// The compiled scripted backend (the suites run from source; the harness launches plain JS).
const STDIO_MAIN = join(packageRoot(), 'dist', 'drivers', 'scripted-backend', 'stdio-main.js');
const OUTPUT_CAP = 256 * 1024;
/** The scripted stdio backend's waits for a hook with this deadline (src/timing.ts; the backend imports none of it). */
function backendWaitArgs(deadlineMs: number): string[] {
  return [
    '--eof-first-ms',
    String(perEventEofFirstWaitMs(deadlineMs)),
    '--eof-wait-ms',
    String(perEventEofWaitMs(deadlineMs)),
    '--ack-wait-ms',
    String(collectorAckWaitMs(deadlineMs)),
  ];
}
/** Bounds on what the adapter writes for the runner to read. */
const REPORT_MAX_BYTES = 1024 * 1024;
const MARKER_MAX_BYTES = 256 * 1024;

export type HostPolicy = 'allow' | 'ask-refuse' | 'deny';
export type Outcome =
  | 'executed'
  | 'delivered'
  | 'denied-by-backend'
  | 'denied-by-failure-policy'
  | 'denied-by-host'
  | 'not-run'
  | 'unsupported';

export interface Subscription {
  events: string[];
  mode: 'intercept' | 'observe';
  timeoutMs?: number;
  failurePolicy?: 'fail-open' | 'fail-closed';
  content?: Obj;
  /** The content-upload binding `{endpoint, timeoutMs, maxBytes, auth?}` (suites/support/upload-scenarios.ts). */
  upload?: Obj;
}

export interface HookPlan {
  /** Short name: the hook id is dev.ahp-conformance.<name>, its HTTP path /hooks/<name>. */
  name: string;
  subscriptions: Subscription[];
  script?: HookScript;
  /** Defaults: the target's transport and lifecycle. */
  transport?: Transport;
  lifecycle?: Lifecycle;
  /** stdio: arguments appended to the scripted backend's command line. */
  extraArgs?: string[];
  /** http: authenticate with a bearer token from an environment variable. */
  bearer?: boolean;
  /**
   * http: the endpoint is an OAuth-protected resource of the run's authorization server.
   * `preset`: the registration carries an oauth preset (client credentials) for it; without
   * it the registration has no `authentication` (the harness meets a 401 challenge).
   */
  oauth?: { preset: boolean };
  /** stdio: a command that does not exist (a backend that cannot be started). */
  missingCommand?: boolean;
  /**
   * draft@1d98c19 server-driven configuration: the registration leaves out `subscriptions`
   * and the scripted backend answers hooks/configuration with them (deadlines scaled as
   * for a registered subscription), unless the script gives its own `configuration` answers.
   */
  configured?: boolean;
}

export interface ToolStepPlan {
  kind: 'tool';
  id: string;
  /** The sentinel's input; `probe: <step id>` is always added so frames can be matched to steps. */
  input?: Obj;
  host?: HostPolicy;
}

/**
 * A content step (adapter contract version 2): the harness emits the boundary event of
 * `kind` with `content` (the step's members besides id, kind and marker: message, model,
 * messages, tool, output, items, instructions, summary, removed, elicitation, workspace),
 * and the boundary's receiver writes `{effective}` to the step's marker.
 */
export interface ContentStepPlan {
  kind: ContentStepKind;
  id: string;
  content: Obj;
}

export type StepPlan =
  | { kind: 'session.start'; id?: string }
  | { kind: 'session.end'; id?: string }
  | ToolStepPlan
  | { kind: 'parallel'; id: string; steps: ToolStepPlan[] }
  | ContentStepPlan;

export const isContentStep = (s: StepPlan): s is ContentStepPlan =>
  s.kind !== 'session.start' && s.kind !== 'session.end' && s.kind !== 'tool' && s.kind !== 'parallel';

/** A content step's marker: what the boundary's receiver really got. */
export interface ContentMarker {
  effective?: unknown;
  /** The marker file exists but is not the JSON the contract asks for. */
  invalid?: string;
}

export interface Marker {
  executedInput?: unknown;
  /** The marker file exists but is not the JSON the contract asks for. */
  invalid?: string;
}

export interface AdapterReport {
  adapterContract?: number;
  harness?: { name?: string; version?: string };
  registration?: 'accepted' | 'rejected';
  rejectionReason?: string;
  steps?: { id: string; outcome: Outcome; reason?: string }[];
}

export interface HarnessRun {
  label: string;
  registration: unknown;
  exit: { code: number | null; signal: string | null };
  timedOut: boolean;
  stdout: string;
  stderr: string;
  report?: AdapterReport;
  reportProblem?: string;
  records: WireRecord[];
  /** Tool step id -> marker (undefined: the tool did not run). */
  markers: Record<string, Marker | undefined>;
  /** Content step id -> its receiver's marker (undefined: the receiver got nothing). */
  effective: Record<string, ContentMarker | undefined>;
  /** Tool step id -> the input the step asked for. */
  inputs: Record<string, Obj>;
  /** Wall-clock ms when each marker file was last written. */
  markerTimes: Record<string, number>;
  /** The intercept deadline this run's registration gave each hook (the smallest of its intercept subscriptions). */
  deadlines: Record<string, number>;
  /** Runs with OAuth-protected hooks: the run's authorization server and what it received. */
  auth?: RunAuthObservation;
}

/** What the scenario of one run is: hooks (with their scripts), steps, and an optional edit of the valid registration. */
export interface RunPlan {
  label: string;
  hooks: readonly HookPlan[];
  steps: readonly StepPlan[];
  registration?: (reg: Obj) => unknown;
  /** How the run's authorization server behaves (runs with `oauth` hooks). */
  auth?: RunAuthPlan;
}

/** Where the shared runs of a worker are kept, and the scope (the target) a key is unique in. */
export interface SharedRunCache {
  runs: SharedRuns<string>;
  scope: string;
  /** A folder of the run, hidden from implementations, where a run outlives its worker (see sharedStore). */
  folder?: string;
}

/** A shared run's stored copy is the runner's own file, read bounded all the same. */
const MAX_SHARED_RUN_BYTES = 64 * 1024 * 1024;

/**
 * Shared runs kept as files (one per key, named by its digest) in `folder`: a worker that
 * restarts after a failed check (Playwright starts a new one) reads the run instead of making
 * it again. The folder is in the run's work folder, which every sandbox hides
 * (src/engine/workspace.ts), and goes with the run.
 */
function sharedStore(folder: string): SharedRunStore<string> {
  const file = (key: string): string => join(folder, `${createHash('sha256').update(key).digest('hex')}.json`);
  return {
    read: (key) => {
      const r = readRegularFile(file(key), { maxBytes: MAX_SHARED_RUN_BYTES, singleLink: true });
      return r.kind === 'ok' ? r.bytes.toString('utf8') : undefined;
    },
    write: (key, value) => {
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        writeFileSafely(file(key), value, 0o600);
      } catch {
        // Not kept: a later worker makes the run again.
      }
    },
  };
}

/**
 * Wait for every one of several runs started together (none is left running behind a
 * failure of another), then give their results in order, or the first error.
 */
export async function together<T extends readonly unknown[] | []>(
  runs: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled: PromiseSettledResult<unknown>[] = await Promise.allSettled(runs as readonly unknown[]);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/** The adapter runs of this worker process (src/timing.ts ADAPTER_RUNS_AT_ONCE). */
const adapterRuns = new Limiter(ADAPTER_RUNS_AT_ONCE);

const isStep = (x: unknown): boolean =>
  !!x &&
  typeof x === 'object' &&
  typeof (x as Obj).id === 'string' &&
  typeof (x as Obj).outcome === 'string' &&
  ((x as Obj).reason === undefined || typeof (x as Obj).reason === 'string');

export const hookId = (name: string): string => `dev.ahp-conformance.${name}`;

/** An intercept subscription; the session gives it the claim's timeoutMs unless the check sets one. */
export function intercept(events: string[], extra: Partial<Subscription> = {}): Subscription {
  return { events, mode: 'intercept', failurePolicy: 'fail-closed', content: { default: 'body' }, ...extra };
}

export function observe(events: string[], extra: Partial<Subscription> = {}): Subscription {
  return { events, mode: 'observe', content: { default: 'body' }, ...extra };
}

export function tool(id: string, input: Obj = {}, host: HostPolicy = 'allow'): ToolStepPlan {
  return { kind: 'tool', id, input, host };
}

export class HarnessSession {
  private readonly root: string;
  private runs = 0;
  private collector?: Promise<WireCollector>;
  /** The scripted backend's start-up on this machine, measured in this session (stdio only). */
  private startupMs: number | undefined;
  private startupMeasured?: Promise<void>;
  /** Runs in progress: close() stops and awaits them. */
  private readonly active = new Set<Promise<unknown>>();
  private readonly closing = new AbortController();
  /** The secret in the bearer variable: random per session, so a leak is unmistakable. */
  readonly token = `ahp-canary-${randomBytes(12).toString('hex')}`;
  /** The OAuth client secret (CLIENT_SECRET_ENV): random per session, redacted like the token. */
  readonly clientSecret = `ahp-client-secret-${randomBytes(12).toString('hex')}`;
  /** What the harness advertised and did that its claim is held against after the run (src/results/over-claim.ts). */
  readonly observed = new ObservedLog();

  constructor(
    readonly claim: ResolvedClaim,
    readonly transport: Transport,
    readonly lifecycle: Lifecycle | undefined,
    readonly timeoutMs: number,
    readonly transcript: Transcript,
    /** The check's folder (the adapter's TMPDIR; run folders live in it) and confinement. */
    private readonly workspace: CheckWorkspace,
    /** Where runs shared between the checks of this target are kept (see sharedRun). */
    private readonly shared?: SharedRunCache,
  ) {
    this.root = workspace.dir;
    this.transcript.addSecret(this.token);
    this.transcript.addSecret(this.clientSecret);
  }

  /** The check's folder: files a step hands the adapter (an upload step's attachments) are written here. */
  get folder(): string {
    return this.root;
  }

  /** The snapshot the claim is judged by (src/protocol/snapshots.ts). */
  get snapshot(): SnapshotId {
    return this.claim.snapshot;
  }

  /** A hook's subscriptions as written (registration or configuration reply): intercept deadlines scaled. */
  private writtenSubscriptions(h: HookPlan, startupMs: number | undefined): Subscription[] {
    const transport = h.transport ?? this.transport;
    return h.subscriptions.map((s) =>
      s.mode === 'intercept' ? { ...s, timeoutMs: this.registeredTimeoutMs(s.timeoutMs, transport, startupMs) } : s,
    );
  }

  private wireCollector(): Promise<WireCollector> {
    this.collector ??= WireCollector.start();
    return this.collector;
  }

  /**
   * The intercept deadline written for a subscription (src/timing.ts): the check's wanted
   * deadline (the claim's timeoutMs unless the check sets one), scaled for stdio hooks by
   * the scripted backend's start-up measured in this session, so a correct harness whose
   * deadline includes starting the backend does not time out on a loaded machine. A run
   * writes what this gives when the run is started (a check that derives delays from it
   * computes them right before starting the run).
   */
  registeredTimeoutMs(
    wantedMs: number | undefined,
    transport: Transport = this.transport,
    startupMs = this.startupMs,
  ): number {
    return registrationTimeoutMs(
      wantedMs ?? this.timeoutMs,
      endpointFor(transport).needsStartup ? startupMs : undefined,
    );
  }

  /** The scripted backend's endpoint for a hook, chosen from its transport. */
  private endpointOf(hook: HookPlan): ScriptedEndpoint {
    return endpointFor(hook.transport ?? this.transport);
  }

  /** The intercept deadline a run's registration gave a hook (the smallest of its intercept subscriptions). */
  deadlineOf(run: HarnessRun, hook: string): number {
    return run.deadlines[hook] ?? this.registeredTimeoutMs(undefined);
  }

  /**
   * Take the measurements the registration's deadlines derive from (stdio: the scripted
   * backend's start-up), so a check can compute what it will write (registeredTimeoutMs)
   * before it builds its script.
   */
  async prepare(): Promise<void> {
    if (endpointFor(this.transport).needsStartup) await this.measureStartup();
  }

  /** The scripted backend's measured start-up (ms), where a stdio hook made it matter. */
  get measuredStartupMs(): number | undefined {
    return this.startupMs;
  }

  /** Once per session, however many runs ask at once. */
  private measureStartup(): Promise<void> {
    this.startupMeasured ??= this.measure();
    return this.startupMeasured;
  }

  /**
   * Measure how long the scripted backend takes to start on this machine now: the runner
   * starts it itself (as a harness would) and times spawn -> its first record at the
   * collector. Once per session, before the first registration with a stdio hook; later
   * runs raise it with the start-up each backend process reports about itself.
   */
  private async measure(): Promise<void> {
    const collector = await this.wireCollector();
    const log = collector.open({ hooks: {} });
    const t0 = nowMs();
    let measured: number | undefined;
    try {
      const child = spawn(
        process.execPath,
        stdioBackendArgs({
          stdioMain: STDIO_MAIN,
          collectorAddress: collector.address,
          key: log.key,
          hook: 'start-up-probe',
          lifecycle: 'per_event',
          lifetimeMs: START_ALLOWANCE_MS,
          waitArgs: backendWaitArgs(this.timeoutMs),
        }),
        { stdio: ['pipe', 'ignore', 'ignore'] },
      );
      child.on('error', () => undefined);
      const gone = new Promise((resolve) => child.once('exit', resolve));
      // Its first record, as it arrives (or its early exit, or the allowance).
      const start = await log.whenRecord((r) => r.kind === 'start', START_ALLOWANCE_MS, gone);
      if (start) measured = start.t - t0;
      // Its start-up is all the probe is for: it goes now, without the usual goodbye.
      if (child.exitCode === null) child.kill('SIGKILL');
    } finally {
      collector.forget(log);
    }
    this.startupMs = Math.round(measured ?? START_ALLOWANCE_MS);
    this.transcript.record({
      dir: 'note',
      channel: 'stdio',
      note: `scripted backend start-up measured: ${this.startupMs} ms${measured === undefined ? ' (no record in time; the allowance is used)' : ''}; the intercept deadlines written for stdio hooks are the wanted deadline + 2 x start-up (src/timing.ts)`,
    });
  }

  /** Raise the start-up measurement with what a run's backend processes report about themselves. */
  private learnStartup(records: readonly WireRecord[]): void {
    const reported = records
      .filter((r) => r.kind === 'start' && typeof r.uptimeMs === 'number')
      .map((r) => r.uptimeMs!);
    if (reported.length && this.startupMs !== undefined) this.startupMs = Math.max(this.startupMs, ...reported);
  }

  /** The registration for these hooks, pointing at the scripted backends of this run, and the intercept deadline of each hook. */
  private registration(
    hooks: readonly HookPlan[],
    startupMs: number | undefined,
    endpoints: ReadonlyMap<ScriptedEndpoint, RunEndpoint>,
    auth?: RunAuth,
  ): { registration: Obj; deadlines: Record<string, number> } {
    const entries: Obj[] = [];
    const deadlines: Record<string, number> = {};
    for (const h of hooks) {
      const subscriptions = this.writtenSubscriptions(h, startupMs);
      const written = subscriptions.flatMap((s) => (s.timeoutMs !== undefined ? [s.timeoutMs] : []));
      if (written.length) deadlines[h.name] = Math.min(...written);
      const t = endpoints.get(this.endpointOf(h))!.transportFor({
        name: h.name,
        lifecycle: h.lifecycle ?? this.lifecycle ?? 'persistent',
        deadlineMs: deadlines[h.name] ?? this.timeoutMs,
        extraArgs: h.extraArgs,
        missingCommand: h.missingCommand,
      });
      entries.push({
        id: hookId(h.name),
        transport: t,
        ...(h.bearer ? { authentication: { type: 'bearer', tokenEnv: TOKEN_ENV } } : {}),
        ...(h.oauth?.preset && auth ? { authentication: auth.presetFor(String(t.url)) } : {}),
        ...(h.configured ? {} : { subscriptions }),
      });
    }
    return { registration: { protocolVersion: 'draft', hooks: entries }, deadlines };
  }

  /**
   * Run a scenario that several checks judge in the same way (the same hooks, steps and
   * script): the first check of a target (in this worker) to ask runs it, the others reuse
   * its observations (each still gets the transcript). Only for scenarios without a
   * registration edit; the shared copy is stored with the token redacted.
   */
  async sharedRun(opts: {
    label: string;
    hooks: readonly HookPlan[];
    steps: readonly StepPlan[];
  }): Promise<HarnessRun> {
    if (!this.shared) return this.run(opts);
    const key = `${this.shared.scope}\n${createHash('sha256')
      .update(JSON.stringify([opts.label, opts.hooks, opts.steps, this.timeoutMs]))
      .digest('hex')}`;
    let own: HarnessRun | undefined;
    const { value, shared } = await this.shared.runs.get(
      key,
      async () => {
        own = await this.run(opts);
        return this.transcript.redactText(JSON.stringify(own));
      },
      this.shared.folder !== undefined ? sharedStore(this.shared.folder) : undefined,
    );
    if (!shared && own) return own;
    const run = JSON.parse(value) as HarnessRun;
    this.observed.add(observeHarnessRun(run));
    this.transcript.record({
      dir: 'note',
      channel: this.transport,
      note: `run "${run.label}" is shared with other checks of this target; its observations follow`,
    });
    this.transcribe(run.label, run.records, run);
    return run;
  }

  /** Several independent runs at once (bounded per worker, src/timing.ts); results in order. */
  runAll(plans: readonly RunPlan[]): Promise<HarnessRun[]> {
    return together(plans.map((p) => this.run(p)));
  }

  /**
   * One adapter run. Runs of a session may overlap: each has its own wire log (its own
   * collector key), its own HTTP backend, its own folder and its own registered deadlines.
   */
  async run(opts: RunPlan): Promise<HarnessRun> {
    const h = this.claim.harness;
    if (!h) throw new Error('the claim has no harness block');
    const n = ++this.runs;
    // Every deadline of the run derives from the intercept deadlines written into the
    // registration (src/timing.ts); the start-up measurement they need is taken first, and
    // the run keeps the value it has now (a check may have derived its script's delays from it).
    if (opts.hooks.some((x) => this.endpointOf(x).needsStartup) && this.startupMs === undefined)
      await this.measureStartup();
    const startupMs = this.startupMs;
    const running = adapterRuns.run(() => this.execute(h, opts, n, startupMs));
    this.active.add(running);
    try {
      const run = await running;
      this.observed.add(observeHarnessRun(run));
      return run;
    } finally {
      this.active.delete(running);
    }
  }

  private async execute(
    h: NonNullable<ResolvedClaim['harness']>,
    opts: RunPlan,
    n: number,
    startupMs: number | undefined,
  ): Promise<HarnessRun> {
    if (this.closing.signal.aborted) throw new Error('the harness session is closed');
    // The run's folder, made fresh: an earlier run's adapter may have planted a link (or
    // anything) at its name. It is used through the folder opened here for the whole run,
    // so renaming it or linking its name elsewhere later redirects no write or read.
    const top = Folder.open(this.root);
    let folder: Folder;
    try {
      folder = top.folder(`run-${n}`, { fresh: true });
    } finally {
      top.close();
    }
    try {
      return await this.executeIn(folder, h, opts, n, startupMs);
    } finally {
      folder.close();
    }
  }

  private async executeIn(
    folder: Folder,
    h: NonNullable<ResolvedClaim['harness']>,
    opts: RunPlan,
    n: number,
    startupMs: number | undefined,
  ): Promise<HarnessRun> {
    const runDir = folder.path;
    const markerName = (id: string): string => `marker-${id}.json`;
    const markerOf = (id: string): string => folder.show(markerName(id));
    // What the adapter wrote: a regular file it made in this folder (one link, this device), bounded.
    const device = folder.device;
    const untrusted = (name: string, max: number): ReturnType<typeof readUntrustedFile> =>
      readUntrustedFile(folder.at(name), max, device);
    // A script may name a step's marker file as "{marker:<step id>}" (probeFile).
    const scriptOf = (x: HookPlan): HookScript =>
      x.configured && !x.script?.configuration
        ? {
            ...x.script,
            configuration: [{ configuration: { subscriptions: this.writtenSubscriptions(x, startupMs) } }],
          }
        : (x.script ?? {});
    const scriptText = JSON.stringify({
      hooks: Object.fromEntries(opts.hooks.map((x) => [x.name, scriptOf(x)])),
    }).replace(/\{marker:([A-Za-z0-9._-]+)\}/g, (_, id: string) => JSON.stringify(markerOf(id)).slice(1, -1));
    const script = JSON.parse(scriptText) as BackendScript;
    const collector = await this.wireCollector();
    const log = collector.open(script);
    // What each transport of the run started for it (an HTTP server of its own), stopped after it.
    const endpoints = new Map<ScriptedEndpoint, RunEndpoint>();
    let auth: RunAuth | undefined;

    let started: AdapterExit;
    let registration: unknown;
    let deadlines: Record<string, number>;
    const inputs: Record<string, Obj> = {};
    const contentIds: string[] = [];
    const reportPath = join(runDir, 'report.json');
    try {
      // A content step costs what a tool step does: one intercept chain, one receiver.
      const toolCount = opts.steps.reduce(
        (k, s) => k + (s.kind === 'parallel' ? s.steps.length : s.kind === 'tool' || isContentStep(s) ? 1 : 0),
        0,
      );
      const longest = Math.max(
        this.timeoutMs,
        ...opts.hooks.flatMap((x) =>
          x.subscriptions
            .filter((s) => s.mode === 'intercept')
            .map((s) => this.registeredTimeoutMs(s.timeoutMs, x.transport ?? this.transport, startupMs)),
        ),
      );
      const deadlineMs = adapterRunDeadlineMs(longest, toolCount);
      const endpointRun = {
        log,
        runDir,
        token: this.token,
        collectorAddress: collector.address,
        stdioMain: STDIO_MAIN,
        lifetimeMs: scriptedBackendLifetimeMs(longest, toolCount),
        waitArgs: backendWaitArgs,
      };
      const oauthHooks = opts.hooks.filter((x) => x.oauth).map((x) => x.name);
      if (oauthHooks.length)
        auth = await RunAuth.start(folder, oauthHooks, opts.auth ?? {}, this.clientSecret, (t) =>
          this.transcript.addSecret(t),
        );
      for (const e of new Set(opts.hooks.map((x) => this.endpointOf(x))))
        endpoints.set(e, await e.start({ ...endpointRun, ...(auth ? { protect: auth.protect } : {}) }));
      const valid = this.registration(opts.hooks, startupMs, endpoints, auth);
      deadlines = valid.deadlines;
      registration = opts.registration ? opts.registration(structuredClone(valid.registration)) : valid.registration;
      const toolStep = (s: ToolStepPlan): Obj => {
        const input = { ...(s.input ?? {}), probe: s.id };
        inputs[s.id] = input;
        return {
          id: s.id,
          kind: 'tool',
          tool: { name: SENTINEL_TOOL, input },
          marker: markerOf(s.id),
          host: s.host ?? 'allow',
        };
      };
      let k = 0;
      const steps = opts.steps.map((s) => {
        if (isContentStep(s)) {
          contentIds.push(s.id);
          return { id: s.id, kind: s.kind, ...s.content, marker: markerOf(s.id) };
        }
        if (s.kind === 'tool') return toolStep(s);
        if (s.kind === 'parallel') return { id: s.id, kind: 'parallel', steps: s.steps.map(toolStep) };
        const id = s.id ?? `${s.kind === 'session.start' ? 'start' : 'end'}-${++k}`;
        return s.kind === 'session.end'
          ? { id, kind: 'session.end', outcome: 'completed' }
          : { id, kind: 'session.start' };
      });
      const config = {
        // Version 2 only where a content step needs it: a version 1 adapter keeps working.
        adapterContract: contentIds.length ? ADAPTER_CONTRACT_CONTENT : ADAPTER_CONTRACT,
        // The snapshot the claim is judged by: whether the registration is valid (and which
        // invalid ones the harness must refuse) depends on it. An added member, in either
        // contract version (docs/harness-adapter.md section 2).
        snapshot: this.snapshot,
        registration,
        sentinel: { tool: SENTINEL_TOOL },
        scenario: { session: { id: `ahp-session-${n}`, cwd: runDir }, steps },
        report: reportPath,
        // Only runs with OAuth-protected hooks: the run CA, to be trusted for this run only.
        ...(auth ? { tls: { caFile: auth.caFile } } : {}),
      };
      const configPath = join(runDir, 'config.json');
      folder.write('config.json', `${JSON.stringify(config, null, 2)}\n`);
      this.transcript.record({
        dir: 'note',
        channel: this.transport,
        note: `run "${opts.label}": adapter started with ${configPath}`,
      });
      started = await launchAdapter(
        {
          command: h.command,
          args: h.args.map((a) => a.replaceAll(CONFIG_PLACEHOLDER, configPath)),
          cwd: h.cwd,
          env: implementationEnv(h, {
            TMPDIR: this.workspace.dir,
            AHP_ADAPTER_CONFIG: configPath,
            [TOKEN_ENV]: this.token,
            ...(auth ? { [CLIENT_SECRET_ENV]: this.clientSecret } : {}),
          }),
          confine: this.workspace.confine([h.cwd], true),
        },
        // After a timely exit, its stdio backends may still be reading their last line or
        // exiting: the run waits until none is connected, bounded.
        {
          deadlineMs,
          outputCap: OUTPUT_CAP,
          settle: () => log.whenIdle(backendSettleMs(this.timeoutMs)),
          signal: this.closing.signal,
        },
      );
    } finally {
      collector.forget(log);
      await Promise.all([...endpoints.values()].map((e) => e.close()));
      await auth?.close();
    }
    const records = [...log.records];
    this.learnStartup(records);
    if (log.refused)
      this.transcript.record({
        dir: 'note',
        channel: this.transport,
        note: `${log.refused} connection(s) to the wire collector without this run's key were refused`,
      });
    if (log.dropped)
      this.transcript.record({
        dir: 'note',
        channel: this.transport,
        note: `${log.dropped} wire record(s) past the bound were not kept`,
      });
    this.transcribe(opts.label, records, started);
    for (const r of auth?.observation().records ?? [])
      this.transcript.record({
        dir: 'note',
        channel: 'http',
        note: `authorization server (${r.server}): ${r.method} ${r.path}${r.clientAuth ? `; client auth ${r.clientAuth} ${r.clientAuthOk ? 'ok' : 'refused'}` : ''}${r.grantType ? `; grant_type ${r.grantType}` : ''}${r.resource ? `; resource ${JSON.stringify(r.resource)}` : ''}${r.scope !== undefined ? `; scope "${r.scope}"` : ''} -> ${r.status ?? 'no answer'}${r.issued ? `; issued token ${r.issued.jti} aud ${r.issued.aud} scope "${r.issued.scope}" exp ${r.issued.exp}` : ''}${r.note ? ` (${r.note})` : ''}`,
      });
    let report: AdapterReport | undefined;
    let reportProblem: string | undefined;
    const reportFile = untrusted('report.json', REPORT_MAX_BYTES);
    if (reportFile.kind === 'missing') reportProblem = 'the adapter wrote no report';
    else if (reportFile.kind === 'refused') reportProblem = `the report was not read: ${reportFile.why}`;
    else {
      try {
        const parsed = JSON.parse(reportFile.text) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
          report = parsed as AdapterReport;
          // The adapter's file: a `steps` that is no list of objects with a string id is
          // set aside (and said), so every reader can take the list as typed.
          const steps = (parsed as Obj).steps;
          if (steps !== undefined) {
            const usable = Array.isArray(steps)
              ? steps.filter((x): x is NonNullable<AdapterReport['steps']>[number] => isStep(x))
              : [];
            if (!Array.isArray(steps) || usable.length !== steps.length)
              reportProblem =
                "the report's steps are not a list of {id, outcome} objects (the malformed entries are ignored)";
            report = { ...report, steps: usable };
          }
        } else reportProblem = 'the report is not a JSON object';
      } catch {
        reportProblem = 'the report is not valid JSON';
      }
    }
    const markers: Record<string, Marker | undefined> = {};
    const markerTimes: Record<string, number> = {};
    for (const id of Object.keys(inputs)) {
      const file = untrusted(markerName(id), MARKER_MAX_BYTES);
      if (file.kind === 'missing') {
        markers[id] = undefined;
        continue;
      }
      if (file.kind === 'refused') {
        markers[id] = { invalid: `(not read: ${file.why})` };
        continue;
      }
      markerTimes[id] = file.mtimeMs;
      try {
        const m = JSON.parse(file.text) as Obj;
        markers[id] =
          m && typeof m === 'object' && 'executedInput' in m
            ? { executedInput: m.executedInput }
            : { invalid: file.text.slice(0, 2000) };
      } catch {
        markers[id] = { invalid: file.text.slice(0, 2000) };
      }
    }
    const effective: Record<string, ContentMarker | undefined> = {};
    for (const id of contentIds) {
      // Bounded and untrusted, like the tool markers.
      const file = untrusted(markerName(id), MARKER_MAX_BYTES);
      if (file.kind === 'missing') effective[id] = undefined;
      else if (file.kind === 'refused') effective[id] = { invalid: `(not read: ${file.why})` };
      else {
        markerTimes[id] = file.mtimeMs;
        try {
          const m = JSON.parse(file.text) as unknown;
          effective[id] =
            m && typeof m === 'object' && !Array.isArray(m) && 'effective' in m
              ? { effective: (m as Obj).effective }
              : { invalid: file.text.slice(0, 2000) };
        } catch {
          effective[id] = { invalid: file.text.slice(0, 2000) };
        }
      }
    }
    return {
      label: opts.label,
      registration,
      ...started,
      report,
      ...(reportProblem ? { reportProblem } : {}),
      records,
      markers,
      effective,
      inputs,
      markerTimes,
      deadlines,
      ...(auth
        ? {
            auth: auth.observation(
              auth.leaksIn({
                'adapter stdout': started.stdout,
                'adapter stderr': started.stderr,
                'the adapter report': reportFile.kind === 'ok' ? reportFile.text : '',
                'an event body': records.flatMap((r) => (r.kind === 'frame' ? [r.text ?? ''] : [])).join('\n'),
              }),
            ),
          }
        : {}),
    };
  }

  private transcribe(
    label: string,
    records: readonly WireRecord[],
    run: { exit: { code: number | null; signal: string | null }; timedOut: boolean; stdout: string; stderr: string },
  ): void {
    const t0 = records[0]?.t ?? 0;
    for (const r of records) {
      const at = `+${(r.t - t0).toFixed(1)} ms`;
      const who = `hook ${r.hook}${r.pid !== undefined ? ` ${endpointFor(r.transport).who(r.pid)}` : ''}`;
      if (r.kind === 'frame') {
        this.transcript.record({
          dir: 'recv',
          channel: r.transport,
          text: r.text ?? '',
          ...(r.http
            ? {
                http: {
                  method: r.http.method,
                  url: r.http.url,
                  headers: {
                    'content-type': String(r.http.contentType ?? ''),
                    authorization: `${r.http.authorization?.count ?? 0} header(s)${r.http.authorization?.matches ? ', the expected token' : ''}${r.http.authorization?.bearer ? `; resource verdict: ${r.http.authorization.bearer.kind}${r.http.authorization.bearer.why ? ` (${r.http.authorization.bearer.why})` : ''}` : ''}`,
                  },
                },
              }
            : {}),
          note: `${who} ${at}${r.lines && r.lines > 1 ? `; spanned ${r.lines} lines` : ''}${r.note ? `; ${r.note}` : ''}`,
        });
      } else if (r.kind === 'reply') {
        this.transcript.record({
          dir: 'send',
          channel: r.transport,
          text: r.text ?? '',
          ...(r.http?.status ? { http: { status: r.http.status } } : {}),
          note: `${who} ${at}${r.note ? `; ${r.note}` : ''}`,
        });
      } else if (r.kind !== 'line') {
        const what =
          r.kind === 'start'
            ? `started: ${JSON.stringify(r.argv)}`
            : r.kind === 'probe'
              ? `marker ${r.exists ? 'EXISTS' : 'absent'} when replying`
              : r.kind === 'metadata'
                ? `${r.http?.method} ${r.http?.url} (protected-resource metadata) -> ${r.http?.status}`
                : r.kind;
        this.transcript.record({
          dir: 'note',
          channel: r.transport,
          note: `${who} ${at}: ${what}${r.note ? ` (${r.note})` : ''}`,
        });
      }
    }
    if (run.stderr)
      this.transcript.record({ dir: 'stderr', channel: 'stdio', text: run.stderr, note: `adapter stderr (${label})` });
    if (run.stdout)
      this.transcript.record({ dir: 'stderr', channel: 'stdio', text: run.stdout, note: `adapter stdout (${label})` });
    this.transcript.record({
      dir: 'exit',
      channel: 'stdio',
      note: `run "${label}": adapter ${run.timedOut ? 'killed at the scenario deadline' : `exited with ${run.exit.signal ?? `status ${run.exit.code}`}`}`,
    });
  }

  async close(): Promise<void> {
    // Runs still going (a check that timed out, or failed while others ran): stop them first.
    this.closing.abort();
    await Promise.allSettled([...this.active]);
    await (await this.collector?.catch(() => undefined))?.close();
    this.workspace.dispose();
  }
}
