// One intercept's deadline (AHP-FAIL-002). It starts when the request leaves the harness
// (the transport calls start()), not while it waits in a persistent backend's queue, so
// every backend gets its full timeoutMs; a retry runs on the same, already started clock.
export class Deadline {
  private at: number | undefined;

  constructor(readonly ms: number) {}

  /** Idempotent: the first call fixes the clock. */
  start(): void {
    this.at ??= Date.now() + this.ms;
  }

  get started(): boolean {
    return this.at !== undefined;
  }

  /** Milliseconds left (the whole budget before start). */
  remaining(): number {
    return this.at === undefined ? this.ms : Math.max(0, this.at - Date.now());
  }
}
