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
/** A protocol line longer than this closes the connection. */
const MAX_LINE_BYTES = 1024 * 1024;
/** Records kept per run; further ones are counted, not kept. */
const MAX_RECORDS = 20_000;

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
  /** Records past MAX_RECORDS, not kept. */
  dropped = 0;
  /** Connections that did not present this run's key. */
  refused = 0;
  private open = 0;
  private readonly idle: Array<() => void> = [];
  private readonly watchers = new Set<(r: WireRecord) => void>();

  constructor(readonly script: BackendScript) {}

  /** Append a record (stamped now, by the runner) and answer what a frame needs. */
  append(record: Omit<WireRecord, 't'>): FrameAck {
    const r = truncated({ ...record, t: nowMs() } as WireRecord);
    let ack: FrameAck = {};
    if (r.kind === 'frame' && r.method) {
      const ordinal = this.countFrames(r.hook, r.method);
      const attempt = r.step !== undefined ? this.countStepFrames(r.hook, r.method, r.step) : undefined;
      r.ordinal = ordinal;
      if (attempt !== undefined) r.attempt = attempt;
      ack = { ordinal, ...(attempt !== undefined ? { attempt } : {}) };
    }
    if (this.records.length < MAX_RECORDS) this.records.push(r);
    else this.dropped++;
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
    const log = new RunLog(script);
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
    let buffered = '';
    const close = (): void => {
      socket.destroy();
    };
    socket.on('close', () => {
      this.sockets.delete(socket);
      run?.disconnected();
    });
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_LINE_BYTES && !buffered.includes('\n')) return close();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let msg: { hello?: Hello; seq?: number; record?: Omit<WireRecord, 't'> };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          return close();
        }
        if (!run) {
          const found = msg.hello && typeof msg.hello.key === 'string' ? this.runs.get(msg.hello.key) : undefined;
          if (!found) {
            // Not this session's backend: count it against every run open at the time.
            for (const r of this.runs.values()) r.refused++;
            return close();
          }
          run = found;
          hook = String(msg.hello!.hook);
          run.connected();
          socket.write(`${JSON.stringify({ script: run.script })}\n`);
          continue;
        }
        if (!msg.record || typeof msg.record !== 'object') return close();
        // Hook, transport and process are the connection's, and a frame's meaning is read
        // from its text here, whatever the record says.
        const ack = run.append(frameFacts({ ...msg.record, hook, transport: 'stdio', pid: id }));
        socket.write(`${JSON.stringify({ ack: msg.seq, ...ack })}\n`);
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
