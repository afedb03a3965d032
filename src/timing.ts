// The timing model: every wait the runner makes, derived from the claim's `timeoutMs`
// (the deadline of one exchange). One module, so that no part of the runner defines a
// timeout of its own; docs/claims.md and docs/harness-adapter.md describe it.
//
// The constants are allowances for the runner's own work and for starting processes on a
// loaded machine; they only ever lengthen a wait, never decide a verdict by themselves.

/**
 * Patience: how long the runner keeps waiting for a reply after `timeoutMs` has passed
 * before it fails a MUST. `timeoutMs` is the claim's promise, not a protocol rule the
 * runner can judge on a loaded machine: a reply after it is judged on its content, and the
 * check gets a warning with the measured latency.
 */
export function patienceMs(timeoutMs: number): number {
  return 5 * timeoutMs;
}

/**
 * After a fence is answered (drivers/channel.ts, Fence), how long a request that got no reply
 * by its deadline may still take: a floor for scheduling jitter, plus four times the fence's
 * own turnaround, so a loaded machine (which slows the fence too) or an implementation that
 * answers concurrently, out of order, is given time in its own measure. The request had its
 * whole deadline (timeoutMs) before the fence was sent.
 *
 * `startUp`: the request was the first of a process just started. Its deadline ran while the
 * process was starting, which is the machine's time, not the implementation's: the process
 * may have read the request only just before the fence (which it read after it), so the
 * request gets its whole deadline again from the fence's answer.
 */
export function fenceMarginMs(fenceTurnaroundMs: number, startUp?: { timeoutMs: number }): number {
  return Math.round(250 + 4 * Math.max(0, fenceTurnaroundMs) + (startUp?.timeoutMs ?? 0));
}

/** Starting one implementation process (interpreter start-up, imports) on a loaded machine. */
export const START_ALLOWANCE_MS = 5_000;

/** Playwright's time limit for one check of claims whose longest exchange deadline is `timeoutMs`. */
export function checkTimeLimitMs(timeoutMs: number): number {
  // A check makes a few exchanges, each bounded by the deadline (one of them, failing, by
  // the patience), and starts a few processes.
  return 30_000 + 10 * timeoutMs + 2 * patienceMs(timeoutMs);
}

/** Extra time for a check that starts the implementation `launches` times (CheckSpec.launches). */
export function extraLaunchesMs(launches: number, timeoutMs: number): number {
  return Math.max(0, launches - 1) * (START_ALLOWANCE_MS + timeoutMs);
}

/**
 * How long one adapter run may take before the runner kills it: the adapter's own start,
 * then per tool step (plus session start and end) up to three exchanges (a retry, a late
 * reply) and a backend start.
 */
export function adapterRunDeadlineMs(timeoutMs: number, toolSteps: number): number {
  return 3 * START_ALLOWANCE_MS + (toolSteps + 2) * (3 * timeoutMs + 3_000);
}

/**
 * After the adapter exits: how long its stdio backends may still take to report (read
 * their last line, see end of input, exit) before the container is torn down.
 */
export function backendSettleMs(timeoutMs: number): number {
  return Math.max(3_000, timeoutMs);
}

/** A scripted backend's own lifetime cap: it never outlives a run, even if nobody kills it. */
export function scriptedBackendLifetimeMs(timeoutMs: number, toolSteps: number): number {
  return adapterRunDeadlineMs(timeoutMs, toolSteps) + backendSettleMs(timeoutMs);
}

/** per_event scripted backend: how long it waits for end of input after its reply. */
export function perEventEofWaitMs(timeoutMs: number): number {
  return Math.max(2_000, timeoutMs);
}

/** A collector acknowledgement the scripted backend waits for before acting (the runner is local). */
export function collectorAckWaitMs(timeoutMs: number): number {
  return Math.max(2_000, timeoutMs);
}

// ---------------------------------------------------------------- harness role: what the
// runner writes into registrations and how it judges a harness's timing. A harness's
// timing is judged against latencies measured in the same run, never against wall-clock
// margins alone, so a loaded machine slows both sides of a comparison alike.

/**
 * The `timeoutMs` the runner writes into an intercept subscription of a stdio hook: the
 * wanted deadline plus twice the scripted backend's measured start-up (a per_event
 * harness's deadline includes starting the process, and so does a persistent backend's
 * first exchange). HTTP hooks (a server in the runner) get the wanted deadline.
 */
export function registrationTimeoutMs(wantedMs: number, startupMs: number | undefined): number {
  return Math.round(wantedMs + 2 * Math.max(0, startupMs ?? 0));
}

/** The deadline ti.deadline writes (before start-up scaling): short, so a harness that waits 4x shows. */
export const DEADLINE_PROBE_MS = 1_000;

/** How late the scripted backend's deny comes in ti.deadline (scenario b), after the registered deadline's start. */
export function lateReplyDelayMs(registeredMs: number): number {
  return Math.round(1.5 * registeredMs);
}

/**
 * How much later than expected a harness's next observable act may come: a floor for
 * timer and scheduling jitter plus twice the slowest of its own normal turnarounds
 * (reply received -> its next act) measured in the same run.
 */
export function actToleranceMs(turnaroundsMs: readonly number[]): number {
  return Math.round(250 + 2 * Math.max(0, ...turnaroundsMs));
}

/** How long a scripted observer hangs in lo.observer-isolation (longer than any tolerance it is judged by). */
export function observerHangMs(timeoutMs: number): number {
  return Math.max(4_000, 2 * timeoutMs);
}

/**
 * per_event scripted backend: how long it waits for end of input after the one message,
 * before it answers (a conforming harness closes stdin right after writing the line).
 * A fraction of the hook's deadline, so the answer still comes in time and a harness that
 * closes stdin only after the reply is seen (a `no-eof` record) without failing its calls.
 */
export function perEventEofFirstWaitMs(timeoutMs: number): number {
  return Math.max(100, Math.round(timeoutMs / 4));
}

/** How long a scripted interceptor holds a request it never answers (ti.deadline): past 4 x the deadline. */
export function noReplyHoldMs(registeredMs: number): number {
  return 6 * registeredMs;
}

/** How late the scripted reply of ti.failure-policy's timeout class comes: well past the deadline. */
export function timeoutClassDelayMs(registeredMs: number): number {
  return 3 * registeredMs;
}

/**
 * Adapter runs one worker keeps going at once: a check's independent scenarios run
 * concurrently, because they mostly wait (deadlines, scripted delays). What they cost is
 * process start-ups, CPU the cores share with the other workers. Four covers the waiting
 * runs of any check (ti.deadline has three) while a burst of short runs (the invalid
 * registrations of base.registration-validated) starts only a few processes at a time, so
 * the start-ups that stdio deadlines are scaled by stay near what the session measured.
 */
export const ADAPTER_RUNS_AT_ONCE = 4;
