// Loading the registration: validate it before use (AHP-REG-001) and turn it into the
// ordered hook list dispatch works from. Validation is our own wire validator plus the
// transport rule a schema cannot state (plain http only to loopback). A bearer variable
// that is unset is deliberately NOT a load error: it is resolved per request, and its
// absence is an operational failure that sends nothing (transports/http.ts).
import { checkUrl } from '../../drivers/url-policy.js';
import { isObject, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { OLDEST_SNAPSHOT, snapshotOf, type SnapshotId } from '../../src/protocol/snapshots.js';
import { NO_FAULT, type HarnessFault } from './faults.js';

export type Mode = 'intercept' | 'observe';
export type FailurePolicy = 'fail-open' | 'fail-closed';

export interface Subscription {
  readonly events: readonly string[];
  readonly mode: Mode;
  /** Intercept only. */
  readonly timeoutMs: number;
  /** Intercept only. */
  readonly failurePolicy: FailurePolicy;
  /** `content.default`: the view this subscription gets of every content part (contract v2). */
  readonly view: ContentView;
  /** The content-upload binding: where this subscription's attachments are uploaded (upload.ts). */
  readonly upload?: UploadBinding;
}

export interface UploadBinding {
  readonly endpoint: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly auth?: Authentication;
}

export type ContentView = 'body' | 'metadata' | 'omit';
/** A subscription without a content selection (only when validation is skipped) sees the least. */
const LOOSE_DEFAULT_VIEW: ContentView = 'omit';

export type StdioTransportConfig = {
  readonly type: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly lifecycle: 'persistent' | 'per_event';
  readonly cwd?: string;
};
export type HttpTransportConfig = { readonly type: 'http'; readonly url: string };
export type TransportConfig = StdioTransportConfig | HttpTransportConfig;

/** Kept as given: http.ts resolves what it supports (bearer tokenEnv) and fails closed on the rest. */
export type Authentication = { readonly [k: string]: JsonValue };

export interface Hook {
  readonly id: string;
  readonly transport: TransportConfig;
  readonly authentication?: Authentication;
  /** Set once at load, or (configure) from the backend's hooks/configuration reply before any event. */
  subscriptions: readonly Subscription[];
  /** draft@1d98c19: the registration left out `subscriptions`; ask the backend (configuration.ts). */
  readonly configure?: boolean;
}

export type RegistrationResult = { ok: true; hooks: Hook[] } | { ok: false; reason: string };

/** Used for subscriptions that lack them, when validation is skipped (a fault mode only). */
const LOOSE_DEFAULT_TIMEOUT_MS = 2000;
const LOOSE_DEFAULT_POLICY: FailurePolicy = 'fail-closed';

/**
 * Validate, then extract. `skipValidation` is the skip-registration-validation fault.
 * `optionalSubscriptions`: a hook may leave out `subscriptions` (draft@1d98c19, or the
 * subscriptions-optional fault under 2b5da580); `configure`: such a hook gets its
 * subscriptions from hooks/configuration (1d98c19) instead of subscribing to nothing.
 */
export function loadRegistration(
  doc: JsonValue,
  fault: HarnessFault = NO_FAULT,
  configure = false,
  snapshot: SnapshotId = OLDEST_SNAPSHOT,
): RegistrationResult {
  let reason = rejectionReason(doc, snapshot);
  // The faults below change only what happens to a document that would be refused, so they
  // are asked only then (reference/fault-probe.ts). subscriptions-optional: validate again
  // as if each hook without subscriptions had some, where the snapshot does not allow the omission.
  if (
    reason !== undefined &&
    !snapshotOf(snapshot).rules.subscriptionsOptional &&
    lacksSubscriptions(doc) &&
    fault.is('subscriptions-optional')
  )
    reason = rejectionReason(withPlaceholderSubscriptions(doc), snapshot);
  // skip-registration-validation: a refused document is loaded anyway.
  if (reason !== undefined && !fault.is('skip-registration-validation')) return { ok: false, reason };
  return { ok: true, hooks: extractLoosely(doc, configure) };
}

/** Does some hook of the document have no `subscriptions`? */
function lacksSubscriptions(doc: JsonValue): boolean {
  return isObject(doc) && Array.isArray(doc.hooks) && doc.hooks.some((h) => isObject(h) && !('subscriptions' in h));
}

/** Does some hook name an authentication that is neither bearer nor oauth? */
export function hasUnportableAuth(doc: JsonValue): boolean {
  return (
    isObject(doc) &&
    Array.isArray(doc.hooks) &&
    doc.hooks.some(
      (h) =>
        isObject(h) &&
        isObject(h.authentication) &&
        h.authentication.type !== 'bearer' &&
        h.authentication.type !== 'oauth',
    )
  );
}

/**
 * accept-unportable-auth fault: an `authentication` that is neither bearer nor oauth is
 * dropped before validation (the hook is then used without it) instead of refusing the document.
 */
export function withoutUnportableAuth(doc: JsonValue): JsonValue {
  if (!isObject(doc) || !Array.isArray(doc.hooks)) return doc;
  return {
    ...doc,
    hooks: doc.hooks.map((h) => {
      if (!isObject(h) || !isObject(h.authentication)) return h;
      if (h.authentication.type === 'bearer' || h.authentication.type === 'oauth') return h;
      const { authentication: _dropped, ...rest } = h;
      return rest;
    }),
  };
}

/**
 * subscriptions-optional fault (2b5da580): validate as if every hook without `subscriptions`
 * had one (the hook itself then subscribes to nothing), as the newer snapshot 1d98c19 allows.
 */
function withPlaceholderSubscriptions(doc: JsonValue): JsonValue {
  if (!isObject(doc) || !Array.isArray(doc.hooks)) return doc;
  const placeholder = [{ events: ['session.end'], mode: 'observe', content: { default: 'metadata' } }];
  return {
    ...doc,
    hooks: doc.hooks.map((h) => (isObject(h) && !('subscriptions' in h) ? { ...h, subscriptions: placeholder } : h)),
  };
}

/** Why the document must be refused, or undefined when it may be used. */
export function rejectionReason(doc: JsonValue, snapshot: SnapshotId = OLDEST_SNAPSHOT): string | undefined {
  // The verdict, with the first reason: explaining every error would cost each refused run
  // more CPU than the rest of the run.
  const findings = validate('registration', doc, { wireOnly: true, explain: false, snapshot });
  if (!isWireValid(findings)) {
    const shown = findings
      .filter((f) => f.layer === 'wire')
      .slice(0, 3)
      .map((f) => `${f.path || '(root)'}: ${f.message}`);
    const more = findings.length > 3 ? ` (and ${findings.length - 3} more)` : '';
    return `invalid registration: ${shown.join('; ')}${more}`;
  }
  const hooks = (doc as JsonObject).hooks as JsonObject[];
  for (const [i, hook] of hooks.entries()) {
    const t = hook.transport as JsonObject;
    if (t.type === 'http') {
      const checked = checkUrl(t.url as string);
      if (!checked.ok) return `invalid registration: /hooks/${i}/transport/url: ${checked.message}`;
    }
  }
  return undefined;
}

/**
 * The usable part of a document. After validation this is all of it; without validation
 * (fault mode) hooks and subscriptions that cannot be used are skipped silently.
 */
function extractLoosely(doc: JsonValue, configure: boolean): Hook[] {
  if (!isObject(doc) || !Array.isArray(doc.hooks)) return [];
  const out: Hook[] = [];
  for (const [i, hook] of doc.hooks.entries()) {
    if (!isObject(hook)) continue;
    const transport = transportOf(hook.transport);
    if (!transport) continue;
    const subscriptions = Array.isArray(hook.subscriptions) ? hook.subscriptions.flatMap((s) => subscriptionOf(s)) : [];
    const id = typeof hook.id === 'string' ? hook.id : `hooks[${i}]`;
    out.push({
      id,
      transport,
      subscriptions,
      ...(configure && !('subscriptions' in hook) ? { configure: true } : {}),
      ...(isObject(hook.authentication) ? { authentication: hook.authentication } : {}),
    });
  }
  return out;
}

function transportOf(t: JsonValue | undefined): TransportConfig | undefined {
  if (!isObject(t)) return undefined;
  if (t.type === 'stdio' && typeof t.command === 'string' && t.command !== '') {
    const args = Array.isArray(t.args) ? t.args.filter((a): a is string => typeof a === 'string') : [];
    const lifecycle = t.lifecycle === 'per_event' ? 'per_event' : 'persistent';
    return typeof t.cwd === 'string'
      ? { type: 'stdio', command: t.command, args, lifecycle, cwd: t.cwd }
      : { type: 'stdio', command: t.command, args, lifecycle };
  }
  if (t.type === 'http' && typeof t.url === 'string') {
    try {
      const u = new URL(t.url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    } catch {
      return undefined;
    }
    return { type: 'http', url: t.url };
  }
  return undefined;
}

/** One subscription as far as it goes (defaults for what is missing); validated documents have it all. */
export function subscriptionOf(s: JsonValue): Subscription[] {
  if (!isObject(s) || (s.mode !== 'intercept' && s.mode !== 'observe')) return [];
  const events = Array.isArray(s.events) ? s.events.filter((e): e is string => typeof e === 'string') : [];
  const timeoutMs =
    typeof s.timeoutMs === 'number' && Number.isInteger(s.timeoutMs) && s.timeoutMs > 0
      ? s.timeoutMs
      : LOOSE_DEFAULT_TIMEOUT_MS;
  const failurePolicy =
    s.failurePolicy === 'fail-open' || s.failurePolicy === 'fail-closed' ? s.failurePolicy : LOOSE_DEFAULT_POLICY;
  const given = isObject(s.content) ? s.content.default : undefined;
  const view: ContentView = given === 'body' || given === 'metadata' || given === 'omit' ? given : LOOSE_DEFAULT_VIEW;
  const upload = uploadOf(s.upload);
  return [{ events, mode: s.mode, timeoutMs, failurePolicy, view, ...(upload ? { upload } : {}) }];
}

/** A usable upload binding (validated documents have one whenever `upload` is given). */
function uploadOf(u: JsonValue | undefined): UploadBinding | undefined {
  if (!isObject(u) || typeof u.endpoint !== 'string') return undefined;
  const n = (v: JsonValue | undefined): number | undefined => (typeof v === 'number' && v >= 0 ? v : undefined);
  const timeoutMs = n(u.timeoutMs);
  const maxBytes = n(u.maxBytes);
  if (timeoutMs === undefined || maxBytes === undefined) return undefined;
  return { endpoint: u.endpoint, timeoutMs, maxBytes, ...(isObject(u.auth) ? { auth: u.auth } : {}) };
}
