// The intercept chain of one tool call or content boundary (AHP-COMP-001): interceptors
// strictly one after the other, in registration order. Each sees the value (tool input,
// or content) as edited by those before it.
//   no effect          -> next interceptor
//   valid deny          -> stop; denied by the backend (later interceptors are not called)
//   valid modify        -> the edited input becomes the current value
//   operational failure -> fail-open: note it locally and go on with the value unchanged;
//                          fail-closed: stop; synthetic denial with a generic reason
// A retryable failure is sent once more, byte for byte, if the deadline leaves room
// (AHP-CORE-004); nothing is retried after a decision.
import type { JsonObject, JsonValue } from '../../src/protocol/json.js';
import type { Recipient } from './dispatch.js';
import { withInput, type AhpEvent, newEventId } from './events.js';
import { interceptMessage, type Message } from './messages.js';
import { judgeReply, type Judgement } from './reply.js';
import type { Run } from './run.js';
import { Deadline } from './transports/deadline.js';
import type { Exchange, Transport } from './transports/types.js';

/** The only reason a synthetic (failure-policy) denial ever gives: no backend details. */
export const SYNTHETIC_DENIAL_REASON = 'Required policy backend unavailable';
/** A retry needs at least this much of the original deadline left. */
const RETRY_MIN_REMAINING_MS = 100;
/** no-deadline fault: the wait is bounded only by this. */
const NO_DEADLINE_CAP_MS = 30_000;

export type ChainVerdict = 'allowed' | 'denied-by-backend' | 'denied-by-failure-policy';

export interface ChainOutcome<V = JsonObject> {
  readonly verdict: ChainVerdict;
  readonly reason?: string;
  /** The effective value after every accepted edit. */
  readonly value: V;
  /** How many interceptors answered or failed. */
  readonly called: number;
  /** Every interceptor called answered validly with no effect (no edit, no deny, no failure). */
  readonly allNoEffect: boolean;
}

interface Delivery {
  readonly exchange: Exchange;
  readonly message: Message;
  readonly rpcId: string;
  readonly transport: Transport;
  readonly timeoutMs: number;
}

/** What the intercepts of one chain advertise. */
export interface ChainOptions {
  /** no-deny-when-host-refuses fault: nothing for refused calls. */
  readonly advertiseNothing?: boolean;
  /** The boundary's own advertisement (content boundaries); default: tool.before's. */
  readonly capabilities?: Message;
}

/**
 * What one chain edits: the tool input at tool.before, or the content at a content
 * boundary (content.ts). The chain itself (order, failures, deadlines, retries, failure
 * policies) is the same for both; only the event each interceptor is sent (its own view of
 * the current value) and how its reply is judged differ.
 */
export interface ChainSubject<V> {
  readonly initial: V;
  eventFor(value: V, recipient: Recipient): AhpEvent;
  judge(reply: JsonValue, rpcId: string, value: V, recipient: Recipient): Judgement<V>;
}

/** The intercept chain of one tool call: the subject is the tool input. */
export async function runInterceptChain(
  run: Run,
  event: AhpEvent,
  recipients: readonly Recipient[],
  options: ChainOptions = {},
): Promise<ChainOutcome> {
  return runChain(
    run,
    recipients,
    {
      initial: (event.tool as { input: JsonObject }).input,
      eventFor: (input) => withInput(event, input),
      judge: (reply, rpcId, input) => judgeReply(reply, rpcId, input, run.fault, run.snapshot),
    },
    options,
  );
}

export async function runChain<V>(
  run: Run,
  recipients: readonly Recipient[],
  subject: ChainSubject<V>,
  options: ChainOptions = {},
): Promise<ChainOutcome<V>> {
  const original = subject.initial;
  let value = original;
  let called = 0;
  let allNoEffect = true;
  let denial: { verdict: ChainVerdict; reason: string } | undefined;

  // concurrent-interceptors fault: everyone is asked at once (with the original value).
  const early =
    recipients.length > 1 && run.fault.is('concurrent-interceptors')
      ? await Promise.all(recipients.map((t) => deliver(run, t, subject.eventFor(original, t), options)))
      : undefined;

  for (const [i, recipient] of recipients.entries()) {
    // chain-original-input fault: later interceptors see the original value (edits still chain below).
    const current = subject.eventFor(run.fault.pick('chain-original-input', value, original), recipient);
    const delivery = early ? early[i]! : await deliver(run, recipient, current, options);
    called++;
    if (denial) continue; // deny-continues-chain fault: asked, but nothing can change a denial
    const judged: Judgement<V> = delivery.exchange.ok
      ? subject.judge(delivery.exchange.reply, delivery.rpcId, value, recipient)
      : { ok: false, failure: delivery.exchange.failure };

    if (judged.ok && judged.decision.kind !== 'modify' && run.fault.is('retry-after-decision')) {
      // The second answer is ignored; a fresh clock so the resend really goes out.
      await delivery.transport.intercept(delivery.message, delivery.rpcId, new Deadline(delivery.timeoutMs));
    }

    if (!judged.ok) {
      allNoEffect = false;
      const policy = run.fault.pick('fail-closed-continues', recipient.subscription.failurePolicy, 'fail-open');
      run.audit(`${recipient.hook.id}: operational failure (${policy}): ${judged.failure}`);
      if (policy === 'fail-closed') {
        denial = { verdict: 'denied-by-failure-policy', reason: SYNTHETIC_DENIAL_REASON };
      } else if (judged.partial !== undefined) {
        value = judged.partial;
      }
    } else if (judged.decision.kind === 'deny') {
      allNoEffect = false;
      denial = { verdict: 'denied-by-backend', reason: judged.decision.reason };
    } else if (judged.decision.kind === 'modify') {
      allNoEffect = false;
      value = judged.decision.value;
    }
    // deny-continues-chain fault: only an explicit deny is ignored for the chain's sake.
    if (denial && !(denial.verdict === 'denied-by-backend' && run.fault.is('deny-continues-chain'))) break;
  }

  if (denial) return { verdict: denial.verdict, reason: denial.reason, value, called, allNoEffect };
  return { verdict: 'allowed', value, called, allNoEffect };
}

/** Send one intercept to one interceptor, with at most one identical retry. */
async function deliver(run: Run, recipient: Recipient, event: AhpEvent, options: ChainOptions): Promise<Delivery> {
  const transport = run.transportFor(recipient.hook);
  const configured = recipient.subscription.timeoutMs;
  // no-deadline: however late; late-reply-accepted: one more timeoutMs of grace.
  const timeoutMs = run.fault.is('no-deadline')
    ? NO_DEADLINE_CAP_MS
    : run.fault.is('late-reply-accepted')
      ? 2 * configured
      : configured;
  const deadline = new Deadline(timeoutMs);
  const started = Date.now();
  let rpcId = run.rpcIdFor(event.id as string);
  let message = interceptMessage(event, rpcId, run.fault, options.advertiseNothing, options.capabilities);
  let exchange = await transport.intercept(message, rpcId, deadline);
  if (!exchange.ok && exchange.failure.startsWith('no reply within') && run.fault.is('deadline-4x')) {
    // The late reply is ignored, but the failure policy waits for 4 x the deadline.
    await new Promise((r) => setTimeout(r, Math.max(0, started + 4 * configured - Date.now())));
  }
  if (!exchange.ok && exchange.retryable && deadline.remaining() >= RETRY_MIN_REMAINING_MS) {
    run.audit(`${recipient.hook.id}: retrying after: ${exchange.failure}`);
    if (run.fault.is('retry-new-id')) {
      const fresh = { ...event, id: newEventId() };
      rpcId = run.rpcIdFor(fresh.id);
      message = interceptMessage(fresh, rpcId, run.fault, options.advertiseNothing, options.capabilities);
    }
    exchange = await transport.intercept(message, rpcId, deadline);
  }
  return { exchange, message, rpcId, transport, timeoutMs };
}
