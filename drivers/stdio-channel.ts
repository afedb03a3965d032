// The two stdio channels: one long-lived process for every message (persistent), or a new
// process per message that gets the message, end of input, and must exit (per_event).
import {
  replyId,
  unansweredBehindFence,
  type Channel,
  type Fence,
  type ParseJson,
  type PersistentReply,
  type Reply,
  type ReplyTiming,
  type Silence,
  type SilenceProbe,
  type StdioNoReply,
  type WireMessage,
} from './channel.js';
import { StdioProcess, type StdioLaunch } from './stdio.js';
import { readPerEvent, readReply } from './stdio-framing.js';
import type { Transcript } from './transcript.js';

export interface StdioChannelOptions {
  /** How to start the process (called for every process the channel starts). */
  launch: () => StdioLaunch;
  transcript: Transcript;
  timing: ReplyTiming;
  parse: ParseJson;
  /** A new fence for a request that got no reply by its deadline (persistent only; see Fence). */
  fence?: () => Fence;
}

export class PersistentStdioChannel implements Channel {
  readonly transport = 'stdio';
  private stdio?: StdioProcess;
  /** The process has not answered yet: its first reply's latency includes its start-up. */
  private fresh = false;
  /** How often the process had ended and was started again (judged by the lifecycle's own check). */
  restarts = 0;
  /** Ids of requests (and fences) given up on: a reply carrying one later is set aside. */
  private readonly abandoned = new Set<string>();

  constructor(private readonly o: StdioChannelOptions) {}

  /**
   * The process, started on first use. If it has ended, a new one is started (and counted)
   * so that one lifecycle fault does not cost every later exchange its answer.
   */
  async process(): Promise<StdioProcess> {
    if (this.stdio?.exited()) {
      await this.stdio.stop();
      this.stdio = undefined;
      this.restarts++;
      this.o.transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: 'the persistent process had exited; a new one is started for the next exchange',
      });
    }
    if (!this.stdio) {
      this.stdio = StdioProcess.start(this.o.launch());
      this.fresh = true;
    }
    return this.stdio;
  }

  /** Write one message (and its note) to the process, newline-terminated. */
  send(p: StdioProcess, m: WireMessage): void {
    if (m.note) this.o.transcript.record({ dir: 'note', channel: 'stdio', note: m.note });
    p.send(`${m.text}\n`);
  }

  /** The next reply within `waitMs`, setting aside replies to requests given up on earlier. */
  private async read(p: StdioProcess, waitMs: number): Promise<PersistentReply | StdioNoReply> {
    const until = Date.now() + waitMs;
    for (;;) {
      const r = await readReply(
        p,
        this.o.timing.timeoutMs,
        this.o.transcript,
        this.o.parse,
        this.o.timing.patienceMs,
        Math.max(1, until - Date.now()),
      );
      const id = r.kind === 'reply' ? replyId(r.value) : undefined;
      if (id === undefined || !this.abandoned.has(JSON.stringify(id))) return r;
      this.o.transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: `a reply to request ${JSON.stringify(id)}, which was given up on earlier: set aside`,
      });
    }
  }

  /**
   * The reply to `m`, sent just now: awaited until its deadline (timeoutMs); then, with a
   * fence, judged by causality (see Fence), else with patience.
   */
  async next(p: StdioProcess, m?: WireMessage): Promise<Reply> {
    const includesStart = this.fresh;
    this.fresh = false;
    const { timeoutMs, patienceMs } = this.o.timing;
    const start = Date.now();
    const timed = (r: Reply): Reply => this.o.timing.timed(r, includesStart);
    if (!this.o.fence) return timed(await this.read(p, patienceMs));
    const first = await this.read(p, timeoutMs);
    if (first.kind === 'reply' || !first.timedOut) return timed(first);
    const fence = this.o.fence().message;
    this.o.transcript.record({
      dir: 'note',
      channel: 'stdio',
      note: `no reply within ${timeoutMs} ms (timeoutMs): a fence request (${JSON.stringify(fence.id)}) follows; once it is answered, the request counts as unanswered`,
    });
    p.send(`${fence.text}\n`);
    const fenceSent = Date.now();
    const isFence = (r: Reply): boolean => r.kind === 'reply' && replyId(r.value) === fence.id;
    // The request's reply, framed with what came before it in the first wait too.
    const late = (r: PersistentReply): Reply =>
      timed({
        ...r,
        latencyMs: r.latencyMs + (fenceSent - start),
        framing: {
          ...r.framing,
          skipped: [...first.skipped, ...r.framing.skipped],
          oversize: first.oversize + r.framing.oversize,
        },
      });
    const giveUp = (id: string | number | undefined): void => {
      if (id !== undefined) this.abandoned.add(JSON.stringify(id));
    };
    for (;;) {
      const r = await this.read(p, Math.max(1, start + patienceMs - Date.now()));
      if (r.kind === 'none') {
        giveUp(fence.id);
        // The fence unanswered too: an implementation that answers nothing, judged with patience as before.
        return timed(
          r.timedOut ? { ...r, skipped: [...first.skipped, ...r.skipped], oversize: first.oversize + r.oversize } : r,
        );
      }
      if (!isFence(r)) {
        // The request's own reply, late: the fence's reply is read too, so it answers no later request.
        const after = await this.read(p, timeoutMs);
        if (!isFence(after)) giveUp(fence.id);
        return late(r);
      }
      const fenceMs = Date.now() - fenceSent;
      // A process just started may have read the request only just before the fence (src/timing.ts).
      const margin = this.o.timing.fenceMarginMs(fenceMs, includesStart ? { timeoutMs } : undefined);
      const after = await this.read(p, margin);
      if (after.kind === 'reply') return late(after);
      giveUp(m?.id);
      return timed({
        kind: 'none',
        transport: 'stdio',
        lifecycle: 'persistent',
        why: unansweredBehindFence(timeoutMs, fenceMs, margin),
        skipped: [...first.skipped, ...after.skipped],
        oversize: first.oversize + after.oversize,
        fenced: true,
      });
    }
  }

  async request(m: WireMessage): Promise<Reply> {
    // A request that reuses an id given up on (a retry, a duplicate delivery) claims its replies again.
    if (m.id !== undefined) this.abandoned.delete(JSON.stringify(m.id));
    return this.exchange(async (p) => {
      this.send(p, m);
      return this.next(p, m);
    });
  }

  /**
   * Run one exchange. If the process ended instead of answering, the exchange is repeated
   * once on a new process (counted in `restarts`): the lifecycle is judged on its own, the
   * other checks judge the answer.
   */
  private async exchange(run: (p: StdioProcess) => Promise<Reply>): Promise<Reply> {
    const p = await this.process();
    const first = await run(p);
    if (first.kind === 'reply') return first;
    // Unanswered behind an answered fence: the process is alive, so no wait for an exit (causality).
    // Otherwise (patience out, stdout closed) a short look at whether it has just ended: the
    // exit is awaited where stdout closed (stdio-framing.ts), so this only catches a process
    // dying at that moment, and missing it only forgoes a retry.
    if (first.transport === 'stdio' && first.fenced) return first;
    if (!(p.exited() || (await p.waitExit(100)) !== 'timeout')) return first;
    this.o.transcript.record({
      dir: 'note',
      channel: 'stdio',
      note: 'the process ended without answering; the exchange is repeated once on a new process',
    });
    return run(await this.process());
  }

  /**
   * Silence is judged positively: the notification is followed by a request, and the next
   * reply must be that request's.
   */
  async notify(m: WireMessage, probe: SilenceProbe): Promise<Silence> {
    let used: StdioProcess | undefined;
    const next = await this.exchange(async (p) => {
      used = p;
      this.send(p, m);
      this.o.transcript.record({
        dir: 'note',
        channel: 'stdio',
        note: 'follow-up request: its reply must be the next reply',
      });
      p.send(`${probe.followUp.text}\n`);
      return this.next(p);
    });
    const p = used!;
    if (next.kind === 'none')
      return {
        silent: false,
        undetermined: true,
        reply: next,
        detail: `cannot judge silence: the follow-up request got no reply (${next.why})`,
      };
    if (probe.isFollowUp(next.value))
      return { silent: true, reply: next, detail: 'the next reply was the follow-up reply' };
    // Either a reply to the notification, or the follow-up's reply under a wrong id (another
    // check's concern): a second reply within timeoutMs tells them apart (no patience: the
    // usual case is that none comes). No fence ends this sooner: the follow-up's own deadline
    // is still running, and a backend may answer a fence before it (out of order).
    const second = await readReply(p, this.o.timing.timeoutMs, this.o.transcript, this.o.parse);
    if (second.kind === 'none')
      return {
        silent: true,
        reply: next,
        detail: 'one reply for the two messages: the follow-up reply (under another id)',
      };
    return {
      silent: false,
      got: next.raw,
      reply: next,
      detail: 'two replies came back for a notification and one request',
    };
  }

  async close(): Promise<void> {
    await this.stdio?.stop();
  }
}

export class PerEventStdioChannel implements Channel {
  readonly transport = 'stdio';

  constructor(private readonly o: StdioChannelOptions) {}

  /** A fresh process gets one message, end of input, and must exit. */
  async request(m: WireMessage): Promise<Reply> {
    const p = StdioProcess.start(this.o.launch());
    try {
      if (m.note) this.o.transcript.record({ dir: 'note', channel: 'stdio', note: m.note });
      p.send(`${m.text}\n`);
      p.closeStdin();
      const { timeoutMs, patienceMs } = this.o.timing;
      return this.o.timing.timed(await readPerEvent(p, timeoutMs, this.o.transcript, this.o.parse, patienceMs), true);
    } finally {
      await p.stop();
    }
  }

  /** Silence: no output, and an exit. */
  async notify(m: WireMessage): Promise<Silence> {
    const reply = await this.request(m);
    if (reply.kind === 'reply')
      return { silent: false, got: reply.raw, reply, detail: 'the process wrote to stdout after a notification' };
    return { silent: true, reply, detail: reply.why };
  }

  async close(): Promise<void> {
    // Each process is stopped at the end of its own exchange.
  }
}
