// The intercept chain of one tool call (AHP-COMP-001): interceptors strictly one after
// the other, in registration order. Each sees the input as edited by those before it.
//   no effect          -> next interceptor
//   valid deny          -> stop; denied by the backend (later interceptors are not called)
//   valid modify        -> the edited input becomes the current value
//   operational failure -> fail-open: note it locally and go on with the value unchanged;
//                          fail-closed: stop; synthetic denial with a generic reason
// A retryable failure is sent once more, byte for byte, if the deadline leaves room
// (AHP-CORE-004); nothing is retried after a decision.
import type { JsonObject } from './config.js';
import type { Target } from './dispatch.js';
import { withInput, type AhpEvent, newEventId } from './events.js';
import { interceptMessage, type Message } from './messages.js';
import { judgeReply, type Judgement } from './reply.js';
import type { Run } from './run.js';
import { Deadline } from './transports/deadline.js';
import type { Exchange, Transport } from './transports/types.js';

/** The only reason a synthetic (failure-policy) denial ever gives: no backend details. */
export const SYNTHETIC_DENIAL_REASON = 'Required policy backend unavailable';
/** A retry needs at least this much of the original deadline left. */
export const RETRY_MIN_REMAINING_MS = 100;
/** no-deadline fault: the wait is bounded only by this. */
const NO_DEADLINE_CAP_MS = 30_000;

export type ChainVerdict = 'allowed' | 'denied-by-backend' | 'denied-by-failure-policy';

export interface ChainOutcome {
  readonly verdict: ChainVerdict;
  readonly reason?: string;
  /** The effective input after every accepted edit. */
  readonly input: JsonObject;
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

export async function runInterceptChain(run: Run, event: AhpEvent, targets: readonly Target[]): Promise<ChainOutcome> {
  const original = (event.tool as { input: JsonObject }).input;
  let input = original;
  let called = 0;
  let allNoEffect = true;
  let denial: { verdict: ChainVerdict; reason: string } | undefined;

  // concurrent-interceptors fault: everyone is asked at once (with the original input).
  const early = run.fault === 'concurrent-interceptors' ? await Promise.all(targets.map((t) => deliver(run, t, event))) : undefined;

  for (const [i, target] of targets.entries()) {
    const current = withInput(event, input);
    const delivery = early ? early[i]! : await deliver(run, target, current);
    called++;
    if (denial) continue; // deny-continues-chain fault: asked, but nothing can change a denial
    const judged: Judgement = delivery.exchange.ok
      ? judgeReply(delivery.exchange.reply, delivery.rpcId, input, run.fault)
      : { ok: false, failure: delivery.exchange.failure };

    if (run.fault === 'retry-after-decision' && judged.ok && judged.decision.kind !== 'modify') {
      // The second answer is ignored; a fresh clock so the resend really goes out.
      await delivery.transport.intercept(delivery.message, delivery.rpcId, new Deadline(delivery.timeoutMs));
    }

    if (!judged.ok) {
      allNoEffect = false;
      const policy = run.fault === 'fail-closed-continues' ? 'fail-open' : target.subscription.failurePolicy;
      run.audit(`${target.hook.id}: operational failure (${policy}): ${judged.failure}`);
      if (policy === 'fail-closed') {
        denial = { verdict: 'denied-by-failure-policy', reason: SYNTHETIC_DENIAL_REASON };
      } else if (judged.partialInput) {
        input = judged.partialInput;
      }
    } else if (judged.decision.kind === 'deny') {
      allNoEffect = false;
      denial = { verdict: 'denied-by-backend', reason: judged.decision.reason };
    } else if (judged.decision.kind === 'modify') {
      allNoEffect = false;
      input = judged.decision.input;
    }
    // deny-continues-chain fault: only an explicit deny is ignored for the chain's sake.
    if (denial && !(run.fault === 'deny-continues-chain' && denial.verdict === 'denied-by-backend')) break;
  }

  if (denial) return { verdict: denial.verdict, reason: denial.reason, input, called, allNoEffect };
  return { verdict: 'allowed', input, called, allNoEffect };
}

/** Send one intercept to one interceptor, with at most one identical retry. */
async function deliver(run: Run, target: Target, event: AhpEvent): Promise<Delivery> {
  const transport = run.transportFor(target.hook);
  const timeoutMs = run.fault === 'no-deadline' ? NO_DEADLINE_CAP_MS : target.subscription.timeoutMs;
  const deadline = new Deadline(timeoutMs);
  let rpcId = run.rpcIdFor(event.id as string);
  let message = interceptMessage(event, rpcId, run.fault);
  let exchange = await transport.intercept(message, rpcId, deadline);
  if (!exchange.ok && exchange.retryable && deadline.remaining() >= RETRY_MIN_REMAINING_MS) {
    run.audit(`${target.hook.id}: retrying after: ${exchange.failure}`);
    if (run.fault === 'retry-new-id') {
      const fresh = { ...event, id: newEventId() };
      rpcId = run.rpcIdFor(fresh.id);
      message = interceptMessage(fresh, rpcId, run.fault);
    }
    exchange = await transport.intercept(message, rpcId, deadline);
  }
  return { exchange, message, rpcId, transport, timeoutMs };
}
