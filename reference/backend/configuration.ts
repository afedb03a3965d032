// What the reference backend answers to `hooks/configuration` (draft@1d98c19): the
// subscriptions its policy needs, so a harness given a registration without
// `subscriptions` delivers it what it acts on and observes. The shape is the snapshot's
// configuration-response (../shared/ahp-spec-1d98c19/schema/draft/configuration*.schema.json):
// at least one intercept or observe subscription, each with its content selection.
//
// Whether a backend serves the method is its own choice: nothing on the wire advertises it.
// Both official SDKs (0.10.1, generated from 1d98c19) answer it only when the application
// declared a configuration, and otherwise with -32601: Rust SDK README.md, section "Shared
// subscription configuration"; Python SDK agenthooksprotocol/server/hooks.py, Engine.process.
// The reference does the same: it serves one unless started with --no-configuration.
import type { JsonObject } from '../../src/protocol/json.js';
import type { Policy } from './policy.js';

/** The lifecycle events the reference backend observes (the lifecycle-observation profile). */
const OBSERVED = ['tool.after', 'session.start', 'session.end'] as const;

/** The deadline and failure policy the reference asks for its intercepts: a policy that blocks must not be skipped. */
const INTERCEPT_TIMEOUT_MS = 2000;

/** The configuration of a policy: one intercept subscription for the events its rules decide, one observe subscription. */
export function configurationOf(policy: Policy): JsonObject {
  const intercepted = [...new Set(policy.rules.map((r) => r.event))];
  const subscriptions: JsonObject[] = [];
  if (intercepted.length)
    subscriptions.push({
      events: intercepted,
      mode: 'intercept',
      timeoutMs: INTERCEPT_TIMEOUT_MS,
      failurePolicy: 'fail-closed',
      // The rules match tool names and merge into tool input: bodies are needed.
      content: { default: 'body' },
    });
  subscriptions.push({ events: [...OBSERVED], mode: 'observe', content: { default: 'metadata' } });
  return { subscriptions };
}
