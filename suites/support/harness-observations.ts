// Questions the harness-role checks ask of one adapter run: which frames a hook got,
// which tool step a frame belongs to, whether the sentinel ran and with what input. The
// checks themselves stay short: scenario, then judgement with evidence.
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import { isObject } from '../../src/protocol/json.js';
import { applyModifyResponse, EditRejected, permissiveEditContext } from '../../src/protocol/edit.js';
import type { Judge } from './check.js';
import { hookId, type HarnessRun, type Outcome } from './harness-session.js';

type Obj = Record<string, unknown>;

export const INTERCEPT = 'hooks/intercept';
export const OBSERVE = 'hooks/observe';

/** Frames (received messages) of a run, optionally of one hook and one method, in arrival order. */
export function frames(run: HarnessRun, filter: { hook?: string; method?: string } = {}): WireRecord[] {
  return run.records.filter(
    (r) =>
      r.kind === 'frame' &&
      (filter.hook === undefined || r.hook === filter.hook) &&
      (filter.method === undefined || r.method === filter.method),
  );
}

export const messageOf = (r: WireRecord): Obj | undefined => (isObject(r.message) ? r.message : undefined);
export const paramsOf = (r: WireRecord): Obj | undefined => {
  const p = messageOf(r)?.params;
  return isObject(p) ? p : undefined;
};
export const eventOf = (r: WireRecord): Obj | undefined => {
  const e = paramsOf(r)?.event;
  return isObject(e) ? e : undefined;
};
export const eventType = (r: WireRecord): string | undefined => {
  const t = eventOf(r)?.type;
  return typeof t === 'string' ? t : undefined;
};

/** The tool input of a frame's event (parsed if a harness sent it as a JSON string). */
export function toolInputOf(r: WireRecord): unknown {
  const t = eventOf(r)?.tool;
  if (!isObject(t)) return undefined;
  if (typeof t.input === 'string') {
    try {
      return JSON.parse(t.input) as unknown;
    } catch {
      return t.input;
    }
  }
  return t.input;
}

/** The scenario step a frame belongs to (the sentinel input carries `probe: <step id>`). */
export function stepOf(r: WireRecord): string | undefined {
  const input = toolInputOf(r);
  return isObject(input) && typeof input.probe === 'string' ? input.probe : undefined;
}

export function callIdOf(r: WireRecord): unknown {
  const e = eventOf(r);
  const call = e?.call;
  if (isObject(call)) return call.id;
  const t = e?.tool;
  return isObject(t) ? t.callId : undefined;
}

/** The hooks/intercept frames a hook received, optionally for one step. */
export const intercepts = (run: HarnessRun, hook: string, step?: string): WireRecord[] =>
  frames(run, { hook, method: INTERCEPT }).filter((f) => step === undefined || stepOf(f) === step);

/** What our applyModifyResponse makes of the input, or undefined if it rejects the effects. */
export function expectedInput(input: Obj, effects: unknown[]): Obj | undefined {
  try {
    return applyModifyResponse({ input }, effects, permissiveEditContext({ event: 'tool.before', current: { input } }))
      .input as Obj;
  } catch (e) {
    if (e instanceof EditRejected) return undefined;
    throw e;
  }
}

/** Does the harness advertise modify of the input with this operation? (capability gating) */
export function advertisesModify(run: HarnessRun, hook: string, operation: 'replace' | 'merge'): boolean {
  const caps = paramsOf(intercepts(run, hook)[0] ?? ({} as never))?.capabilities;
  if (!isObject(caps) || !Array.isArray(caps.effects) || !caps.effects.includes('modify')) return false;
  const input = isObject(caps.modify) ? caps.modify.input : undefined;
  return !isObject(input) || input[operation] !== false;
}

export const ran = (run: HarnessRun, step: string): boolean => run.markers[step] !== undefined;

export function reportedOutcome(run: HarnessRun, step: string): Outcome | undefined {
  return run.report?.steps?.find((s) => s.id === step)?.outcome;
}

/** A compact account of a run for evidence: exit, report, markers, what each hook received. */
export function summary(run: HarnessRun): Obj {
  const received: Record<string, string[]> = {};
  for (const f of frames(run)) {
    const label = `${f.method ?? '(not a message)'}${eventType(f) ? ` ${eventType(f)}` : ''}${stepOf(f) ? ` [${stepOf(f)}]` : ''}`;
    (received[f.hook] ??= []).push(label);
  }
  return {
    run: run.label,
    adapter: run.timedOut
      ? 'killed at the scenario deadline'
      : run.exit.signal
        ? `ended by ${run.exit.signal}`
        : `exit status ${run.exit.code}`,
    registration: run.report?.registration ?? run.reportProblem,
    outcomes: Object.fromEntries((run.report?.steps ?? []).map((s) => [s.id, s.outcome])),
    executed: Object.fromEntries(
      Object.entries(run.markers).map(([k, m]) => [
        k,
        m === undefined ? 'not run' : m.invalid !== undefined ? `invalid marker: ${m.invalid}` : m.executedInput,
      ]),
    ),
    ...(Object.keys(run.effective ?? {}).length
      ? {
          delivered: Object.fromEntries(
            Object.entries(run.effective).map(([k, m]) => [
              k,
              m === undefined ? 'nothing' : m.invalid !== undefined ? `invalid marker: ${m.invalid}` : m.effective,
            ]),
          ),
        }
      : {}),
    received,
  };
}

/**
 * The preconditions every scenario with a valid registration shares: the harness accepted
 * it, finished in time, and can run the steps. Otherwise the check fails (a valid
 * registration must be usable) or is not applicable (the adapter says it cannot run a step).
 */
export function requireUsable(judge: Judge, run: HarnessRun, steps: readonly string[] = []): void {
  if (run.timedOut)
    judge.fail(`the adapter did not finish run "${run.label}" before the scenario deadline`, {
      received: summary(run),
    });
  const unsupported = steps.filter((s) => reportedOutcome(run, s) === 'unsupported');
  if (unsupported.length) judge.notApplicable(`the adapter reports steps ${unsupported.join(', ')} as unsupported`);
  const nothingHappened = frames(run).length === 0 && Object.values(run.markers).every((m) => m === undefined);
  if (run.report?.registration === 'rejected') {
    judge.fail(
      `the harness refused a valid registration in run "${run.label}": ${run.report.rejectionReason ?? '(no reason given)'}`,
      {
        sent: { registration: run.registration },
        received: summary(run),
        expected: 'a valid registration is accepted and the scenario runs',
      },
    );
  }
  if (run.exit.code !== 0 && nothingHappened) {
    judge.fail(
      `the adapter ended with ${run.exit.signal ?? `exit status ${run.exit.code}`} in run "${run.label}" without running the scenario${run.reportProblem ? ` (${run.reportProblem})` : ''}; its stderr is in the transcript`,
      {
        sent: { registration: run.registration },
        received: summary(run),
        expected: 'a valid registration is accepted and the scenario runs',
      },
    );
  }
}

export { hookId };

// ---------------------------------------------------------------- timing and delivery
// A harness's timing is judged against its own latencies measured in the same run
// (src/timing.ts actToleranceMs), never against wall-clock margins alone.

/** The first hooks/intercept a hook received for a scenario step. */
export function requestOf(run: HarnessRun, hook: string, step: string): WireRecord | undefined {
  return run.records.find((r) => r.kind === 'frame' && r.hook === hook && r.method === INTERCEPT && stepOf(r) === step);
}

/** The first intercept reply a hook's scripted backend sent for a scenario step. */
export function replyOf(run: HarnessRun, hook: string, step: string): WireRecord | undefined {
  return run.records.find((r) => r.kind === 'reply' && r.hook === hook && r.step === step && r.method === INTERCEPT);
}

/** The first hooks/observe of an event type for a step that a hook received. */
export function observationOf(run: HarnessRun, hook: string, type: string, step: string): WireRecord | undefined {
  return run.records.find(
    (r) => r.kind === 'frame' && r.hook === hook && r.method === OBSERVE && eventType(r) === type && stepOf(r) === step,
  );
}

/** ms from `from` to `to`, when both happened. */
export function between(
  from: { t: number } | number | undefined,
  to: { t: number } | number | undefined,
): number | undefined {
  const a = typeof from === 'number' ? from : from?.t;
  const b = typeof to === 'number' ? to : to?.t;
  return a === undefined || b === undefined ? undefined : b - a;
}

/** What the adapter reports for a step, in words (for messages that name a cause only after checking it). */
export function reportedAs(run: HarnessRun, step: string): string {
  const s = run.report?.steps?.find((x) => x.id === step);
  if (!s) return `the adapter reports nothing for "${step}"${run.reportProblem ? ` (${run.reportProblem})` : ''}`;
  return `the adapter reports "${s.outcome}"${s.reason ? ` (${JSON.stringify(s.reason.slice(0, 120))})` : ''}`;
}

/**
 * A message for a call that did not run, naming `cause` only when the adapter's report
 * agrees (a backend denial); otherwise what the runner saw and what the report says.
 */
export function notRunBecause(run: HarnessRun, step: string, cause: string): string {
  return reportedOutcome(run, step) === 'denied-by-backend'
    ? `${cause} (${reportedAs(run, step)})`
    : `the "${step}" call did not run, and ${reportedAs(run, step)}`;
}

/**
 * Soft assertions for multi-phase checks: every failing phase is collected with its own
 * evidence, and the check fails once, listing all of them.
 */
export class Phases {
  private readonly failed: { phase: string; message: string; evidence?: unknown }[] = [];

  fail(phase: string, message: string, evidence?: unknown): void {
    this.failed.push({ phase, message, ...(evidence !== undefined ? { evidence } : {}) });
  }

  get count(): number {
    return this.failed.length;
  }

  /** Fails the check with every failing phase (no-op when none failed). */
  judge(judge: Judge, expected: string, received?: unknown): void {
    if (this.failed.length === 0) return;
    const lines = this.failed.map((f) => `- ${f.phase}: ${f.message}`);
    judge.fail(`${this.failed.length} failing phase${this.failed.length === 1 ? '' : 's'}:\n${lines.join('\n')}`, {
      received: { phases: this.failed, ...(received !== undefined ? { runs: received } : {}) },
      expected,
    });
  }
}
