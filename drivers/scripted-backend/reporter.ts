// The stdio scripted backend's side of the wire collector (collector.ts): one loopback
// connection to the runner, a hello with the run's key, the script in return, then one
// acknowledged message per record. Records sent before the connection is up are queued,
// so their order is kept.
import { connect, type Socket } from 'node:net';
import type { BackendScript, WireRecord } from './script.js';
import type { FrameAck } from './collector.js';

/** Texts longer than this are cut before sending (the collector keeps 64 KiB of a text). */
const MAX_SEND_TEXT = 256 * 1024;

export type Sent = Omit<WireRecord, 't' | 'hook' | 'transport' | 'pid'>;

export class CollectorReporter {
  private socket: Socket;
  private seq = 0;
  private readonly waiting = new Map<number, (ack: FrameAck | undefined) => void>();
  private buffered = '';
  private closed = false;
  readonly script: Promise<BackendScript>;

  /** `address` is host:port; `onLost` runs once if the runner goes away. */
  constructor(
    address: string,
    key: string,
    hook: string,
    private readonly onLost: () => void,
  ) {
    const colon = address.lastIndexOf(':');
    this.socket = connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
    this.socket.setNoDelay(true);
    this.socket.setEncoding('utf8');
    let gotScript: (s: BackendScript) => void = () => undefined;
    let noScript: (e: Error) => void = () => undefined;
    this.script = new Promise<BackendScript>((resolve, reject) => {
      gotScript = resolve;
      noScript = reject;
    });
    this.script.catch(() => undefined);
    let haveScript = false;
    this.socket.write(`${JSON.stringify({ hello: { key, hook } })}\n`);
    this.socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        let msg: { script?: BackendScript; ack?: number } & FrameAck;
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          continue;
        }
        if (!haveScript && msg.script) {
          haveScript = true;
          gotScript(msg.script);
          continue;
        }
        if (typeof msg.ack === 'number') {
          const w = this.waiting.get(msg.ack);
          this.waiting.delete(msg.ack);
          w?.({
            ...(msg.ordinal !== undefined ? { ordinal: msg.ordinal } : {}),
            ...(msg.attempt !== undefined ? { attempt: msg.attempt } : {}),
          });
        }
      }
    });
    const lost = (): void => {
      if (this.closed) return;
      this.closed = true;
      noScript(new Error('the runner closed the wire collector'));
      for (const w of this.waiting.values()) w(undefined);
      this.waiting.clear();
      this.onLost();
    };
    this.socket.on('close', lost);
    this.socket.on('error', lost);
  }

  /** Send a record; resolves with the acknowledgement (undefined if the runner is gone or `waitMs` passes). */
  record(r: Sent, waitMs: number): Promise<FrameAck | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const seq = ++this.seq;
    const text = r.text !== undefined && r.text.length > MAX_SEND_TEXT ? r.text.slice(0, MAX_SEND_TEXT) : r.text;
    const { message: _parsedByTheRunner, ...rest } = r;
    this.socket.write(`${JSON.stringify({ seq, record: { ...rest, ...(text !== undefined ? { text } : {}) } })}\n`);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(seq);
        resolve(undefined);
      }, waitMs);
      timer.unref();
      this.waiting.set(seq, (ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
    });
  }

  close(): void {
    this.closed = true;
    this.socket.end();
  }
}
