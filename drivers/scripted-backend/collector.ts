// The wire log of harness runs, kept by the runner itself: the judge trusts only its own
// records. Every scripted backend of a run (stdio processes that the harness under test
// starts, and the runner's HTTP server) reports what crossed the wire here, not to a file
// the harness could write.
//
// stdio backends connect over loopback TCP and say hello with the run's one-time key
// (given on their command line); a connection without the right key is closed and
// counted. Each record is acknowledged, and a backend waits for the acknowledgement
// before anything the harness can observe (a reply, an exit), so the order in which the
// runner receives records is the causal order across processes: "b received its request
// after a answered" is a fact of this order. Frame acknowledgements carry the ordinal and
// attempt the backend answers by (cross-process counters live here).
//
// Residual risk, documented in docs/harness-adapter.md: the key is on the backend's command
// line, which the harness starts; a harness that deliberately impersonates the scripted
// backend could forge records. A stray write can no longer do it.
import { createServer, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { nowMs, probeOf, type BackendScript, type WireRecord } from './script.js';

/** Records above this size keep a truncated text (the log stays bounded). */
export const MAX_RECORD_TEXT = 64 * 1024;
/** A protocol line longer than this (in bytes) closes the connection. */
const MAX_LINE_BYTES = 1024 * 1024;
/** Records kept per run; further ones are counted, not kept. */
const MAX_RECORDS = 20_000;
/**
 * Characters of records kept per run, and per session (all its runs: a check keeps the
 * records of each of its runs until it ends); records past either are counted, not kept.
 * A real run keeps a few hundred kilobytes; a harness that floods the collector with its
 * run's key (20 000 records of 64 KiB) stays within these, not at gigabytes.
 */
export const MAX_RUN_CHARS = 8 * 1024 * 1024;
export const MAX_SESSION_CHARS = 32 * 1024 * 1024;

/** The characters a session's runs have kept, shared by its logs. */
export class KeptBudget {
  used = 0;
  constructor(readonly limit = MAX_SESSION_CHARS) {}
}

/** What a record costs to keep, at least: its texts, and a bound for the rest of its fields. */
const weightOf = (r: Omit<WireRecord, 't'>): number =>
  512 + (r.text?.length ?? 0) + (r.base64?.length ?? 0) + (r.argv?.join(' ').length ?? 0);

export interface Hello {
  key: string;
  hook: string;
}

/** What the collector answers a frame record with. */
export interface FrameAck {
  ordinal?: number;
  attempt?: number;
}

export function truncated(record: WireRecord): WireRecord {
  return record.text !== undefined && record.text.length > MAX_RECORD_TEXT
    ? {
        ...record,
        text: record.text.slice(0, MAX_RECORD_TEXT),
        note: `${record.note ? `${record.note}; ` : ''}truncated to ${MAX_RECORD_TEXT} characters`,
      }
    : record;
}

/** A frame's parsed message, method and step, from its text. */
function frameFacts(r: Omit<WireRecord, 't'>): Omit<WireRecord, 't'> {
  if (r.kind !== 'frame') return r;
  const { message: _m, method: _k, step: _s, ordinal: _o, attempt: _a, ...rest } = r;
  let message: unknown;
  try {
    message = JSON.parse(String(r.text ?? ''));
  } catch {
    message = undefined;
  }
  const m =
    message && typeof message === 'object' && !Array.isArray(message)
      ? (message as Record<string, unknown>)
      : undefined;
  const method = typeof m?.method === 'string' ? m.method : undefined;
  const step = probeOf(m);
  return { ...rest, message, ...(method ? { method } : {}), ...(step !== undefined ? { step } : {}) };
}

/** One harness run's records, in the order the runner received them. */
export class RunLog {
  readonly key = randomBytes(16).toString('hex');
  readonly records: WireRecord[] = [];
  /** Records past MAX_RECORDS or the bounds on characters kept, not kept. */
  dropped = 0;
  /** Characters kept so far (see MAX_RUN_CHARS). */
  private kept = 0;
  /** Connections that did not present this run's key. */
  refused = 0;
  private open = 0;
  private readonly idle: Array<() => void> = [];
  private readonly watchers = new Set<(r: WireRecord) => void>();

  constructor(
    readonly script: BackendScript,
    private readonly budget = new KeptBudget(),
  ) {}

  /**
   * Append a record (stamped now, by the runner) and answer what a frame needs. `size`: what
   * it took on the wire when that is more than its texts (a collector line).
   */
  append(record: Omit<WireRecord, 't'>, size = 0): FrameAck {
    const r = truncated({ ...record, t: nowMs() } as WireRecord);
    let ack: FrameAck = {};
    if (r.kind === 'frame' && r.method) {
      const ordinal = this.countFrames(r.hook, r.method);
      const attempt = r.step !== undefined ? this.countStepFrames(r.hook, r.method, r.step) : undefined;
      r.ordinal = ordinal;
      if (attempt !== undefined) r.attempt = attempt;
      ack = { ordinal, ...(attempt !== undefined ? { attempt } : {}) };
    }
    const weight = Math.max(size, weightOf(r));
    if (!this.full(weight)) {
      this.records.push(r);
      this.kept += weight;
      this.budget.used += weight;
    } else this.dropped++;
    for (const w of this.watchers) w(r);
    return ack;
  }

  /**
   * The first record (kept so far or arriving) that `match` accepts; undefined once `ms`
   * have passed or `stop` resolves first. Waits on arrivals, not on a timer.
   */
  whenRecord(match: (r: WireRecord) => boolean, ms: number, stop?: Promise<unknown>): Promise<WireRecord | undefined> {
    const kept = this.records.find(match);
    if (kept) return Promise.resolve(kept);
    return new Promise((resolve) => {
      const finish = (r: WireRecord | undefined): void => {
        clearTimeout(timer);
        this.watchers.delete(watch);
        resolve(r);
      };
      const watch = (r: WireRecord): void => {
        if (match(r)) finish(r);
      };
      const timer = setTimeout(() => finish(undefined), ms);
      this.watchers.add(watch);
      void stop?.then(
        () => finish(undefined),
        () => finish(undefined),
      );
    });
  }

  /** Whether a record of at least `size` characters would be dropped (past MAX_RECORDS or a bound on characters kept). */
  full(size: number): boolean {
    return (
      this.records.length >= MAX_RECORDS ||
      this.kept + size > MAX_RUN_CHARS ||
      this.budget.used + size > this.budget.limit
    );
  }

  /** A record not kept (past a bound), counted. */
  drop(): void {
    this.dropped++;
  }

  /** How many frames of `method` the hook has received so far (the next frame's ordinal). */
  countFrames(hook: string, method: string): number {
    return this.records.filter((r) => r.kind === 'frame' && r.hook === hook && r.method === method).length;
  }

  /** How many frames of `method` for scenario step `step` the hook has received so far. */
  countStepFrames(hook: string, method: string, step: string): number {
    return this.records.filter((r) => r.kind === 'frame' && r.hook === hook && r.method === method && r.step === step)
      .length;
  }

  connected(): void {
    this.open++;
  }

  disconnected(): void {
    this.open--;
    if (this.open === 0) for (const f of this.idle.splice(0)) f();
  }

  /** Open stdio backend connections. */
  get connections(): number {
    return this.open;
  }

  /** Resolves when no stdio backend is connected, or after `ms`; true when none is. */
  whenIdle(ms: number): Promise<boolean> {
    if (this.open === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.open === 0), ms);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** The loopback server stdio backends report to; one per harness session, one RunLog per run (several may be open at once). */
export class WireCollector {
  private readonly runs = new Map<string, RunLog>();
  private readonly sockets = new Set<Socket>();
  /** What all runs of this session keep, together. */
  private readonly budget = new KeptBudget();
  /** Connections so far: a stdio backend's identity in its records (`pid`), assigned here. */
  private accepted = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WireCollector> {
    const server = createServer();
    const c = new WireCollector(server);
    server.on('connection', (s) => c.accept(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return c;
  }

  /** host:port for the backend's command line. */
  get address(): string {
    const a = this.server.address();
    return typeof a === 'object' && a ? `127.0.0.1:${a.port}` : '';
  }

  /** A new run's log; its key admits that run's backends. */
  open(script: BackendScript): RunLog {
    const log = new RunLog(script, this.budget);
    this.runs.set(log.key, log);
    return log;
  }

  /** The run is over: its key admits no one any more. */
  forget(log: RunLog): void {
    this.runs.delete(log.key);
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let run: RunLog | undefined;
    let hook = '';
    const id = ++this.accepted;
    const close = (): void => {
      socket.destroy();
    };
    socket.on('close', () => {
      this.sockets.delete(socket);
      run?.disconnected();
    });
    socket.on('error', () => undefined);
    /** One protocol line; false closes the connection. */
    const handle = (line: Buffer): boolean => {
      // Past the run's bounds a record is not kept: it is acknowledged without being decoded,
      // so a flood costs the runner no more than reading it (the backend's lines lead with
      // their seq: `{"seq":n,`).
      if (run?.full(line.length)) {
        const seq = /^\{"seq":(\d{1,15}),/.exec(line.subarray(0, 32).toString('latin1'));
        if (seq) {
          run.drop();
          socket.write(`${JSON.stringify({ ack: Number(seq[1]) })}\n`);
          return true;
        }
      }
      let msg: { hello?: Hello; seq?: number; record?: Omit<WireRecord, 't'> };
      try {
        msg = JSON.parse(line.toString('utf8')) as typeof msg;
      } catch {
        return false;
      }
      if (!run) {
        const found = msg.hello && typeof msg.hello.key === 'string' ? this.runs.get(msg.hello.key) : undefined;
        if (!found) {
          // Not this session's backend: count it against every run open at the time.
          for (const r of this.runs.values()) r.refused++;
          return false;
        }
        run = found;
        hook = String(msg.hello!.hook);
        run.connected();
        socket.write(`${JSON.stringify({ script: run.script })}\n`);
        return true;
      }
      if (!msg.record || typeof msg.record !== 'object') return false;
      // Hook, transport and process are the connection's, and a frame's meaning is read
      // from its text here, whatever the record says.
      const ack = run.append(frameFacts({ ...msg.record, hook, transport: 'stdio', pid: id }), line.length);
      socket.write(`${JSON.stringify({ ack: msg.seq, ...ack })}\n`);
      return true;
    };
    // Lines are split as bytes: nothing is decoded before it is known to be kept.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    socket.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, nl);
        const line = pending.length ? Buffer.concat([...pending, part]) : part;
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
        if (line.length > MAX_LINE_BYTES || !handle(line)) return close();
        if (socket.destroyed) return;
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > MAX_LINE_BYTES) close();
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
