// The one interface the chain and the observers use for every binding. A transport
// moves bytes and applies framing; it never judges JSON-RPC or effects (reply.ts does).
import type { JsonValue } from '../../../src/protocol/json.js';
import type { Message } from '../messages.js';
import type { Deadline } from './deadline.js';

/** What came back for an intercept: one JSON object, or an operational failure. */
export type Exchange =
  | { readonly ok: true; readonly reply: JsonValue }
  | {
      readonly ok: false;
      /** One line, for local audit; never holds a credential or backend output. */
      readonly failure: string;
      /** AHP-CORE-004: the exchange may be sent again (same bytes) within the deadline. */
      readonly retryable: boolean;
    };

export interface Transport {
  /** Send one hooks/intercept and wait for its reply, at the latest until `deadline`. */
  intercept(message: Message, rpcId: string, deadline: Deadline): Promise<Exchange>;
  /**
   * Send one hooks/observe. Resolves with whether the delivery visibly succeeded, within
   * `limitMs`; callers on the normal path never wait for it.
   */
  observe(message: Message, limitMs: number): Promise<boolean>;
  /** End the run: stop processes and connections. Bounded; never throws. */
  close(): Promise<void>;
}

export const fail = (failure: string, retryable = false): Exchange => ({ ok: false, failure, retryable });
