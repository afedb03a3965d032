// The slow-reverse-refusals mode (faults.ts): a correct backend that answers one kind of
// request slowly and out of order. JSON-RPC lets replies come in any order; AHP asks only
// that each comes within the claim's timeoutMs. The refusals silent-on-errors leaves
// unanswered are held instead, and released newest first; every other reply (a fence
// among them) goes out at once, overtaking them.

/**
 * How long a refusal is held: a quarter of the claim's timeoutMs. The runner's deadline runs
 * from its write, ours from a later moment (our clock starts after the exec; a message waits
 * in the pipe, a timer fires late), and what a loaded machine adds there must not carry a
 * reply past timeoutMs: the check would get a latency warning (a correct reply is judged on
 * content, but the claim's promise would not hold), and past the fence's margin (250 ms plus
 * four times its turnaround, src/timing.ts) even fail. A quarter leaves three quarters of the
 * deadline for those delays, close to what a backend answering at once has, so the mode fails
 * nothing and warns of nothing where the conforming reference does not.
 */
export function holdMs(timeoutMs: number): number {
  return Math.floor(timeoutMs / 4);
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
