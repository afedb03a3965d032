// The runner's side of harness certification: it plays the backend and drives the
// harness under test through its adapter (docs/harness-adapter.md). One `run()` writes a
// registration pointing at the scripted backend, a scenario and a script, starts the
// adapter once, and returns everything observable: the frames each hook received (wire
// log), the sentinel's marker files, the adapter's report, exit status and output.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { packageRoot } from '../../src/package-root.js';
import type { Lifecycle, Transport } from '../../src/checks/catalogue.js';
import type { ResolvedClaim } from '../../src/claims/load.js';
import { describeSpawnError, explainSpawnFailure, killTree, LaunchError, spawnTracked } from '../../drivers/processes.js';
import { containment } from '../../drivers/containment.js';
import { ByteTail } from '../../drivers/tail.js';
import type { Transcript } from '../../drivers/transcript.js';
import { readUntrustedFile } from '../../drivers/untrusted-file.js';
import { ScriptedHttpBackend } from '../../drivers/scripted-backend/http-server.js';
import { WireCollector, type RunLog } from '../../drivers/scripted-backend/collector.js';
import type { BackendScript, HookScript, WireRecord } from '../../drivers/scripted-backend/script.js';
import { implementationEnv } from '../../src/claims/environment.js';
import type { CheckWorkspace } from '../../src/engine/workspace.js';
import { adapterRunDeadlineMs, backendSettleMs, registrationTimeoutMs, scriptedBackendLifetimeMs, sharedRunWaitMs, START_ALLOWANCE_MS } from '../../src/timing.js';
import { nowMs } from '../../drivers/scripted-backend/script.js';
import { spawn } from 'node:child_process';

type Obj = Record<string, unknown>;

export const SENTINEL_TOOL = 'ahp_sentinel';
export const ADAPTER_CONTRACT = 1;
export const TOKEN_ENV = 'AHP_CONFORMANCE_TEST_TOKEN';
// The compiled scripted backend (the suites run from source; the harness launches plain JS).
const STDIO_MAIN = join(packageRoot(), 'dist', 'drivers', 'scripted-backend', 'stdio-main.js');
const OUTPUT_CAP = 256 * 1024;
/** Bounds on what the adapter writes for the runner to read. */
const REPORT_MAX_BYTES = 1024 * 1024;
const MARKER_MAX_BYTES = 256 * 1024;

export type HostPolicy = 'allow' | 'ask-refuse' | 'deny';
export type Outcome = 'executed' | 'denied-by-backend' | 'denied-by-failure-policy' | 'denied-by-host' | 'not-run' | 'unsupported';

export interface Subscription {
  events: string[];
  mode: 'intercept' | 'observe';
  timeoutMs?: number;
  failurePolicy?: 'fail-open' | 'fail-closed';
  content?: Obj;
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
  /** stdio: a command that does not exist (a backend that cannot be started). */
  missingCommand?: boolean;
}

export interface ToolStepPlan {
  kind: 'tool';
  id: string;
  /** The sentinel's input; `probe: <step id>` is always added so frames can be matched to steps. */
  input?: Obj;
  host?: HostPolicy;
}

export type StepPlan = { kind: 'session.start'; id?: string } | { kind: 'session.end'; id?: string } | ToolStepPlan | { kind: 'parallel'; id: string; steps: ToolStepPlan[] };

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
  /** Tool step id -> the input the step asked for. */
  inputs: Record<string, Obj>;
  /** Wall-clock ms when each marker file was last written. */
  markerTimes: Record<string, number>;
}

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
  private http?: ScriptedHttpBackend;
  private collector?: WireCollector;
  private current: RunLog | undefined;
  /** The scripted backend's start-up on this machine, measured in this session (stdio only). */
  private startupMs: number | undefined;
  /** The intercept deadlines of the last registration, per hook name (what the harness was told). */
  private registered: Record<string, number> = {};
  /** The secret in the bearer variable: random per session, so a leak is unmistakable. */
  readonly token = `ahp-canary-${randomBytes(12).toString('hex')}`;

  constructor(
    readonly claim: ResolvedClaim,
    readonly transport: Transport,
    readonly lifecycle: Lifecycle | undefined,
    readonly timeoutMs: number,
    readonly transcript: Transcript,
    /** The check's folder (the adapter's TMPDIR; run folders live in it) and confinement. */
    private readonly workspace: CheckWorkspace,
    /** Where runs shared between the checks of this target are kept (see sharedRun). */
    private readonly sharedDir?: string,
  ) {
    this.root = workspace.dir;
    this.transcript.addSecret(this.token);
  }

  private async httpBackend(): Promise<ScriptedHttpBackend> {
    this.http ??= await ScriptedHttpBackend.start(() => this.current, this.token);
    return this.http;
  }

  private async wireCollector(): Promise<WireCollector> {
    this.collector ??= await WireCollector.start();
    return this.collector;
  }

  /**
   * The intercept deadline written for a subscription (src/timing.ts): the check's wanted
   * deadline (the claim's timeoutMs unless the check sets one), scaled for stdio hooks by
   * the scripted backend's start-up measured in this session, so a correct harness whose
   * deadline includes starting the backend does not time out on a loaded machine.
   */
  registeredTimeoutMs(wantedMs: number | undefined, transport: Transport = this.transport): number {
    return registrationTimeoutMs(wantedMs ?? this.timeoutMs, transport === 'stdio' ? this.startupMs : undefined);
  }

  /** The intercept deadline the last registration gave a hook (the smallest of its intercept subscriptions). */
  deadlineOf(hook: string): number {
    return this.registered[hook] ?? this.registeredTimeoutMs(undefined);
  }

  /**
   * Take the measurements the registration's deadlines derive from (stdio: the scripted
   * backend's start-up), so a check can compute what it will write (registeredTimeoutMs)
   * before it builds its script.
   */
  async prepare(): Promise<void> {
    if (this.transport === 'stdio') await this.measureStartup();
  }

  /** The scripted backend's measured start-up (ms), where a stdio hook made it matter. */
  get measuredStartupMs(): number | undefined {
    return this.startupMs;
  }

  /**
   * Measure how long the scripted backend takes to start on this machine now: the runner
   * starts it itself (as a harness would) and times spawn -> its first record at the
   * collector. Once per session, before the first registration with a stdio hook; later
   * runs raise it with the start-up each backend process reports about itself.
   */
  private async measureStartup(): Promise<void> {
    if (this.startupMs !== undefined) return;
    const collector = await this.wireCollector();
    const log = collector.open({ hooks: {} });
    const t0 = nowMs();
    let measured: number | undefined;
    try {
      const child = spawn(process.execPath, [STDIO_MAIN, '--collector', collector.address, '--key', log.key, '--hook', 'start-up-probe', '--lifecycle', 'per_event', '--lifetime-ms', String(START_ALLOWANCE_MS), '--timeout-ms', String(this.timeoutMs)], { stdio: ['pipe', 'ignore', 'ignore'] });
      child.on('error', () => undefined);
      const until = t0 + START_ALLOWANCE_MS;
      while (nowMs() < until) {
        const start = log.records.find((r) => r.kind === 'start');
        if (start) {
          measured = start.t - t0;
          break;
        }
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      child.stdin?.end();
      await log.whenIdle(1_000);
      if (child.exitCode === null) child.kill('SIGKILL');
    } finally {
      collector.forget(log);
    }
    this.startupMs = Math.round(measured ?? START_ALLOWANCE_MS);
    this.transcript.record({
      dir: 'note', channel: 'stdio',
      note: `scripted backend start-up measured: ${this.startupMs} ms${measured === undefined ? ' (no record in time; the allowance is used)' : ''}; the intercept deadlines written for stdio hooks are the wanted deadline + 2 x start-up (src/timing.ts)`,
    });
  }

  /** Raise the start-up measurement with what a run's backend processes report about themselves. */
  private learnStartup(records: readonly WireRecord[]): void {
    const reported = records.filter((r) => r.kind === 'start' && typeof r.uptimeMs === 'number').map((r) => r.uptimeMs!);
    if (reported.length && this.startupMs !== undefined) this.startupMs = Math.max(this.startupMs, ...reported);
  }

  /** The registration for these hooks, pointing at the scripted backend of this run. */
  async registration(hooks: readonly HookPlan[], runDir: string, log: RunLog, lifetimeMs: number): Promise<Obj> {
    const entries: Obj[] = [];
    if (hooks.some((h) => (h.transport ?? this.transport) === 'stdio')) await this.measureStartup();
    this.registered = {};
    for (const h of hooks) {
      const transport = h.transport ?? this.transport;
      const subscriptions = h.subscriptions.map((s) => (s.mode === 'intercept' ? { ...s, timeoutMs: this.registeredTimeoutMs(s.timeoutMs, transport) } : s));
      const deadlines = subscriptions.flatMap((s) => (s.timeoutMs !== undefined ? [s.timeoutMs] : []));
      if (deadlines.length) this.registered[h.name] = Math.min(...deadlines);
      let t: Obj;
      if (transport === 'stdio') {
        const lifecycle = h.lifecycle ?? this.lifecycle ?? 'persistent';
        const command = h.missingCommand ? join(runDir, 'no-such-backend') : process.execPath;
        const collector = (await this.wireCollector()).address;
        t = {
          type: 'stdio', command, lifecycle,
          args: [STDIO_MAIN, '--collector', collector, '--key', log.key, '--hook', h.name, '--lifecycle', lifecycle, '--lifetime-ms', String(lifetimeMs), '--timeout-ms', String(this.registered[h.name] ?? this.timeoutMs), ...(h.extraArgs ?? [])],
        };
      } else {
        t = { type: 'http', url: (await this.httpBackend()).url(h.name) };
      }
      entries.push({
        id: hookId(h.name),
        transport: t,
        ...(h.bearer ? { authentication: { type: 'bearer', tokenEnv: TOKEN_ENV } } : {}),
        subscriptions,
      });
    }
    return { protocolVersion: 'draft', hooks: entries };
  }

  /** Where the redirect target of a hook is (http.no-redirect). */
  async redirectTarget(hook: string): Promise<string> {
    return (await this.httpBackend()).redirectUrl(hook);
  }

  /**
   * Run a scenario that several checks judge in the same way (the same hooks, steps and
   * script): the first check of a target to ask runs it, the others of the same run of
   * `ahp-conformance` reuse its observations (each still gets the transcript). Only for
   * scenarios without a registration edit; texts are stored with the token redacted.
   */
  async sharedRun(opts: { label: string; hooks: readonly HookPlan[]; steps: readonly StepPlan[] }): Promise<HarnessRun> {
    if (!this.sharedDir) return this.run(opts);
    const key = createHash('sha256').update(JSON.stringify([opts.label, opts.hooks, opts.steps, this.timeoutMs])).digest('hex').slice(0, 24);
    const dir = join(this.sharedDir, key);
    const file = join(dir, 'run.json');
    let owner = true;
    try {
      mkdirSync(dir, { recursive: false });
    } catch {
      owner = false;
    }
    if (owner) {
      const run = await this.run(opts);
      const stored: HarnessRun = JSON.parse(this.transcript.redactText(JSON.stringify(run))) as HarnessRun;
      writeFileSync(`${file}.tmp`, JSON.stringify(stored));
      renameSync(`${file}.tmp`, file);
      return run;
    }
    // Another check of this target runs it: wait for its result, bounded; else run it here.
    const until = Date.now() + sharedRunWaitMs(this.timeoutMs, opts.steps.length);
    while (Date.now() < until) {
      if (existsSync(file)) {
        const run = JSON.parse(readFileSync(file, 'utf8')) as HarnessRun;
        this.transcript.record({ dir: 'note', channel: this.transport, note: `run "${run.label}" is shared with other checks of this target; its observations follow` });
        this.transcribe(run.label, run.records, run);
        return run;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.run(opts);
  }

  async run(opts: { label: string; hooks: readonly HookPlan[]; steps: readonly StepPlan[]; registration?: (reg: Obj) => unknown }): Promise<HarnessRun> {
    const h = this.claim.harness;
    if (!h) throw new Error('the claim has no harness block');
    const runDir = join(this.root, `run-${++this.runs}`);
    mkdirSync(runDir, { recursive: true });
    const markerOf = (id: string): string => join(runDir, `marker-${id}.json`);
    // A script may name a step's marker file as "{marker:<step id>}" (probeFile).
    const scriptText = JSON.stringify({ hooks: Object.fromEntries(opts.hooks.map((x) => [x.name, x.script ?? {}])) })
      .replace(/\{marker:([A-Za-z0-9._-]+)\}/g, (_, id: string) => JSON.stringify(markerOf(id)).slice(1, -1));
    const script = JSON.parse(scriptText) as BackendScript;
    const log = (await this.wireCollector()).open(script);
    this.current = log;

    const toolCount = opts.steps.reduce((k, s) => k + (s.kind === 'parallel' ? s.steps.length : s.kind === 'tool' ? 1 : 0), 0);
    // Every deadline of the run derives from the largest intercept deadline written into
    // the registration (src/timing.ts); the start-up measurement it needs is taken first.
    if (opts.hooks.some((h) => (h.transport ?? this.transport) === 'stdio')) await this.measureStartup();
    const longest = Math.max(this.timeoutMs, ...opts.hooks.flatMap((h) => h.subscriptions.filter((s) => s.mode === 'intercept').map((s) => this.registeredTimeoutMs(s.timeoutMs, h.transport ?? this.transport))));
    const deadlineMs = adapterRunDeadlineMs(longest, toolCount);
    const valid = await this.registration(opts.hooks, runDir, log, scriptedBackendLifetimeMs(longest, toolCount));
    const registration = opts.registration ? opts.registration(structuredClone(valid)) : valid;
    const inputs: Record<string, Obj> = {};
    const toolStep = (s: ToolStepPlan): Obj => {
      const input = { ...(s.input ?? {}), probe: s.id };
      inputs[s.id] = input;
      return { id: s.id, kind: 'tool', tool: { name: SENTINEL_TOOL, input }, marker: markerOf(s.id), host: s.host ?? 'allow' };
    };
    let n = 0;
    const steps = opts.steps.map((s) => {
      if (s.kind === 'tool') return toolStep(s);
      if (s.kind === 'parallel') return { id: s.id, kind: 'parallel', steps: s.steps.map(toolStep) };
      const id = s.id ?? `${s.kind === 'session.start' ? 'start' : 'end'}-${++n}`;
      return s.kind === 'session.end' ? { id, kind: 'session.end', outcome: 'completed' } : { id, kind: 'session.start' };
    });
    const reportPath = join(runDir, 'report.json');
    const config = {
      adapterContract: ADAPTER_CONTRACT,
      registration,
      sentinel: { tool: SENTINEL_TOOL },
      scenario: { session: { id: `ahp-session-${this.runs}`, cwd: runDir }, steps },
      report: reportPath,
    };
    const configPath = join(runDir, 'config.json');
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    this.transcript.record({ dir: 'note', channel: this.transport, note: `run "${opts.label}": adapter started with ${configPath}` });

    let started: Awaited<ReturnType<HarnessSession['launch']>>;
    try {
      started = await this.launch(h, configPath, deadlineMs, log);
    } finally {
      this.collector?.forget(log);
    }
    const records = [...log.records];
    this.learnStartup(records);
    if (log.refused) this.transcript.record({ dir: 'note', channel: this.transport, note: `${log.refused} connection(s) to the wire collector without this run's key were refused` });
    if (log.dropped) this.transcript.record({ dir: 'note', channel: this.transport, note: `${log.dropped} wire record(s) past the bound were not kept` });
    this.transcribe(opts.label, records, started);

    let report: AdapterReport | undefined;
    let reportProblem: string | undefined;
    const reportFile = readUntrustedFile(reportPath, REPORT_MAX_BYTES);
    if (reportFile.kind === 'missing') reportProblem = 'the adapter wrote no report';
    else if (reportFile.kind === 'refused') reportProblem = `the report was not read: ${reportFile.why}`;
    else {
      try {
        const parsed = JSON.parse(reportFile.text) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) report = parsed as AdapterReport;
        else reportProblem = 'the report is not a JSON object';
      } catch {
        reportProblem = 'the report is not valid JSON';
      }
    }
    const markers: Record<string, Marker | undefined> = {};
    const markerTimes: Record<string, number> = {};
    for (const id of Object.keys(inputs)) {
      const file = readUntrustedFile(markerOf(id), MARKER_MAX_BYTES);
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
        markers[id] = m && typeof m === 'object' && 'executedInput' in m ? { executedInput: m.executedInput } : { invalid: file.text.slice(0, 2000) };
      } catch {
        markers[id] = { invalid: file.text.slice(0, 2000) };
      }
    }
    return { label: opts.label, registration, ...started, report, ...(reportProblem ? { reportProblem } : {}), records, markers, inputs, markerTimes };
  }

  /**
   * Start the adapter (contained and supervised: its container outlives it until its stdio
   * backends have reported), wait for it to exit or for the run's deadline, let its
   * backends settle (bounded), then tear everything down.
   */
  private async launch(
    h: NonNullable<ResolvedClaim['harness']>,
    configPath: string,
    deadlineMs: number,
    log: RunLog,
  ): Promise<{ exit: { code: number | null; signal: string | null }; timedOut: boolean; stdout: string; stderr: string }> {
    const args = h.args.map((a) => a.replaceAll('{config}', configPath));
    const env = implementationEnv(h, { TMPDIR: this.workspace.dir, AHP_ADAPTER_CONFIG: configPath, [TOKEN_ENV]: this.token });
    const pre = explainSpawnFailure(h.command, h.cwd, env);
    if (pre.code === 'ENOENT' || pre.code === 'EACCES' || pre.code === 'ENOTDIR') throw new LaunchError(pre.message);
    const supervised = containment().kind === 'pid-namespace';
    const child = spawnTracked(h.command, args, {
      cwd: h.cwd, env, stdio: ['ignore', 'pipe', 'pipe', ...(supervised ? ['pipe' as const] : [])], confine: this.workspace.confine([h.cwd], true),
    });
    const out = new ByteTail(OUTPUT_CAP);
    const err = new ByteTail(OUTPUT_CAP);
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    let timedOut = false;
    const exit = await new Promise<{ code: number | null; signal: string | null } | Error>((resolveExit) => {
      const timer = setTimeout(() => {
        timedOut = true;
        resolveExit({ code: null, signal: 'SIGKILL' });
      }, deadlineMs);
      const done = (e: { code: number | null; signal: string | null } | Error): void => {
        clearTimeout(timer);
        resolveExit(e);
      };
      child.once('error', done);
      child.once('close', (code, signal) => done({ code, signal }));
      // Contained: the container's init reports the adapter's status on fd 3 and stays.
      if (supervised) statusLine(child.stdio[3] as Readable | null, done);
    });
    if (exit instanceof Error) {
      await killTree(child, 0);
      throw new LaunchError(describeSpawnError(h.command, exit).message);
    }
    // The adapter is gone (or out of time); its stdio backends may still be reading their
    // last line or exiting: let them report, bounded, then tear the container down.
    if (!timedOut) await log.whenIdle(backendSettleMs(this.timeoutMs));
    await killTree(child, 200);
    return { exit, timedOut, stdout: out.text(), stderr: err.text() };
  }

  private transcribe(label: string, records: readonly WireRecord[], run: { exit: { code: number | null; signal: string | null }; timedOut: boolean; stdout: string; stderr: string }): void {
    const t0 = records[0]?.t ?? 0;
    for (const r of records) {
      const at = `+${(r.t - t0).toFixed(1)} ms`;
      const who = `hook ${r.hook}${r.pid !== undefined ? (r.transport === 'stdio' ? ` pid ${r.pid}` : ` request ${r.pid}`) : ''}`;
      if (r.kind === 'frame') {
        this.transcript.record({
          dir: 'recv', channel: r.transport, text: r.text ?? '',
          ...(r.http ? { http: { method: r.http.method, url: r.http.url, headers: { 'content-type': String(r.http.contentType ?? ''), authorization: `${r.http.authorization?.count ?? 0} header(s)${r.http.authorization?.matches ? ', the expected token' : ''}` } } } : {}),
          note: `${who} ${at}${r.lines && r.lines > 1 ? `; spanned ${r.lines} lines` : ''}${r.note ? `; ${r.note}` : ''}`,
        });
      } else if (r.kind === 'reply') {
        this.transcript.record({ dir: 'send', channel: r.transport, text: r.text ?? '', ...(r.http?.status ? { http: { status: r.http.status } } : {}), note: `${who} ${at}${r.note ? `; ${r.note}` : ''}` });
      } else if (r.kind !== 'line') {
        const what = r.kind === 'start' ? `started: ${JSON.stringify(r.argv)}` : r.kind === 'probe' ? `marker ${r.exists ? 'EXISTS' : 'absent'} when replying` : r.kind;
        this.transcript.record({ dir: 'note', channel: r.transport, note: `${who} ${at}: ${what}${r.note ? ` (${r.note})` : ''}` });
      }
    }
    if (run.stderr) this.transcript.record({ dir: 'stderr', channel: 'stdio', text: run.stderr, note: `adapter stderr (${label})` });
    if (run.stdout) this.transcript.record({ dir: 'stderr', channel: 'stdio', text: run.stdout, note: `adapter stdout (${label})` });
    this.transcript.record({
      dir: 'exit', channel: 'stdio',
      note: `run "${label}": adapter ${run.timedOut ? 'killed at the scenario deadline' : `exited with ${run.exit.signal ?? `status ${run.exit.code}`}`}`,
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.http?.close(), this.collector?.close()]);
    this.workspace.dispose();
  }
}

/**
 * The container init's one status line: the adapter's exit status as the shell gives it
 * (128 + n: killed by signal n). Calls `done` once the line is complete.
 */
function statusLine(stream: Readable | null, done: (status: { code: number | null; signal: string | null }) => void): void {
  if (!stream) return;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (c: string) => {
    text += c;
    if (text.length > 64) stream.destroy();
    const nl = text.indexOf('\n');
    if (nl < 0) return;
    const n = Number(text.slice(0, nl));
    if (!Number.isInteger(n)) return;
    const signal = n > 128 ? Object.entries(osConstants.signals).find(([, v]) => v === n - 128)?.[0] : undefined;
    done(signal ? { code: null, signal } : { code: n, signal: null });
  });
  stream.on('error', () => undefined);
}
