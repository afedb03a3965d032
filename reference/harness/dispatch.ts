// Who gets an event (AHP-REG-002): a subscription whose mode matches the method and whose
// events name the type exactly, or through a draft wildcard (`*`, `family.*`). Order is
// registration order: hooks, then subscriptions inside a hook; that order is the
// interceptor chain (AHP-COMP-001).
import type { HarnessFault } from './faults.js';
import type { Hook, Mode, Subscription } from './registration.js';

export interface Recipient {
  readonly hook: Hook;
  readonly subscription: Subscription;
}

/** Does one `events` entry select `type`? */
export function selects(pattern: string, type: string): boolean {
  if (pattern === type || pattern === '*') return true;
  if (!pattern.endsWith('.*')) return false;
  const family = pattern.slice(0, -1); // "tool." of "tool.*"
  return type.startsWith(family) && type.length > family.length;
}

/**
 * Every (hook, subscription) of `mode` that selects `type`, in registration order.
 * `loose` is the loose-dispatch fault: the events list is ignored, only the mode counts.
 */
export function recipientsFor(hooks: readonly Hook[], type: string, mode: Mode, loose = false): Recipient[] {
  const out: Recipient[] = [];
  for (const hook of hooks) {
    for (const subscription of hook.subscriptions) {
      if (subscription.mode !== mode) continue;
      if (loose || subscription.events.some((p) => selects(p, type))) out.push({ hook, subscription });
    }
  }
  return out;
}

/** The recipients a run dispatches to; the loose-dispatch fault is asked only where it would add one. */
export function dispatchedTo(
  run: { readonly hooks: readonly Hook[]; readonly fault: HarnessFault },
  type: string,
  mode: Mode,
): Recipient[] {
  const strict = recipientsFor(run.hooks, type, mode);
  const loose = recipientsFor(run.hooks, type, mode, true);
  return run.fault.pick('loose-dispatch', strict, loose, sameRecipients);
}

function sameRecipients(a: readonly Recipient[], b: readonly Recipient[]): boolean {
  return a.length === b.length && a.every((r, i) => r.subscription === b[i]!.subscription);
}
