// Server-driven subscription configuration (draft@1d98c19): a registered backend without
// `subscriptions` is asked for them with hooks/configuration before any event is dispatched,
// and gets exactly what its reply says (AHP-REG-002 then applies to those subscriptions).
// The shapes are the 1d98c19 schemas: configuration-request.schema.json (params:
// protocolVersion only), configuration-response.schema.json (result: protocolVersion and
// configuration, never manifest or effects) and configuration.schema.json (a non-empty list
// of intercept/observe subscriptions, as in a registration).
//
// Our choices where no 1d98c19 text states a rule (base.configuration-invalid judges them as
// SHOULD): the request goes out once, before the scenario's first event, to every such
// backend at once; a reply that is late, an error, or not valid under those schemas leaves
// the backend without subscriptions for the whole session, so nothing at all is delivered to
// it (as an unusable registration would be refused, a backend whose configuration cannot be
// used is not guessed at). Nearest SDK precedent found: the Rust SDK's registered-backend
// client (agenthooksprotocol/rust-sdk src/adapters/registered.rs@1f836ca5, validate_response)
// treats an error reply or one that fails its response schema as a failed call, never as a
// partial answer; that version sends no hooks/configuration itself.
import { randomUUID } from 'node:crypto';
import { isObject, type JsonValue } from '../../src/protocol/json.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { PROTOCOL_VERSION } from '../../src/protocol/catalogue.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { subscriptionOf, type Hook, type Subscription } from './registration.js';
import type { Run } from './run.js';
import { HARNESS } from './events.js';
import { Deadline } from './transports/deadline.js';

export const CONFIGURATION_METHOD = 'hooks/configuration';
/**
 * How long a backend has to answer (no subscription, so no timeoutMs, applies yet): long
 * enough for a per_event process to start on a loaded machine, well inside the runner's
 * scenario deadline (src/timing.ts gives every run at least 15 s).
 */
export const CONFIGURATION_TIMEOUT_MS = 5000;

type Configured = { ok: true; subscriptions: Subscription[] } | { ok: false; failure: string };

/** Ask every backend that needs it, all at once; each gets its subscriptions or none. */
export async function configureHooks(run: Run): Promise<void> {
  await Promise.all(run.hooks.filter((h) => h.configure).map((h) => configureHook(run, h)));
}

async function configureHook(run: Run, hook: Hook): Promise<void> {
  // unconfigured-observes-all fault: never asked; the backend observes every event instead.
  if (run.fault.is('unconfigured-observes-all')) {
    hook.subscriptions = [
      { events: ['*'], mode: 'observe', timeoutMs: 0, failurePolicy: 'fail-open', view: 'metadata' },
    ];
    return;
  }
  const id = `cfg-${randomUUID()}`;
  // configuration-extra-params fault: the request names the harness too (not in the 1d98c19 schema).
  const params = run.fault.is('configuration-extra-params')
    ? { protocolVersion: PROTOCOL_VERSION, harness: { ...HARNESS } }
    : { protocolVersion: PROTOCOL_VERSION };
  const message = { jsonrpc: '2.0', id, method: CONFIGURATION_METHOD, params };
  const exchange = await run
    .transportFor(hook)
    .intercept(message, id, new Deadline(CONFIGURATION_TIMEOUT_MS))
    .catch((e: unknown) => ({ ok: false as const, failure: String(e), retryable: false }));
  let got: Configured = exchange.ok
    ? judgeConfiguration(exchange.reply, id, false, run.snapshot)
    : { ok: false, failure: exchange.failure };
  // lenient-configuration fault: what the schema refuses is taken as far as it can be read
  // (a reply the schema accepts reads the same either way, so only a refused one asks).
  if (exchange.ok && !got.ok && run.fault.is('lenient-configuration'))
    got = judgeConfiguration(exchange.reply, id, true, run.snapshot);
  if (!got.ok) {
    run.audit(`${hook.id}: configuration failed, nothing will be delivered to it: ${got.failure}`);
    hook.subscriptions = [];
    return;
  }
  // configured-loose-dispatch fault: the configured events lists are ignored.
  hook.subscriptions = run.fault.is('configured-loose-dispatch')
    ? got.subscriptions.map((s) => ({ ...s, events: ['*'] }))
    : got.subscriptions;
  run.audit(`${hook.id}: configured with ${got.subscriptions.length} subscription(s)`);
}

/**
 * The subscriptions of a valid reply (configuration-response.schema.json of `snapshot`), or
 * why it cannot be used. `lenient`: the lenient-configuration fault.
 */
export function judgeConfiguration(
  reply: JsonValue,
  id: string,
  lenient = false,
  snapshot: SnapshotId = 'draft@1d98c19',
): Configured {
  const bad = (failure: string): Configured => ({ ok: false, failure });
  if (!isObject(reply)) return bad('reply is not a JSON object');
  if (reply.id !== id) return bad('reply id does not match the request id');
  if ('error' in reply) return bad('backend answered with a JSON-RPC error');
  const result = isObject(reply.result) ? reply.result : undefined;
  const configuration = isObject(result?.configuration) ? result.configuration : undefined;
  const listed = Array.isArray(configuration?.subscriptions) ? configuration.subscriptions : [];
  if (lenient) return { ok: true, subscriptions: listed.flatMap((s) => subscriptionOf(s)) };
  const findings = validate('configuration-response', reply, { wireOnly: true, explain: false, snapshot });
  if (!isWireValid(findings)) {
    const f = findings.find((x) => x.layer === 'wire')!;
    return bad(`the configuration reply is invalid at ${f.path || '(root)'}: ${f.message.slice(0, 120)}`);
  }
  return { ok: true, subscriptions: listed.flatMap((s) => subscriptionOf(s)) };
}
