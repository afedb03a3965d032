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

/** How long another check waits for a shared adapter run before running it itself. */
export function sharedRunWaitMs(timeoutMs: number, steps: number): number {
  return 3 * START_ALLOWANCE_MS + steps * (3 * timeoutMs + 3_000);
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
