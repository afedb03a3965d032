// The fault table of the reference harness: each mode breaks exactly one rule of a
// conforming harness and leaves everything else conforming. `targets` names the check
// ids (src/checks/catalogue.ts) expected to fail when the mode is on, so the harness-side
// suites can be tested against a harness that is known to be wrong in one place.
//
// `transport` / `lifecycle` say where a mode's rule lives. The command line accepts every
// mode whatever the registration holds (the config is read after the arguments); a mode
// whose binding the registration does not use simply changes nothing.

import { faultModes, type FaultLifecycle, type FaultSpec, type FaultTransport } from '../fault-table.js';
import { FaultProbe } from '../fault-probe.js';
import { BOUNDARIES, contentCheckId, type HarnessAspect } from '../../src/checks/boundaries.js';

/** The harness content checks of one aspect at every boundary (`withTarget`: only boundaries with a modify target). */
function CONTENT_CHECKS(aspect: HarnessAspect, withTarget = false): string[] {
  return BOUNDARIES.filter((b) => !withTarget || b.target !== undefined).map((b) => contentCheckId(b, aspect));
}

export type { FaultLifecycle, FaultSpec, FaultTransport };

export const FAULTS = {
  'jsonrpc-1': {
    targets: ['base.harness-jsonrpc'],
    description: 'every message says "jsonrpc":"1.0"',
  },
  'version-0.1': {
    targets: ['base.harness-version'],
    description: 'params.protocolVersion is "0.1"',
  },
  'strict-result-fields': {
    targets: ['base.unknown-result-fields'],
    description: 'a result with members other than protocolVersion and effects is treated as an operational failure',
  },
  'ignore-unknown-effects': {
    targets: ['base.unknown-effect'],
    description: 'unknown or unadvertised effects are dropped and the rest of the list is applied',
  },
  'lenient-effect-fields': {
    targets: ['base.effect-unknown-field'],
    description: 'unknown members inside effect objects are stripped before validation',
  },
  'bare-extension-key': {
    targets: ['base.harness-extension-keys'],
    description: 'every event carries extensions {"trace": "ref-1"}',
  },
  'skip-registration-validation': {
    targets: ['base.registration-validated'],
    description:
      'the registration is not validated; it is used as far as it goes and hooks whose transport cannot be used are skipped',
  },
  'loose-dispatch': {
    targets: ['base.exact-dispatch'],
    description:
      "a subscription's events list is ignored: every event goes to every subscription whose mode matches the method",
  },
  'retry-new-id': {
    targets: ['base.retry-identity'],
    description: 'a retry uses a fresh event id (and so a fresh JSON-RPC id)',
  },
  'no-harness-version': {
    targets: ['base.harness-metadata'],
    description:
      'events other than session.start omit harness (a profile rule in 2b5da580, a wire rule in 1d98c19: the matrix runs it under both)',
  },
  'no-effect-grants': {
    targets: ['base.no-weakening'],
    description:
      'when every interceptor called answered with no effect, the tool runs even if the host would refuse or deny it',
  },
  'input-as-string': {
    targets: ['ti.intercept-request'],
    description: 'in hooks/intercept, tool.input is sent as a JSON-encoded string (observations unchanged)',
  },
  'id-differs': {
    targets: ['ti.request-id'],
    description: 'the JSON-RPC id of an intercept is rpc-<n> instead of the event id (replies are correlated by it)',
  },
  'no-deny-capability': {
    targets: ['ti.capabilities-deny'],
    description: 'capabilities.effects is ["modify"] (a deny is still honoured; only the advertisement is wrong)',
  },
  'concurrent-interceptors': {
    targets: ['ti.serial-order'],
    description: 'all matching interceptors are sent the request at once; their results are then applied in order',
  },
  'deny-continues-chain': {
    targets: ['ti.deny-stops'],
    description: 'after a deny the remaining interceptors are still called (the call stays denied)',
  },
  'retry-after-decision': {
    targets: ['ti.no-retry-after-decision'],
    description:
      'an intercept answered with deny or no effect is sent once more (identical bytes); the second answer is ignored',
  },
  'merge-drops-null': {
    targets: ['ti.modify-input'],
    description: 'an input merge deletes the keys whose merge value is null',
  },
  'partial-modify': {
    targets: ['ti.modify-atomic'],
    description:
      'modify effects are applied one by one until the first invalid one; those before it stay applied, then the failure policy applies',
  },
  'fail-closed-continues': {
    targets: ['ti.failure-policy'],
    description: 'fail-closed subscriptions behave like fail-open',
  },
  'no-deadline': {
    targets: ['ti.deadline'],
    description: 'waits for a reply however late (bounded only by 30 s) and uses it',
  },
  'observe-with-id': {
    targets: ['lo.notification-shape'],
    description: 'hooks/observe messages carry an "id"',
  },
  'observer-failure-denies': {
    targets: ['lo.observer-isolation'],
    description:
      'tool.before observations are sent before the intercept chain and awaited; a failed delivery denies the call (denied-by-failure-policy)',
  },
  'new-call-id-after': {
    targets: ['lo.call-identity'],
    description: 'tool.after carries a fresh call id',
  },
  'observe-original-input': {
    targets: ['lo.effective-content'],
    description: 'tool.after and tool.before observations carry the originally requested input, not the effective one',
  },
  'pretty-frames': {
    targets: ['stdio.harness-framing'],
    description: 'messages on stdin are pretty-printed with 2-space indentation (still followed by a newline)',
    transport: 'stdio',
  },
  'shell-launch': {
    targets: ['stdio.literal-args'],
    description: 'backends are spawned through /bin/sh -c with command and args joined by spaces, unquoted',
    transport: 'stdio',
  },
  'lenient-framing': {
    targets: ['stdio.framing-rejected'],
    description: 'non-JSON stdout lines are skipped and multi-line replies are reassembled until they parse',
    transport: 'stdio',
  },
  'respawn-per-event': {
    targets: ['stdio.persistent-reuse'],
    description: 'persistent backends get a new process per message (stdin closed after each message)',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  'pipelined-intercepts': {
    targets: ['stdio.one-outstanding'],
    description: 'no per-backend queue: concurrent tool calls write their intercepts to a persistent backend at once',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  'per-event-no-eof': {
    targets: ['stdio.per-event-eof'],
    description:
      'stdin is not closed after the message; the process is killed once its reply is read (observations: after 500 ms)',
    transport: 'stdio',
    lifecycle: 'per_event',
  },
  'http-text-plain': {
    targets: ['http.post-json'],
    description: 'requests carry Content-Type: text/plain',
    transport: 'http',
  },
  'follow-redirects': {
    targets: ['http.no-redirect'],
    description: '3xx answers with a Location are followed (the POST is resent to the new URL, up to 3 times)',
    transport: 'http',
  },
  'token-leak': {
    targets: ['http.bearer'],
    description: 'prints "reference-harness: using bearer token <token>" to stderr before each request',
    transport: 'http',
  },
  'accept-unportable-auth': {
    targets: ['auth.portable-mechanisms'],
    description:
      'a hook whose authentication is neither bearer nor oauth is accepted; the authentication is dropped and the hook used without it',
    transport: 'http',
  },
  'oauth-no-resource': {
    targets: ['auth.oauth-client-credentials'],
    description:
      'the token request leaves out the RFC 8707 resource parameter (the token it gets is not for the endpoint, so it is refused and nothing is sent)',
    transport: 'http',
  },
  'challenge-unauthenticated-retry': {
    targets: ['auth.challenge'],
    description:
      'a 401 from an endpoint without authentication is answered by sending the event again, still unauthenticated',
    transport: 'http',
  },
  'oauth-unchecked-token': {
    targets: ['auth.token-validation'],
    description:
      'the OAuth client checks neither the metadata issuer nor the token (audience, scope, expiry): whatever token it gets is used',
    transport: 'http',
  },
  'oauth-trust-any-certificate': {
    targets: ['auth.token-validation'],
    description: "the OAuth client accepts any server certificate (not only the config's CA)",
    transport: 'http',
  },
  'oauth-unauthenticated-fallback': {
    targets: ['auth.no-fallback'],
    description: 'when no token can be obtained, the event is sent without an Authorization header',
    transport: 'http',
  },
  'oauth-unbounded-acquisition': {
    targets: ['auth.acquisition-deadline'],
    description:
      "token acquisition waits up to 10 minutes for the authorization server, whatever the intercept's deadline",
    transport: 'http',
  },
  // ---- issue 24: a bearer-only harness (--authentication bearer; the fault matrix runs these
  // modes in that shape). A harness without OAuth is judged by its refusal of oauth bindings.
  'unsupported-oauth-unauthenticated': {
    targets: [
      'auth.oauth-client-credentials',
      'auth.token-validation',
      'auth.no-fallback',
      'auth.acquisition-deadline',
    ],
    description:
      'bearer-only: a hook bound with oauth (which it does not support) is used without authentication: its events are sent with no Authorization header',
    transport: 'http',
  },
  'oauth-declared-unsupported': {
    targets: ['auth.oauth-client-credentials'],
    description:
      'bearer-only: the session.start manifest lists authentication [bearer, oauth], yet oauth bindings are refused (nothing is sent for them)',
    transport: 'http',
  },
  // ---- issue 10: faults that earlier checks let pass
  'chain-original-input': {
    targets: ['ti.modify-input'],
    description:
      'a later interceptor is sent the originally requested input, not the input as edited by those before it (the edits still chain into the executed input)',
  },
  'deadline-4x': {
    targets: ['ti.deadline'],
    description: 'a reply after timeoutMs is ignored, but the failure policy is applied only at 4 x timeoutMs',
  },
  'late-reply-accepted': {
    targets: ['ti.deadline'],
    description:
      'a reply that comes up to one more timeoutMs after the deadline is still used (the failure policy applies at 2 x timeoutMs)',
  },
  'await-observers': {
    targets: ['lo.observer-isolation'],
    description:
      'the tool runs only once its tool.before observations are delivered (awaited without a limit of its own, capped at 30 s); the outcome is unchanged',
  },
  'eof-after-reply': {
    targets: ['stdio.per-event-eof'],
    description:
      'per_event intercepts: stdin is closed only after the reply line was read (observations: right after the message)',
    transport: 'stdio',
    lifecycle: 'per_event',
  },
  'no-deny-when-host-refuses': {
    targets: ['ti.capabilities-deny'],
    description:
      'capabilities.effects is [] on intercepts of calls the host will ask about or deny (a deny is still honoured)',
  },
  'adapter-identity': {
    targets: ['base.harness-metadata'],
    description: 'events name the adapter ("reference-harness-adapter") instead of the harness the report names',
  },
  'subscriptions-optional': {
    targets: ['base.registration-validated'],
    description:
      'a hook without a subscriptions member is accepted as subscribing to nothing (valid in the newer snapshot 1d98c19, not in 2b5da580)',
  },
  'framing-timeout': {
    targets: ['stdio.framing-rejected'],
    description:
      'a reply line that is not JSON is not rejected: the rest of that reply is ignored and the intercept runs into its deadline (then the failure policy applies)',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  'retire-after-timeout': {
    targets: ['ti.failure-policy'],
    description:
      'after an intercept times out, the persistent backend is retired and the next intercept to that hook fails locally without being sent',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  'no-recovery-after-malformed': {
    targets: ['ti.failure-policy'],
    description:
      'after a reply line that is not JSON, every later reply of that persistent backend is treated as malformed (intercepts are still sent)',
    transport: 'stdio',
    lifecycle: 'persistent',
  },
  // ---- issue 13: what draft@1d98c19 adds (these modes run against a 1d98c19 claim)
  'unconfigured-observes-all': {
    targets: ['base.configuration-request'],
    description:
      'a backend registered without subscriptions is never asked hooks/configuration; it is sent every event as an observation',
    snapshot: 'draft@1d98c19',
  },
  'configuration-extra-params': {
    targets: ['base.configuration-request'],
    description:
      'the hooks/configuration request carries params.harness beside protocolVersion (the 1d98c19 request schema allows nothing else)',
    snapshot: 'draft@1d98c19',
  },
  'configured-loose-dispatch': {
    targets: ['base.configuration-dispatch'],
    description:
      'the subscriptions a hooks/configuration reply gives are used without their events lists: every event goes to each of them in its mode',
    snapshot: 'draft@1d98c19',
  },
  'effects-required': {
    targets: ['ti.no-effects-result'],
    description: 'a result without effects is an operational failure (the 2b5da580 rule, kept under 1d98c19)',
    snapshot: 'draft@1d98c19',
  },
  'lenient-configuration': {
    targets: ['base.configuration-invalid'],
    description:
      'an invalid hooks/configuration reply is used as far as it goes: its subscriptions are kept, with defaults for what they lack',
    snapshot: 'draft@1d98c19',
  },
  // ---- issue 14: content boundaries (each breaks its rule at every boundary a claim lists)
  'noncanonical-content': {
    targets: CONTENT_CHECKS('canonical'),
    description:
      'body views of boundary content are not canonical: message parts repeat their role, text parts lack mediaType, structured values travel as a JSON part',
  },
  'hidden-text-leak': {
    targets: CONTENT_CHECKS('selection'),
    description:
      'subscription views are ignored: metadata and omit hooks are sent body text, and their edits are applied as if body-selected',
  },
  'non-atomic-edits': {
    targets: CONTENT_CHECKS('edits', true),
    description:
      'a content response whose later effect is rejected keeps its earlier valid effects applied (then the failure policy applies)',
  },
  'elicitation-request-modify': {
    targets: ['content.elicitation-request.edits'],
    description:
      'a modify answered at user.elicitation.request (never advertised) changes the request shown to the user',
  },
  // ---- issue 15 B: content upload (the upload checks run on the HTTP target; the upload binding is HTTP)
  'upload-chunked': {
    targets: ['upload.request'],
    description: 'uploads are sent with chunked transfer encoding and no Content-Length',
    transport: 'http',
  },
  'upload-follow-redirect': {
    targets: ['upload.no-redirect'],
    description: 'a 3xx answer to an upload is followed: the bytes are POSTed again to its Location',
    transport: 'http',
  },
  'upload-accept-unconfirmed': {
    targets: ['upload.receipt'],
    description:
      'any 2xx answer to an upload confirms it (202, 204, a receipt that does not match the bytes), with a local reference where none came',
    transport: 'http',
  },
  'upload-after-event': {
    targets: ['upload.before-event'],
    description:
      'the event is sent with the attachment as a gap and the upload happens after it (a failed upload then applies the failure policy)',
    transport: 'http',
  },
  'upload-event-credentials': {
    targets: ['upload.credentials'],
    description: "the event endpoint's bearer credential is sent to the upload endpoint, which has no upload.auth",
    transport: 'http',
  },
  'upload-all-attachments': {
    targets: ['upload.media'],
    description: 'text and JSON attachments are uploaded as well (they are still carried inline as text)',
    transport: 'http',
  },
  // ---- issue 24: content and upload faults the earlier checks let pass
  'modify-any-target': {
    targets: CONTENT_CHECKS('edits', true),
    description:
      "at a content boundary, a modify naming a target the intercept did not advertise is applied to the boundary's own target (the rest of its response with it)",
  },
  'short-circuit-second-copy': {
    targets: CONTENT_CHECKS('edits'),
    description:
      'after a deny or a fail-closed stop at a content boundary, the interceptors already called (the one that stopped the chain included) get the event again as hooks/observe',
  },
  'upload-twice': {
    targets: ['upload.request'],
    description:
      "each media attachment is uploaded twice: after the first POST is confirmed, the same bytes are POSTed again and the second receipt's ref is used",
    transport: 'http',
  },
} as const satisfies Record<string, FaultSpec>;

export type FaultMode = keyof typeof FAULTS;

const table = faultModes(FAULTS);
export const FAULT_MODES: FaultMode[] = table.modes;
export const isFaultMode: (value: string) => value is FaultMode = table.isMode;

export function faultSpec(mode: FaultMode): FaultSpec {
  return FAULTS[mode];
}

/** How harness code asks about its fault mode (reference/fault-probe.ts says why only this way). */
export type HarnessFault = FaultProbe<FaultMode>;
/** No mode, no tracing: for messages and events built outside a run (tests). */
export const NO_FAULT: HarnessFault = new FaultProbe<FaultMode>(undefined);
