// The slow-reverse-refusals mode (faults.ts): a correct backend that answers one kind of
// request slowly and out of order. JSON-RPC lets replies come in any order; AHP asks only
// that each comes within the claim's timeoutMs. The refusals silent-on-errors leaves
// unanswered are held instead, and released newest first; every other reply (a fence
// among them) goes out at once, overtaking them.

/**
 * How long a refusal is held: half the claim's timeoutMs. The runner's deadline runs from
 * its write, ours from a later moment (our clock starts after the exec, a message waits in
 * the pipe or the event loop), and the runner sends a fence only after the whole timeoutMs,
 * then still allows 250 ms plus four times the fence's turnaround (src/timing.ts). The other
 * half is room for those delays on a loaded machine, where timers and pipes lag by hundreds
 * of ms, not by a second: the replies stay within the claim, and the mode fails nothing.
 */
export function holdMs(timeoutMs: number): number {
  return Math.floor(timeoutMs / 2);
}

/** Replies held until a deadline each, released together, newest first, at the first deadline. */
export class ReplyHold<T> {
  private held: { reply: T; due: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires. */
  private firesAt = Infinity;

  constructor(private readonly release: (reply: T) => void) {}

  /** Hold `reply` until `due` (a Date.now() time) at the latest. */
  add(reply: T, due: number): void {
    this.held.push({ reply, due });
    this.arm();
  }

  /** Release everything held now, newest first (end of input: nothing may stay unanswered). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Infinity;
    const out = this.held.reverse();
    this.held = [];
    for (const h of out) this.release(h.reply);
  }

  get size(): number {
    return this.held.length;
  }

  /** All go out at the earliest deadline, so each is in time. */
  private arm(): void {
    const first = Math.min(...this.held.map((h) => h.due));
    if (first >= this.firesAt) return;
    clearTimeout(this.timer);
    this.firesAt = first;
    this.timer = setTimeout(() => this.flush(), Math.max(0, first - Date.now()));
  }
}
