// The conformance test fixture: declared once, used by every suite. A check is written as
// `test(...check('base.unknown-method', async ({ backend, judge }) => { ... }))`. One
// Playwright project runs every target of a claim's role, so its workers serve them all:
// `test` registers each check once per target shape it applies to (`stdio:persistent`,
// `stdio:per_event`, `http`), in a describe titled by the shape that sets the `shape`
// option. The claim, its targets of the role and the run's folders are options each project
// sets in `use` (playwright.config.ts), whose grep collects only the (shape, check) pairs the
// plan wants (src/engine/plan.ts). The session launches the implementation lazily, and the
// fixture always tears it down and attaches the wire transcript.
import { test as base, type TestInfo } from '@playwright/test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applicableChecks, checkSpec, type CheckSpec } from '../../src/checks/catalogue.js';
import type { ResolvedClaim } from '../../src/claims/load.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { shapeParts, TARGET_SHAPES, targetName, targetShape, type Target } from '../../src/results/model.js';
import { LaunchError } from '../../drivers/processes.js';
import { ANNOTATION, ATTACHMENT, LAUNCH_FAILURE_PREFIX, type AnnotatedStatus } from '../../src/results/annotations.js';
import type { Evidence } from '../../src/results/model.js';
import { checkTitle } from '../../src/results/check-title.js';
import { Transcript } from '../../drivers/transcript.js';
import { BackendSession } from './backend-session.js';
import { useContainment, type ContainmentState } from '../../drivers/containment.js';
import { checkWorkspace, type RunFolders } from '../../src/engine/workspace.js';
import { extraLaunchesMs } from '../../src/timing.js';
import { HarnessSession } from './harness-session.js';
import { SharedRuns } from '../../drivers/adapter-runs.js';
import type { ObservedLog } from '../../src/results/observed.js';

/** A check that did not hold: the message says what was sent, what came back and what was expected. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
  constructor(message: string) {
    super(message);
    // Point at the check (the spec line that judged), not at the judging machinery.
    this.stack = (this.stack ?? '')
      .split('\n')
      .filter((line) => !/suites[\\/]support[\\/]|node:internal|node_modules/.test(line))
      .join('\n');
  }
}

export interface Judge {
  /** Record evidence shown with the result (what was sent, what came back, what was expected). */
  evidence(e: Evidence): void;
  /** Fail the check (throws). */
  fail(message: string, e?: Evidence): never;
  /** A SHOULD-level shortfall: the check passes with a warning. */
  warn(message: string, e?: Evidence): void;
  /** The check applies but cannot be exercised (e.g. no samples in the claim). */
  notApplicable(reason: string): never;
  /** The check could not judge (e.g. silence, when the follow-up got no reply): never a failure. */
  incomplete(reason: string, e?: Evidence): never;
  /** A note shown for a passed check. */
  note(message: string): void;
}

/** What each project sets in `use` (playwright.config.ts), and the shape each test's describe sets. */
export interface SuiteOptions {
  claim: ResolvedClaim;
  /**
   * The snapshot the claim is judged by (`claim.snapshot`, set beside it in
   * playwright.config.ts): every wire validation in the suites passes it to `validate`.
   */
  snapshot: SnapshotId;
  /** The claim's targets of the project's role. */
  targets: Target[];
  /** The shape of the test's target (`targetShape`), set by the describe `test` registers it in. */
  shape: string;
  /** The run's folders and how it contains implementations (decided once, by the CLI). */
  runFolders: RunFolders & { containment: ContainmentState };
  /**
   * Per target shape, the checks --expected-failures lists (src/results/expected-failures.ts,
   * listedChecks): marked expected failures for Playwright, which then keeps the worker that
   * failed them. The check's status is recorded as it happened either way.
   */
  listed?: Readonly<Record<string, readonly string[]>>;
}

interface Fixtures extends Omit<SuiteOptions, 'targets' | 'shape'> {
  /** The target this test judges: the project's target of the test's shape. */
  target: Target;
  /** One wire transcript per check, shared by whichever session the check uses. */
  transcript: Transcript;
  /** Backend role: the runner plays the harness. */
  backend: BackendSession;
  /** Harness role: the runner plays the backend and drives the adapter. */
  harness: HarnessSession;
  judge: Judge;
}

export interface CheckContext extends Fixtures {
  spec: CheckSpec;
}

/** What a session saw, for the claim's comparison after the run (src/results/over-claim.ts); redacted like evidence. */
async function attachObserved(info: TestInfo, log: ObservedLog, transcript: Transcript): Promise<void> {
  const observed = log.observed;
  if (observed)
    await info.attach(ATTACHMENT.observed, {
      body: transcript.redactText(JSON.stringify(observed)),
      contentType: 'application/json',
    });
}

const NO_PLAN = 'conformance suites run through `ahp-conformance run` (no run plan found)';

const fixtures = base.extend<Fixtures & Pick<SuiteOptions, 'targets' | 'shape'>, { harnessRuns: SharedRuns<string> }>({
  // Harness runs that checks of a target share (HarnessSession.sharedRun), kept per worker;
  // the worker serves every target of its project, so each run is keyed by its target.
  harnessRuns: [async ({}, use) => use(new SharedRuns<string>()), { scope: 'worker' }],
  // Options: a project without them is not a run of `ahp-conformance` (the fixture says so).
  claim: [undefined as unknown as ResolvedClaim, { option: true }],
  snapshot: [undefined as unknown as SnapshotId, { option: true }],
  targets: [undefined as unknown as Target[], { option: true }],
  shape: ['', { option: true }],
  listed: [undefined, { option: true }],
  runFolders: [undefined as unknown as SuiteOptions['runFolders'], { option: true }],
  target: async ({ targets, shape }, use) => {
    if (!targets) throw new Error(NO_PLAN);
    const target = targets.find((t) => targetShape(t) === shape);
    // The project's grep collects only shapes of its targets: anything else is the runner's defect.
    if (!target)
      throw new Error(`internal: a check of shape "${shape}" was collected in a project without that target`);
    await use(target);
  },
  transcript: async ({}, use, info) => {
    const transcript = new Transcript();
    try {
      await use(transcript);
    } finally {
      if (transcript.entries().length) {
        await info.attach(ATTACHMENT.transcript, { body: transcript.toJsonl(), contentType: 'application/jsonl' });
        await info.attach('transcript.txt', { body: transcript.toText(), contentType: 'text/plain' });
      }
    }
  },
  backend: async ({ claim, target, runFolders, transcript }, use, info) => {
    if (!claim || !target || !runFolders) throw new Error(NO_PLAN);
    useContainment(runFolders.containment);
    const session = new BackendSession(
      claim,
      target.transport,
      target.lifecycle,
      claim.timeoutMs,
      transcript,
      checkWorkspace(runFolders),
    );
    try {
      await session.prepare();
      await use(session);
    } finally {
      await session.close();
      await attachObserved(info, session.observed, transcript);
    }
  },
  harness: async ({ claim, target, runFolders, transcript, harnessRuns }, use, info) => {
    if (!claim || !target || !runFolders) throw new Error(NO_PLAN);
    useContainment(runFolders.containment);
    const session = new HarnessSession(
      claim,
      target.transport,
      target.lifecycle,
      claim.timeoutMs,
      transcript,
      checkWorkspace(runFolders),
      {
        runs: harnessRuns,
        // A repetition (--repeat) or a retry makes its own run: it is there to run again.
        scope: `${targetName(claim.implementation.name, target)}#${info.repeatEachIndex}.${info.retry}`,
        folder: join(runFolders.workDir, 'shared-runs'),
      },
    );
    try {
      await use(session);
    } finally {
      await session.close();
      await attachObserved(info, session.observed, transcript);
    }
  },
  // The judge redacts with the session's secrets: evidence and messages may quote replies.
  judge: async ({ transcript }, use, info) => {
    const redact = (text: string): string => transcript.redactText(text);
    let evidence: Evidence = {};
    const status = (s: AnnotatedStatus): void => {
      info.annotations.push({ type: ANNOTATION.status, description: s });
    };
    const message = (m: string): void => {
      const existing = info.annotations.find((a) => a.type === ANNOTATION.message);
      if (existing) existing.description = `${existing.description}\n${redact(m)}`;
      else info.annotations.push({ type: ANNOTATION.message, description: redact(m) });
    };
    const judge: Judge = {
      evidence: (e) => {
        evidence = { ...evidence, ...e };
      },
      fail: (m, e) => {
        if (e) evidence = { ...evidence, ...e };
        throw new CheckFailure(redact(m));
      },
      warn: (m, e) => {
        if (e) evidence = { ...evidence, ...e };
        status('warning');
        message(m);
      },
      notApplicable: (reason) => {
        status('not-applicable');
        message(reason);
        base.skip(true, reason);
        throw new Error('unreachable');
      },
      incomplete: (reason, e) => {
        if (e) evidence = { ...evidence, ...e };
        status('incomplete');
        message(reason);
        base.skip(true, redact(reason));
        throw new Error('unreachable');
      },
      note: (m) => message(m),
    };
    try {
      await use(judge);
    } finally {
      if (Object.keys(evidence).length) {
        let body: string;
        try {
          body = JSON.stringify(evidence, null, 2);
        } catch {
          // A value nested deeper than JSON.stringify goes: keep what can be shown.
          body = JSON.stringify(
            { expected: evidence.expected, note: 'evidence nested too deeply to quote; see the transcript' },
            null,
            2,
          );
        }
        await info.attach(ATTACHMENT.evidence, { body: redact(body), contentType: 'application/json' });
      }
    }
  },
});

type CheckBody = (f: Fixtures, info: TestInfo) => Promise<void>;

/** The session of the other role: a check that reaches for it is a defect of the suite. */
function noSession<T extends object>(role: 'backend' | 'harness'): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`internal: this check has no ${role} session (its catalogue row names another role)`);
    },
  });
}

/**
 * One conformance check, as the arguments of `test(...)`: a spec writes
 * `test(...check('base.unknown-method', async ({ backend, judge }) => { ... }))`, so the
 * test's location is the spec file (reports and reruns point there). Its title starts
 * with the check id, which each project's grep selects under a shape (playwright.config.ts).
 */
export function check(
  id: string,
  body: (f: CheckContext) => Promise<void>,
): [string, { annotation: { type: string; description: string } }, CheckBody] {
  const spec = checkSpec(id);
  type Context = Omit<CheckContext, 'spec'>;
  const judged = async (f: Context, info: TestInfo, late: () => BackendSession | undefined): Promise<void> => {
    const { claim, target, transcript, judge } = f;
    // One source of truth: the option is the claim's snapshot, set beside it (playwright.config.ts).
    if (f.snapshot !== claim.snapshot)
      throw new Error(`internal: the snapshot option ${String(f.snapshot)} is not the claim's ${claim.snapshot}`);
    // The plan collected this check for this target; anything else is a defect of the runner.
    if (!applicableChecks(target.role, target.transport, target.lifecycle, claim.profiles).some((c) => c.id === id)) {
      throw new Error(
        `internal: ${id} was collected for ${targetName(claim.implementation.name, target)}, where it does not apply`,
      );
    }
    if (f.listed?.[targetShape(target)]?.includes(id)) base.fail(true, 'on the --expected-failures list');
    // A check that starts the implementation many times gets time for each start.
    if (spec.launches && spec.launches > 1)
      info.setTimeout(info.timeout + extraLaunchesMs(spec.launches, claim.timeoutMs));
    try {
      await body({ ...f, spec });
      // A reply after timeoutMs was judged on its content; the claim's promise still did not hold.
      const backend = late();
      if (backend?.late.length) {
        const latencies = backend.late
          .map((l) => `${l.ms} ms${l.includesStart ? ' (with the process start-up)' : ''}`)
          .join(', ');
        judge.warn(
          `${backend.late.length} repl${backend.late.length === 1 ? 'y' : 'ies'} came after timeoutMs (${claim.timeoutMs} ms): latency ${latencies}; judged on content (patience ${backend.patience} ms)`,
        );
      }
    } catch (err) {
      if (err instanceof LaunchError) {
        // A launch error quotes the implementation's stderr, which may hold a secret.
        const message = transcript.redactText(err.message);
        info.annotations.push({ type: ANNOTATION.launchFailure, description: message });
        throw new CheckFailure(`${LAUNCH_FAILURE_PREFIX}${message}`);
      }
      throw err;
    }
  };
  // Playwright sets up only the fixtures a test function names: a check gets the session of
  // its own role, and no other (a session costs a workspace, and a harness one a collector).
  const run: CheckBody = spec.roles.includes('harness')
    ? async ({ claim, snapshot, target, runFolders, listed, transcript, harness, judge }, info) =>
        judged(
          { claim, snapshot, target, runFolders, listed, transcript, harness, judge, backend: noSession('backend') },
          info,
          () => undefined,
        )
    : async ({ claim, snapshot, target, runFolders, listed, transcript, backend, judge }, info) =>
        judged(
          { claim, snapshot, target, runFolders, listed, transcript, backend, judge, harness: noSession('harness') },
          info,
          () => backend,
        );
  return [checkTitle(id, spec.title), { annotation: { type: ANNOTATION.check, description: id } }, run];
}

type CheckDetails = ReturnType<typeof check>[1];
type Location = { file: string; line: number; column: number };

/**
 * Playwright records where `test()` and `test.describe()` were called as the test's
 * location (its --list, its HTML report); called from here, every check would sit in this
 * file. Its test type registers with a location given, which we give as the spec's. Not a
 * public interface: without it (another Playwright) the public calls register the same tests,
 * located here.
 */
interface Registrar {
  _createTest(type: 'default', location: Location, title: string, details: CheckDetails, body: CheckBody): void;
  _describe(type: 'default', location: Location, title: string, body: () => void): void;
}
const TEST_TYPE = Object.getOwnPropertySymbols(fixtures).find((s) => s.description === 'testType');
const registrar = ((TEST_TYPE && (fixtures as unknown as Record<symbol, unknown>)[TEST_TYPE]) ?? undefined) as
  Partial<Registrar> | undefined;
const located =
  typeof registrar?._createTest === 'function' && typeof registrar._describe === 'function'
    ? (registrar as Registrar)
    : undefined;

/** Where the spec called `fn`: the frame right above it. */
function callerOf(fn: (...args: never[]) => unknown): Location | undefined {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  const holder: { stack?: unknown } = {};
  let frames: unknown;
  try {
    Error.prepareStackTrace = (_e, frames) => frames;
    Error.stackTraceLimit = 1;
    Error.captureStackTrace(holder, fn);
    // Formatted when first read: read while our formatter is in place.
    frames = holder.stack;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
  const frame = Array.isArray(frames) ? (frames[0] as NodeJS.CallSite | undefined) : undefined;
  if (!frame) return undefined;
  // Playwright's formatter maps a compiled spec's frame to its source, as it locates its own
  // tests (`suites/backend/base.spec.ts:29:1`): the frame as it would print it.
  const text = typeof prepare === 'function' ? String(prepare(new Error(), [frame])) : '';
  const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(text);
  const name = m?.[1] ?? frame.getFileName();
  if (!name) return undefined;
  return {
    file: name.startsWith('file://') ? fileURLToPath(name) : name,
    line: m ? Number(m[2]) : (frame.getLineNumber() ?? 0),
    column: m ? Number(m[3]) : (frame.getColumnNumber() ?? 0),
  };
}

/** The shapes a check applies to, as its catalogue row says (the plan decides which run). */
const shapesOf = (spec: CheckSpec): string[] =>
  TARGET_SHAPES.filter((shape) => {
    const { transport, lifecycle } = shapeParts(shape)!;
    return spec.transports.includes(transport) && (lifecycle === undefined || spec.lifecycles.includes(lifecycle));
  });

/** The shape whose describe is registering a spec's `test.describe` right now, if any. */
let registering: string | undefined;

/** A describe titled by the shape, setting it; right under the spec's file (the grep anchors it there). */
function shapeDescribe(shape: string, location: Location | undefined, body: () => void): void {
  const inner = (): void => {
    fixtures.use({ shape });
    body();
  };
  if (located && location) located._describe('default', location, shape, inner);
  else fixtures.describe(shape, inner);
}

/** `test(...check(id, body))`: the check once per shape it applies to. */
function registerCheck(title: string, details: CheckDetails, body: CheckBody): void {
  if (details?.annotation?.type !== ANNOTATION.check)
    throw new Error('a conformance suite registers checks only: test(...check(id, body)) (suites/support/check.ts)');
  const location = callerOf(registerCheck);
  const one = (shape: string): void => {
    const shaped: CheckDetails = {
      annotation: [details.annotation, { type: ANNOTATION.target, description: shape }],
    } as unknown as CheckDetails;
    if (located && location) located._createTest('default', location, title, shaped, body);
    else fixtures(title, shaped, body);
  };
  const shapes = shapesOf(checkSpec(details.annotation.description));
  if (registering !== undefined) {
    if (shapes.includes(registering)) one(registering);
    return;
  }
  for (const shape of shapes) shapeDescribe(shape, location, () => one(shape));
}

/**
 * `test.describe(title, body)` of a spec: its group once per shape, inside that shape's
 * describe, so a group that runs in order in one worker (`describe.configure({ mode:
 * 'default' })`) does so per target. Nested, or with other arguments, it is Playwright's.
 */
function describeChecks(...args: unknown[]): void {
  const [title, body] = args;
  if (registering !== undefined || typeof title !== 'string' || typeof body !== 'function' || args.length !== 2) {
    (fixtures.describe as (...a: unknown[]) => void)(...args);
    return;
  }
  const group = body as () => void;
  const location = callerOf(describeChecks);
  for (const shape of TARGET_SHAPES)
    shapeDescribe(shape, location, () => {
      registering = shape;
      try {
        if (located && location) located._describe('default', location, title, group);
        else fixtures.describe(title, group);
      } finally {
        registering = undefined;
      }
    });
}

/**
 * The suites' `test`: `test(...check(id, body))` registers the check per shape; its members
 * (`test.describe`, `test.skip`, ...) are Playwright's, `test.describe` registering per shape.
 */
const test = Object.assign(registerCheck, fixtures, {
  describe: Object.assign(describeChecks, fixtures.describe),
}) as unknown as typeof fixtures;

export { test };
