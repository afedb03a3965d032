// The conformance test fixture: declared once, used by every suite. A check is written as
// `check('base.unknown-method', async ({ backend, judge }) => { ... })`. The claim, the
// target and the run's folders are options each project sets in `use` (playwright.config.ts);
// a project collects only the checks that apply to its target (src/engine/plan.ts). The
// session launches the implementation lazily, and the fixture always tears it down and
// attaches the wire transcript.
import { test as base, type TestInfo } from '@playwright/test';
import { applicableChecks, checkSpec, type CheckSpec } from '../../src/checks/catalogue.js';
import type { ResolvedClaim } from '../../src/claims/load.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import type { Target } from '../../src/results/model.js';
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

/** What each project sets in `use` (playwright.config.ts). */
export interface SuiteOptions {
  claim: ResolvedClaim;
  /**
   * The snapshot the claim is judged by (`claim.snapshot`, set beside it in
   * playwright.config.ts): every wire validation in the suites passes it to `validate`.
   */
  snapshot: SnapshotId;
  target: Target;
  /** The run's folders and how it contains implementations (decided once, by the CLI). */
  runFolders: RunFolders & { containment: ContainmentState };
}

interface Fixtures extends SuiteOptions {
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

const test = base.extend<Fixtures, { harnessRuns: SharedRuns<string> }>({
  // Harness runs that checks of a target share (HarnessSession.sharedRun), kept per worker.
  harnessRuns: [async ({}, use) => use(new SharedRuns<string>()), { scope: 'worker' }],
  // Options: a project without them is not a run of `ahp-conformance` (the fixture says so).
  claim: [undefined as unknown as ResolvedClaim, { option: true }],
  snapshot: [undefined as unknown as SnapshotId, { option: true }],
  target: [undefined as unknown as Target, { option: true }],
  runFolders: [undefined as unknown as SuiteOptions['runFolders'], { option: true }],
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
      { runs: harnessRuns, scope: info.project.name },
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
 * with the check id, which is what each project's grep selects (playwright.config.ts).
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
      throw new Error(`internal: ${id} was collected for ${info.project.name}, where it does not apply`);
    }
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
    ? async ({ claim, snapshot, target, runFolders, transcript, harness, judge }, info) =>
        judged(
          { claim, snapshot, target, runFolders, transcript, harness, judge, backend: noSession('backend') },
          info,
          () => undefined,
        )
    : async ({ claim, snapshot, target, runFolders, transcript, backend, judge }, info) =>
        judged(
          { claim, snapshot, target, runFolders, transcript, backend, judge, harness: noSession('harness') },
          info,
          () => backend,
        );
  return [checkTitle(id, spec.title), { annotation: { type: ANNOTATION.check, description: id } }, run];
}

export { test };
