// Observations (hooks/observe) are best effort and must never delay or change a tool
// call: they are fired without being awaited on the decision path. Deliveries still in
// flight are kept so the run can give them a bounded moment before it ends.
import { dispatchedTo, type Recipient } from './dispatch.js';
import type { AhpEvent } from './events.js';
import type { HarnessFault } from './faults.js';
import { observeMessage } from './messages.js';
import type { Hook } from './registration.js';
import type { Transport } from './transports/types.js';

/** What deliveries use of the run: not the Run class itself, which builds Observations (no import cycle). */
export interface ObservedRun {
  readonly hooks: readonly Hook[];
  readonly fault: HarnessFault;
  transportFor(hook: Hook): Transport;
}

/** How long one delivery may take before it counts as failed (and its process is reaped). */
const OBSERVE_LIMIT_MS = 2000;

export class Observations {
  private readonly pending = new Set<Promise<boolean>>();

  constructor(private readonly run: ObservedRun) {}

  /** Send `event` to every observer of its type; returns at once. */
  publish(event: AhpEvent): void {
    void this.deliverAll(event, OBSERVE_LIMIT_MS);
  }

  /** Like publish, each observer getting its own view of the event (content boundaries). */
  publishViews(type: string, eventFor: (recipient: Recipient) => AhpEvent): void {
    void this.deliverAll({ type }, OBSERVE_LIMIT_MS, eventFor);
  }

  /**
   * Send a content event to given intercept subscriptions as hooks/observe, each in its own
   * view: after a deny or a fail-closed stop, the interceptors not yet called observe the
   * settled event (observation disposition). Returns at once.
   */
  publishTo(recipients: readonly Recipient[], eventFor: (recipient: Recipient) => AhpEvent): void {
    void this.deliverAll({}, OBSERVE_LIMIT_MS, eventFor, recipients);
  }

  /** observer-failure-denies and await-observers faults only: deliver and report whether every delivery succeeded. */
  async publishAndWait(event: AhpEvent, limitMs: number): Promise<boolean> {
    return this.deliverAll(event, limitMs);
  }

  /** Wait for deliveries in flight, at most `limitMs` in all. */
  async settle(limitMs: number): Promise<void> {
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.pending]),
      new Promise<void>((r) => (timer = setTimeout(r, limitMs))),
    ]);
    clearTimeout(timer);
  }

  private async deliverAll(
    event: AhpEvent,
    limitMs: number,
    eventFor?: (recipient: Recipient) => AhpEvent,
    to?: readonly Recipient[],
  ): Promise<boolean> {
    const { run } = this;
    const recipients = to ?? dispatchedTo(run, event.type as string, 'observe');
    const results = recipients.map((t) => {
      const message = observeMessage(eventFor ? eventFor(t) : event, run.fault);
      const p = run
        .transportFor(t.hook)
        .observe(message, limitMs)
        .catch(() => false);
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
      return p;
    });
    return (await Promise.all(results)).every(Boolean);
  }
}
