// The two stdio channels: one long-lived process for every message (persistent), or a new
// process per message that gets the message, end of input, and must exit (per_event).
import type { Channel, ParseJson, Reply, ReplyTiming, Silence, SilenceProbe, WireMessage } from './channel.js';
import { StdioProcess, type StdioLaunch } from './stdio.js';
import { readPerEvent, readReply } from './stdio-framing.js';
import type { Transcript } from './transcript.js';

export interface StdioChannelOptions {
  /** How to start the process (called for every process the channel starts). */
  launch: () => StdioLaunch;
  transcript: Transcript;
  timing: ReplyTiming;
  parse: ParseJson;
}

export class PersistentStdioChannel implements Channel {
  readonly transport = 'stdio';
  private stdio?: StdioProcess;
  /** The process has not answered yet: its first reply's latency includes its start-up. */
  private fresh = false;
  /** How often the process had ended and was started again (judged by the lifecycle's own check). */
  restarts = 0;

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

  /** Read the next reply of the process (see readReply), with patience. */
  async next(p: StdioProcess): Promise<Reply> {
    const includesStart = this.fresh;
    this.fresh = false;
    const { timeoutMs, patienceMs } = this.o.timing;
    return this.o.timing.timed(
      await readReply(p, timeoutMs, this.o.transcript, this.o.parse, patienceMs),
      includesStart,
    );
  }

  async request(m: WireMessage): Promise<Reply> {
    return this.exchange(async (p) => {
      this.send(p, m);
      return this.next(p);
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
    if (first.kind === 'reply' || !(p.exited() || (await p.waitExit(100)) !== 'timeout')) return first;
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
    // usual case is that none comes).
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
