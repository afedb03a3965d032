// The fault table of the reference backend: each mode breaks exactly one rule of a
// conforming backend and leaves everything else conforming. `targets` names the check
// ids (src/checks/catalogue.ts) that are expected to fail when the mode is on, so the
// runner can be tested against a backend that is known to be wrong in one place.
//
// `transport` / `lifecycle` restrict a mode to the binding where its rule exists; the
// command line refuses a mode on another binding.

import { BOUNDARIES, contentCheckId, type BackendAspect } from '../../src/checks/boundaries.js';
import { faultModes, type FaultLifecycle, type FaultSpec, type FaultTransport } from '../fault-table.js';

export type { FaultLifecycle, FaultTransport };

/**
 * A backend mode may need hooks/configuration served or not (`--no-configuration`, both
 * only where the snapshot has the method): the command line refuses it otherwise.
 */
export interface BackendFaultSpec extends FaultSpec {
  readonly configuration?: 'served' | 'not-served';
  /** An OAuth rule: the mode runs with --auth oauth, under a claim that says so (its checks apply only there). */
  readonly oauth?: true;
  /** The mode's timing derives from the claim's timeoutMs, given as --timeout-ms (hold.ts). */
  readonly timeoutMs?: 'needed';
}

/** A content fault breaks its rule at every boundary at once, so it fails that aspect's check of each (reference/backend/content.ts). */
const everyBoundary = (aspect: BackendAspect): string[] => BOUNDARIES.map((b) => contentCheckId(b, aspect));

export const FAULTS = {
  'no-jsonrpc-member': {
    targets: ['base.jsonrpc-utf8'],
    description: 'replies omit the "jsonrpc" member',
  },
  'no-result-version': {
    targets: ['base.protocol-version'],
    description: 'success results omit protocolVersion',
  },
  'accept-any-version': {
    targets: ['base.unsupported-version'],
    description: 'params.protocolVersion is ignored; every request is answered as if it said "draft"',
  },
  'reject-unknown-fields': {
    targets: ['base.unknown-fields'],
    description: 'error -32602 when the message, params or event has a member outside the known set for that object',
  },
  'unknown-event-wrong-code': {
    targets: ['base.unknown-event'],
    description: 'unsupported events get -32600 instead of -32002',
  },
  'deny-code-not-reverse-dns': {
    targets: ['base.extension-keys'],
    description: 'the deny code loses its namespace ("dangerous_delete")',
  },
  'unknown-method-result': {
    targets: ['base.unknown-method'],
    description: 'unknown methods get a success result {protocolVersion:"draft", effects:[]}',
  },
  'reply-to-bad-notifications': {
    targets: ['base.notification-silence'],
    description:
      'notifications with an unsupported version, unsupported event or unknown method get the error they would get as requests, with id null',
  },
  'lenient-params': {
    targets: ['base.invalid-params'],
    description: 'missing or invalid params structure is not checked; such requests get effects []',
  },
  'parse-error-with-id': {
    targets: ['base.unparseable-input'],
    description: 'unparseable input gets -32700 with id 0',
  },
  'echo-authorization': {
    targets: ['base.no-secret-leak'],
    description: 'results carry extensions {"com.example.debug": {"authorization": <the Authorization header>}}',
    transport: 'http',
  },
  'auth-anonymous': {
    targets: ['auth.refuses-unauthenticated'],
    description: 'a request without an Authorization header is processed as if it carried the token',
    transport: 'http',
  },
  'auth-no-challenge': {
    targets: ['auth.refusal-challenge'],
    description: 'refusals (401, 400) carry no WWW-Authenticate header',
    transport: 'http',
  },
  'auth-any-token': {
    targets: ['auth.refuses-wrong-credentials'],
    description: 'any single "Bearer <token>" header is accepted, whatever the token',
    transport: 'http',
  },
  'auth-echo-token': {
    targets: ['base.no-secret-leak'],
    description: 'the 401 for a wrong token quotes the Authorization header it refuses in its body',
    transport: 'http',
  },
  'oauth-no-metadata': {
    targets: ['auth.resource-metadata'],
    description:
      'with --auth oauth, the 401 challenge has no resource_metadata (a realm instead) and no protected-resource metadata is served',
    transport: 'http',
    oauth: true,
  },
  'oauth-any-audience': {
    targets: ['auth.token-binding'],
    description:
      "with --auth oauth, a token's signature and scope are checked, its audience, expiry, issuer and typ are not",
    transport: 'http',
    oauth: true,
  },
  'effects-not-array': {
    targets: ['ti.result-valid'],
    description: 'result.effects is {} for tool.before requests that would get []',
  },
  'wrong-id': {
    targets: ['ti.response-id'],
    description: 'success replies carry the id "<id>-reply" (a string)',
  },
  'ignore-capabilities': {
    targets: ['ti.advertised-effects'],
    description:
      'where the advertisement rules out every effect the policy proposes, the preferred one is returned anyway',
  },
  'deny-empty-reason': {
    targets: ['ti.deny-samples'],
    description: 'the deny reason is ""',
  },
  'deny-wrong-version': {
    targets: ['ti.deny-samples'],
    description:
      'a reply holding a deny effect carries result.protocolVersion "1999-01-01" (the deny itself is valid; other replies are not touched)',
  },
  'modify-bad-jsonrpc': {
    targets: ['ti.modify-samples'],
    description:
      'a reply holding a modify effect carries jsonrpc "1.0" (the modify itself is applicable; other replies are not touched)',
  },
  'modify-wrong-shape': {
    targets: ['ti.modify-samples'],
    description: 'the modify value for input is a string ("mode=0644") instead of an object',
  },
  'flaky-duplicates': {
    targets: ['ti.duplicate-delivery'],
    description: 'the second and later delivery of an event id get effects [] even where the first was denied',
  },
  'ack-observe': {
    targets: ['lo.observe-silence'],
    description:
      'valid hooks/observe notifications get a reply {jsonrpc:"2.0", id:null, result:{protocolVersion:"draft", effects:[]}}',
  },
  'pretty-print': {
    targets: ['stdio.framing'],
    description: 'replies are written pretty-printed over several lines',
    transport: 'stdio',
  },
  'stdout-banner': {
    targets: ['stdio.stdout-clean'],
    description: 'prints "reference backend ready" on stdout at start-up',
    transport: 'stdio',
  },
  'exit-after-first': {
    targets: ['stdio.persistent-exchanges'],
    description: 'exits 0 right after writing the first reply',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  'per-event-exit-1': {
    targets: ['stdio.per-event-exit'],
    description: 'exits with status 1 after the exchange',
    transport: 'stdio',
    lifecycle: 'per_event',
  },
  'text-content-type': {
    targets: ['http.intercept-response'],
    description: 'replies use Content-Type: text/plain',
    transport: 'http',
  },
  'observe-200-body': {
    targets: ['http.observe-empty'],
    description: 'notifications get status 200 with the body {}',
    transport: 'http',
  },
  'reject-unknown-nested': {
    targets: ['base.unknown-fields'],
    description:
      'error -32602 when params.capabilities, a modify target advertisement or params.event.session has a member outside the known set for that object',
  },
  'family-fallback': {
    targets: ['base.unknown-event'],
    description:
      'an undefined event type inside a known family ("tool.somethingNew") is handled as that family\'s first interceptable event and answered with a result',
  },
  'error-no-message': {
    targets: ['base.unknown-method'],
    description: 'method-not-found errors carry only a code, no message',
  },
  'integer-id-as-string': {
    targets: ['base.unknown-method'],
    description: 'replies to requests with an integer id carry that id as a string (7 comes back as "7")',
  },
  'reply-to-malformed-notifications': {
    targets: ['base.notification-silence'],
    description:
      'notifications whose params or event are malformed (no event, event not an object, required event members missing) get error -32602 with id null',
  },
  'duplicate-error': {
    targets: ['ti.duplicate-answered'],
    description: 'the second and later delivery of an event id get error -32600 ("duplicate event")',
  },
  'silent-on-errors': {
    targets: ['base.unknown-method', 'base.unknown-event', 'base.unsupported-version'],
    description:
      'requests with an unknown method, an unsupported version or an unsupported event get no reply at all; everything else is answered (silence judged by the fence)',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  // A correct backend, slow but sure: it fails nothing (test/faults.spec.ts runs it on stdio and HTTP).
  'slow-reverse-refusals': {
    targets: [],
    // The checks whose probes it holds (traced on stdio persistent and HTTP).
    passes: [
      'base.unknown-method',
      'base.unknown-event',
      'base.unsupported-version',
      'base.no-secret-leak',
      'http.error-status',
      'stdio.stdout-clean',
    ],
    description:
      "the refusals silent-on-errors leaves unanswered are held, a quarter of the claim's timeoutMs (--timeout-ms), and released newest first; everything else (a fence too) is answered at once, overtaking them. JSON-RPC allows replies out of order: a correct backend, it fails nothing",
    timeoutMs: 'needed',
  },
  'duplicate-silent': {
    targets: ['ti.duplicate-answered'],
    description: 'the second and later delivery of an event id get no reply at all',
  },
  'deny-once': {
    targets: ['ti.state-independent'],
    description:
      'a tool name and input is denied once per process: a later event (another event id) for the same tool and input gets effects []',
  },
  'wrong-id-late': {
    targets: ['stdio.persistent-exchanges'],
    description: 'from the 20th success reply of a process on, replies carry the id "<id>-late" (a string)',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  'log-errors-on-stdout': {
    targets: ['stdio.stdout-clean'],
    description:
      'after each JSON-RPC error reply, a log line "reference backend: answered with error <code>" follows on stdout',
    transport: 'stdio',
  },
  'error-status-400': {
    targets: ['http.error-status'],
    description: 'JSON-RPC error responses are sent with HTTP status 400',
    transport: 'http',
  },
  'configuration-empty': {
    targets: ['base.configuration'],
    description: 'hooks/configuration is answered with configuration {subscriptions: []}',
    snapshot: 'draft@1d98c19',
    configuration: 'served',
  },
  'configuration-with-effects': {
    targets: ['base.configuration'],
    description: 'the hooks/configuration result also carries effects [] (draft@1d98c19 keeps effects out of it)',
    snapshot: 'draft@1d98c19',
    configuration: 'served',
  },
  'configuration-unoffered-wrong-code': {
    targets: ['base.configuration-unoffered'],
    description: 'serving no configuration, hooks/configuration gets error -32600 (invalid request) instead of -32601',
    snapshot: 'draft@1d98c19',
    configuration: 'not-served',
  },
  'omit-effects': {
    targets: ['ti.result-valid'],
    description:
      'a result with no effect leaves out the effects member (draft@1d98c19 allows it, draft@2b5da580 requires it)',
    snapshot: 'draft@2b5da580',
  },
  'result-configuration': {
    targets: ['ti.result-valid'],
    description:
      'every intercept result also carries the backend configuration (draft@1d98c19 keeps it out of results)',
    snapshot: 'draft@1d98c19',
  },
  // The content modes run on one target in the fault matrix (test/faults.spec.ts placement):
  // the content rules do not depend on the transport.
  'noncanonical-modify': {
    targets: everyBoundary('canonical-edits'),
    description:
      'where the content is shown inline and both operations are advertised, the modify value is of the wrong kind (bare parts repeating the role for message lists, an object for text parts, a list for elicitation content and workspace), and user.elicitation.request gets a modify',
  },
  'edit-hidden': {
    targets: everyBoundary('hidden-untouched'),
    description:
      'content shown in a metadata view (or withheld with a gap) is edited as if shown; a list with an attachment is replaced with the attachment reference swapped, a list with hidden text is replaced',
  },
  'unadvertised-modify': {
    targets: everyBoundary('advertised-edits'),
    description:
      'where modify or an operation is not advertised, the content is merged anyway (at user.elicitation.request, with no effect advertised, a modify is sent)',
  },
  // ---- issue 15 B: the content-upload receiver (HTTP only)
  'upload-lenient-receiver': {
    targets: ['upload.receiver-rejects'],
    description:
      'the upload receiver ignores framing: a wrong or missing AHP-Content-SHA256, a wrong Content-Type, a chunked body or an oversized body still gets a 201 receipt',
    transport: 'http',
  },
  'upload-receipt-mismatch': {
    targets: ['upload.receiver-receipt'],
    description: "the upload receipt's sha256 is the digest of the reference it allocates, not of the bytes received",
    transport: 'http',
  },
  'upload-receiver-anonymous': {
    targets: ['upload.receiver-auth'],
    description:
      'the upload receiver ignores credentials: an upload without a token, or with a wrong one, gets its receipt',
    transport: 'http',
  },
  'upload-receiver-event-token': {
    targets: ['upload.receiver-auth'],
    description: "the upload receiver also takes the event endpoint's bearer token as upload credentials",
    transport: 'http',
  },
  // ---- issue 24: OAuth tokens a resource server must refuse, and decisions replayed across requests
  'oauth-any-typ': {
    targets: ['auth.token-binding'],
    description:
      'with --auth oauth, the JOSE header typ is not checked: a token of the trusted issuer typed "JWT" (not an access token) is accepted',
    transport: 'http',
    oauth: true,
  },
  'oauth-no-aud-accepted': {
    targets: ['auth.token-binding'],
    description:
      'with --auth oauth, a token of the trusted issuer without an aud claim is accepted (one naming another audience is not)',
    transport: 'http',
    oauth: true,
  },
  'oauth-trust-jwk': {
    targets: ['auth.refuses-wrong-credentials'],
    description:
      "with --auth oauth, a token the issuer's keys refuse is verified with the public key in its own jwk header",
    transport: 'http',
    oauth: true,
  },
  'oauth-trust-jku': {
    targets: ['auth.refuses-wrong-credentials'],
    description:
      "with --auth oauth, a token the issuer's keys refuse is verified with the key set fetched from its own jku header (over HTTPS trusting the CA file)",
    transport: 'http',
    oauth: true,
  },
  'oauth-trust-x5c': {
    targets: ['auth.refuses-wrong-credentials'],
    description:
      "with --auth oauth, a token the issuer's keys refuse is verified with the key of the first certificate in its own x5c header (no chain to a trusted root)",
    transport: 'http',
    oauth: true,
  },
  'replay-decision': {
    targets: ['ti.state-independent'],
    description:
      'the effects last returned for a tool call (event type, tool name and input) are returned again for a later request with the same call whose answer would differ, even where that request does not advertise them',
  },
} as const satisfies Record<string, BackendFaultSpec>;

export type FaultMode = keyof typeof FAULTS;

const table = faultModes(FAULTS);
export const FAULT_MODES: FaultMode[] = table.modes;
export const isFaultMode: (value: string) => value is FaultMode = table.isMode;

export function faultSpec(mode: FaultMode): BackendFaultSpec {
  return FAULTS[mode];
}

/** Why a mode cannot run on this binding (or with this configuration service), or undefined when it can. */
export function faultMismatch(
  mode: FaultMode,
  transport: FaultTransport,
  lifecycle: FaultLifecycle | undefined,
  serves: { readonly configuration: boolean } = { configuration: false },
): string | undefined {
  const spec: BackendFaultSpec = FAULTS[mode];
  if (spec.transport && spec.transport !== transport)
    return `fault ${mode} applies to --transport ${spec.transport} only`;
  if (spec.lifecycle && spec.lifecycle !== lifecycle)
    return `fault ${mode} applies to --lifecycle ${spec.lifecycle} only`;
  if (spec.configuration === 'served' && !serves.configuration)
    return `fault ${mode} needs hooks/configuration served (--snapshot draft@1d98c19 without --no-configuration)`;
  if (spec.configuration === 'not-served' && serves.configuration)
    return `fault ${mode} needs --snapshot draft@1d98c19 --no-configuration`;
  return undefined;
}
