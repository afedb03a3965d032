// The conformance check catalogue: one row per observable check, declared once.
// Suites look their checks up here; reports read titles, levels, requirements and
// profiles from here. A new check is more than its row: the requirement it judges
// (src/checks/requirements.ts, when new), its test in suites/<role>/, a fault mode that
// it catches (reference/<role>/faults.ts plus the broken behaviour in that reference
// implementation), and the counts in README.md (for a harness check, also the scenario
// table of docs/harness-adapter.md). CONTRIBUTING.md walks through it.
//
// Numbering of base checks follows the seed (Base Protocol profile, checks 1-9).
import type { SnapshotId } from '../protocol/snapshots.js';
import { BOUNDARIES, contentCheckId, type Boundary, type BoundaryEvent } from './boundaries.js';
import { REGISTRATION_CORPUS_MAX } from './registration-corpus.js';

export type Role = 'harness' | 'backend';
export type Transport = 'stdio' | 'http';
export type Lifecycle = 'persistent' | 'per_event';
export type Level = 'MUST' | 'SHOULD';
export type ProfileId = 'base' | 'tool-interception' | 'lifecycle-observation' | 'stdio' | 'http';

/** Capability profiles a claim may list; base and the bindings follow from role and transports. */
export const CAPABILITY_PROFILES = ['tool-interception', 'lifecycle-observation'] as const;

/** The roles a claim covers, in the order they are certified (`both`: backend, then harness). */
export const claimRoles = (role: Role | 'both'): Role[] => (role === 'both' ? ['backend', 'harness'] : [role]);

export interface CheckSpec {
  readonly id: string;
  readonly title: string;
  readonly level: Level;
  readonly profile: ProfileId;
  readonly requirements: readonly string[];
  readonly roles: readonly Role[];
  /** Transports the check runs on (both unless it is binding-specific). */
  readonly transports: readonly Transport[];
  /** stdio lifecycles it runs on (both unless lifecycle-specific); ignored for http. */
  readonly lifecycles: readonly Lifecycle[];
  /** The seed's base check number, where the check implements one. */
  readonly seed?: number;
  /** What a pass means, in our words, for the report. */
  readonly expectation: string;
  /**
   * How many times the check starts the implementation, where that is more than a few:
   * its time limit grows by a per-launch allowance (suites/support/check.ts), so a
   * loaded machine slows it down without failing it, and a hung implementation still
   * meets a deadline.
   */
  readonly launches?: number;
  /**
   * The claim's backend samples of this kind the check exercises: with none, the plan
   * declares it not applicable instead of running it (src/engine/plan.ts).
   */
  readonly samples?: 'deny' | 'modify';
  /**
   * The snapshots whose rule the check judges (src/protocol/snapshots.ts), where not all:
   * for a claim of another snapshot the plan declares it not applicable, with the reason.
   */
  readonly snapshots?: readonly SnapshotId[];
  /**
   * Backend checks of `hooks/configuration`: whether the claim must say the backend serves
   * it (`backend.configuration`) or must not; the plan declares the check not applicable
   * to the other claims.
   */
  readonly configuration?: 'served' | 'not-served';
  /**
   * Content checks (src/checks/boundaries.ts): the boundary event the check exercises. The
   * plan declares it not applicable to a harness claim that does not list the event in
   * `harness.boundaries`, and to a backend claim without a content sample of the event.
   */
  readonly boundary?: BoundaryEvent;
  /**
   * Backend authentication checks: they judge a backend whose claim says it requires
   * credentials (`backend.http.auth`); the plan declares them not applicable to the others.
   * `oauth`: only a backend whose claim says it is OAuth-protected (`auth.type: oauth`).
   * `upload`: only a backend whose upload receiver requires its own token (`backend.upload.auth`).
   */
  readonly auth?: 'claimed' | 'oauth' | 'upload';
  /**
   * Content-upload checks: the plan declares them not applicable to a harness claim without
   * `harness.uploads`, and to a backend claim without an upload receiver (`backend.upload`).
   */
  readonly uploads?: true;
}

const BOTH_T: Transport[] = ['stdio', 'http'];
const BOTH_L: Lifecycle[] = ['persistent', 'per_event'];

function check(
  spec: Omit<CheckSpec, 'transports' | 'lifecycles' | 'roles'> &
    Partial<Pick<CheckSpec, 'transports' | 'lifecycles' | 'roles'>>,
): CheckSpec {
  return { roles: ['backend'], transports: BOTH_T, lifecycles: BOTH_L, ...spec };
}

/** A harness-role check: the runner plays the backend. */
function hcheck(
  spec: Omit<CheckSpec, 'transports' | 'lifecycles' | 'roles'> & Partial<Pick<CheckSpec, 'transports' | 'lifecycles'>>,
): CheckSpec {
  return check({ ...spec, roles: ['harness'] });
}

const CHECKS_WITHOUT_CONTENT: readonly CheckSpec[] = [
  // ---------------------------------------------------------------- base (backend side)
  check({
    id: 'base.jsonrpc-utf8',
    seed: 1,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-RPC-001'],
    title: 'Every emitted message is UTF-8 JSON-RPC 2.0',
    expectation: 'each reply is valid UTF-8, parses as one JSON object (no batch) and is a JSON-RPC 2.0 response',
  }),
  check({
    id: 'base.protocol-version',
    seed: 2,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-VER-001'],
    title: 'Successful results carry protocolVersion "draft"',
    expectation: 'result.protocolVersion is exactly "draft"',
  }),
  check({
    id: 'base.unsupported-version',
    seed: 2,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-VER-001', 'AHP-CORE-003'],
    title: 'An unsupported protocolVersion gets error -32001',
    expectation:
      'a request with params.protocolVersion "1999-01-01" gets a JSON-RPC error with code -32001 and the request id',
  }),
  check({
    id: 'base.unknown-fields',
    seed: 3,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-003'],
    title: 'Unknown fields in open objects do not change the result',
    expectation:
      'an unknown member in each open object of a request (the message, params, the event envelope, the session, capabilities and an advertised modify target), one object at a time and all at once, gives the same result as the clean request',
  }),
  check({
    id: 'base.unknown-event',
    seed: 3,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-003'],
    title: 'An unknown event type gets error -32002',
    expectation:
      'requests whose event type is not defined (a reverse-DNS name, a new member of a known family such as tool.somethingNew, a defined name in other case, a bare word) each get a JSON-RPC error with code -32002 and the request id',
  }),
  check({
    id: 'base.extension-keys',
    seed: 4,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-EXT-001'],
    title: 'Extension keys and deny codes use reverse-DNS names',
    expectation: 'every extensions key in a result (and every deny code) is a reverse-DNS name',
  }),
  check({
    id: 'base.unknown-method',
    seed: 7,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-RPC-001', 'AHP-RPC-002'],
    title: 'An unknown method gets a JSON-RPC error',
    expectation:
      'requests for method "hooks/bogus" with a string id and with integer ids each get a JSON-RPC error object (integer code, string message) carrying the request id unchanged, of the same JSON type',
  }),
  check({
    id: 'base.notification-silence',
    seed: 7,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-RPC-002'],
    title: 'No reply to any notification',
    expectation:
      'notifications with an unsupported version, an unknown event, an unknown method, or malformed params or event (no params, no event, an event that is not an object or lacks required members, hooks/intercept without an id) get no reply at all',
  }),
  check({
    id: 'base.invalid-params',
    seed: 7,
    level: 'SHOULD',
    profile: 'base',
    requirements: ['AHP-CORE-003'],
    title: 'Structurally invalid params get a JSON-RPC error',
    expectation: 'a hooks/intercept request whose params lack the event gets a JSON-RPC error with the request id',
  }),
  check({
    id: 'base.unparseable-input',
    seed: 7,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-RPC-001'],
    title: 'Bytes that do not parse get -32700 with id null, or no reply',
    expectation: 'input that is not JSON gets either no reply or a JSON-RPC error -32700 with id null',
  }),
  check({
    id: 'base.no-secret-leak',
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-SEC-001'],
    transports: ['http'],
    title: 'Replies never carry credentials',
    expectation:
      'neither the bearer token the runner sends nor a wrong canary token (refused where the backend requires authentication) appears in any reply body, header, error message or error data',
  }),
  // draft@1d98c19 adds hooks/configuration. Nothing on the wire says whether a backend serves
  // it (capabilities describe a harness), so the claim does (`backend.configuration`), and
  // exactly one of these two runs: src/engine/plan.ts declares the other not applicable.
  check({
    id: 'base.configuration',
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-RPC-001', 'AHP-VER-001'],
    snapshots: ['draft@1d98c19'],
    configuration: 'served',
    title: 'hooks/configuration gets a valid configuration result',
    expectation:
      'a backend whose claim says it serves hooks/configuration answers it with a success response carrying the request id, valid against the snapshot’s configuration-response schema (protocolVersion, at least one valid intercept or observe subscription, no manifest or effects)',
  }),
  check({
    id: 'base.configuration-unoffered',
    level: 'SHOULD',
    profile: 'base',
    requirements: ['AHP-RPC-001'],
    snapshots: ['draft@1d98c19'],
    configuration: 'not-served',
    title: 'hooks/configuration, where not served, gets error -32601',
    expectation:
      'a backend whose claim does not say it serves hooks/configuration answers it with a JSON-RPC error -32601 (method not found) carrying the request id',
  }),
  // ---------------------------------------------------------------- tool interception (backend side)
  check({
    id: 'ti.result-valid',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-DEC-001', 'AHP-RPC-002'],
    title: 'A tool.before interception gets a valid intercept result',
    expectation: 'exactly one success response whose result is valid against the intercept-response schema',
  }),
  check({
    id: 'ti.response-id',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-RPC-001', 'AHP-RPC-002'],
    title: 'The response id equals the request id',
    expectation: 'the response carries the same JSON-RPC id, of the same JSON type, as the request',
  }),
  check({
    id: 'ti.advertised-effects',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-CAP-001', 'AHP-DEC-001'],
    title: 'Only advertised effects are returned',
    expectation:
      "every returned effect type is in the request's capabilities.effects, also when a sample that would deny is sent with no effects advertised",
  }),
  check({
    id: 'ti.deny-samples',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-DEC-001', 'AHP-DEC-002'],
    samples: 'deny',
    title: "The claim's deny samples are denied with a valid deny effect",
    expectation: 'each deny sample gets a result holding a schema-valid deny with a non-empty reason',
  }),
  check({
    id: 'ti.modify-samples',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-EDIT-001', 'AHP-CAP-001', 'AHP-CONTENT-001'],
    samples: 'modify',
    title: 'Modify effects fit the advertised target, operation and value shape',
    expectation:
      'each modify sample gets modify effects the harness could apply: advertised target and operation, canonical value shape (seed edit checks 1-6)',
  }),
  check({
    id: 'ti.duplicate-delivery',
    level: 'SHOULD',
    profile: 'tool-interception',
    requirements: ['AHP-CORE-004'],
    title: 'A duplicate delivery of the same event gets the same answer',
    expectation:
      "sending the same request twice gives semantically equal results (an error or no reply to the duplicate is ti.duplicate-answered's)",
  }),
  check({
    id: 'ti.duplicate-answered',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-CORE-004', 'AHP-RPC-002'],
    title: 'A duplicate delivery of the same event is answered with a result',
    expectation:
      'the same request sent twice gets a success result both times: no JSON-RPC error and no silence for the duplicate',
  }),
  check({
    id: 'ti.state-independent',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-DEC-001', 'AHP-DEC-002'],
    lifecycles: ['persistent'],
    title: 'Earlier decisions in the same process do not change later answers',
    expectation:
      "in one process, a harmless call, the claim's deny and modify samples, each asked again as a new call after the others were decided, get the same effect types as the first time; then the deny sample with only allow advertised and the modify sample with only allow and deny advertised, each asked again as a new call, get only effects their own request advertises (none, allow, or deny for the modify sample; a JSON-RPC error is no effect)",
  }),
  // ---------------------------------------------------------------- lifecycle observation (backend side)
  check({
    id: 'lo.observe-silence',
    level: 'MUST',
    profile: 'lifecycle-observation',
    requirements: ['AHP-RPC-002'],
    title: 'Valid hooks/observe notifications get no reply',
    expectation: 'valid tool.after, session.start and session.end observations get no JSON-RPC response',
  }),
  // ---------------------------------------------------------------- stdio binding
  check({
    id: 'stdio.framing',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    title: 'One JSON object per line on stdout',
    expectation:
      'every stdout line is one complete JSON-RPC object ended by LF (no pretty-printing, no oversized line)',
  }),
  check({
    id: 'stdio.stdout-clean',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    title: 'Nothing but protocol messages on stdout',
    expectation:
      'no banner, log or progress output on stdout at start-up, between exchanges or on error paths (unknown method, unsupported version, unknown event, invalid params, unparseable input, a malformed notification); stderr is free',
  }),
  check({
    id: 'stdio.persistent-exchanges',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    lifecycles: ['persistent'],
    title: 'A persistent process answers a long run of exchanges',
    expectation:
      '50 sequential intercepts on one process each get exactly one reply with the matching id and the same result as the first request of the same content, and the process stays up',
  }),
  check({
    id: 'stdio.per-event-exit',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    lifecycles: ['per_event'],
    title: 'A per_event process replies at most once and exits 0',
    expectation:
      'after one request and end of input: exactly one reply line, then exit status 0; after a notification: no output and an exit',
  }),
  // ---------------------------------------------------------------- http binding
  check({
    id: 'http.intercept-response',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001'],
    transports: ['http'],
    title: 'Requests get 200 with a JSON body holding one JSON-RPC object',
    expectation: 'status 200, Content-Type application/json (parameters allowed), body one JSON-RPC response object',
  }),
  check({
    id: 'http.observe-empty',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001'],
    transports: ['http'],
    title: 'Notifications get 202 or 204 with an empty body',
    expectation: 'a hooks/observe POST gets status 202 or 204 and no body',
  }),
  check({
    id: 'http.error-status',
    level: 'SHOULD',
    profile: 'http',
    requirements: ['AHP-HTTP-001'],
    transports: ['http'],
    title: 'JSON-RPC errors travel with status 200',
    expectation: 'a JSON-RPC error response is sent with HTTP status 200 (another status is a warning)',
  }),
  // ================================================================ harness role
  // The runner plays the backend (scripted backend, drivers/scripted-backend/) and drives
  // the harness through its adapter (docs/harness-adapter.md). Execution and edits are
  // judged from the sentinel tool's marker files, never from what the harness says.
  // ---------------------------------------------------------------- base (harness side)
  hcheck({
    id: 'base.harness-jsonrpc',
    seed: 1,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-RPC-001', 'AHP-RPC-002'],
    title: 'Every message the harness sends is UTF-8 JSON-RPC 2.0',
    expectation:
      'each frame is valid UTF-8 and one JSON object with jsonrpc "2.0" that is a JSON-RPC request or notification (a method, and a string or number id when present)',
  }),
  hcheck({
    id: 'base.harness-version',
    seed: 2,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-VER-001'],
    title: 'Every request and notification carries protocolVersion "draft"',
    expectation: 'params.protocolVersion is exactly "draft" in every hooks/intercept and hooks/observe',
  }),
  hcheck({
    id: 'base.unknown-result-fields',
    seed: 3,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-003'],
    title: 'Unknown members of a result are ignored',
    expectation:
      'a deny whose result also carries unknown members is still honoured (the subscription is fail-open, so rejecting the result would let the tool run)',
  }),
  hcheck({
    id: 'base.unknown-effect',
    seed: 3,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-003', 'AHP-CAP-001'],
    title: 'An unknown or unadvertised effect is an operational failure',
    expectation:
      'a deny listed with an unknown effect type, or with a defined effect the request did not advertise, is not salvaged: the response is rejected as a whole and the fail-open policy lets the tool run',
  }),
  hcheck({
    id: 'base.effect-unknown-field',
    seed: 3,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-003'],
    title: 'An effect with an unknown member rejects the whole response',
    expectation:
      'a deny effect carrying an unknown member is not honoured: the response is rejected as a whole and the fail-open policy lets the tool run with its original input',
  }),
  hcheck({
    id: 'base.harness-extension-keys',
    seed: 4,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-EXT-001'],
    title: 'Extension keys in events use reverse-DNS names',
    expectation: 'every key of every extensions object the harness sends is a reverse-DNS name',
  }),
  hcheck({
    id: 'base.registration-validated',
    seed: 5,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-REG-001', 'AHP-REG-002'],
    title: 'Invalid registrations are refused before use',
    launches: REGISTRATION_CORPUS_MAX + 1, // the corpus (of the claim's snapshot) plus the valid control
    expectation:
      'for every document of the invalid-registration corpus the harness refuses the registration (exit status non-zero or a "rejected" report) and no backend receives anything',
  }),
  hcheck({
    id: 'base.exact-dispatch',
    seed: 5,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-REG-002'],
    title: 'Events go only to exact event-name subscriptions of the matching mode',
    expectation:
      'an observe subscription gets only hooks/observe of its events, an intercept subscription only hooks/intercept of its events, and an unsubscribed event is sent to nobody',
  }),
  hcheck({
    id: 'base.retry-identity',
    seed: 6,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-004', 'AHP-FAIL-002'],
    title: 'A retried intercept keeps its identity and content',
    expectation:
      'after a retryable failure, a retry (optional) has the same JSON-RPC id, event id, session id, call id and identical event content, inside the original deadline',
  }),
  hcheck({
    id: 'base.harness-metadata',
    seed: 8,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CORE-003'],
    title: 'Every event names the originating harness',
    expectation:
      'every event carries harness.name and harness.version as non-empty strings, also without a preceding session.start, naming the harness the adapter report names (not the adapter)',
  }),
  hcheck({
    id: 'base.no-weakening',
    seed: 9,
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-SEC-001', 'AHP-DEC-003'],
    title: 'No AHP result weakens host authorization',
    expectation:
      'with every interceptor answering no effect, a call the host would refuse (ask and refuse, or deny) still does not run, and an allowed call runs',
  }),
  // draft@1d98c19 server-driven configuration (hooks/configuration). No 1d98c19 requirement
  // text is published: the dispatch rule is 2b5da580's AHP-REG-002 (borrowed), applied to the
  // subscriptions the backend gave; what to do with a bad reply is our SHOULD.
  hcheck({
    id: 'base.configuration-request',
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-REG-002'],
    snapshots: ['draft@1d98c19'],
    title: 'A backend registered without subscriptions is asked hooks/configuration before any event',
    expectation:
      'the first message a backend registered without subscriptions receives is a valid hooks/configuration request (params: protocolVersion "draft" only); no event reaches it before; a harness that never asks (and so sends it nothing) gets a warning',
  }),
  hcheck({
    id: 'base.configuration-dispatch',
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-REG-002'],
    snapshots: ['draft@1d98c19'],
    title: 'Events go only to the subscriptions a hooks/configuration reply gave',
    expectation:
      'after a valid configuration reply (intercept tool.before; observe session.start and tool.after), the backend gets only those events in those modes (tool.before never observed, tool.after and session.start never intercepted, session.end not at all), and its deny is applied',
  }),
  hcheck({
    id: 'base.configuration-invalid',
    level: 'SHOULD',
    profile: 'base',
    requirements: ['AHP-REG-002'],
    snapshots: ['draft@1d98c19'],
    title: 'A backend whose configuration reply is invalid or an error gets no events',
    expectation:
      'after an invalid hooks/configuration reply (subscriptions lacking timeoutMs and failurePolicy, a result carrying effects) or a JSON-RPC error, nothing but the configuration request reaches that backend, and the other hooks still work',
  }),
  // ---------------------------------------------------------------- tool interception (harness side)
  hcheck({
    id: 'ti.intercept-request',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-TB-001', 'AHP-RPC-002', 'AHP-CAP-002'],
    title: 'One valid tool.before intercept per call, before the tool runs',
    expectation:
      'each tool call sends exactly one schema-valid hooks/intercept of tool.before with the final tool name and input object, and the tool has not run while the backend is deciding',
  }),
  hcheck({
    id: 'ti.request-id',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-CORE-004', 'AHP-RPC-001'],
    title: 'The JSON-RPC id equals the event id',
    expectation: 'every hooks/intercept has id equal to params.event.id, and different calls have different event ids',
  }),
  hcheck({
    id: 'ti.capabilities-deny',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-CAP-002'],
    title: 'Every tool.before intercept advertises deny',
    expectation:
      'params.capabilities.effects is a list that contains "deny" on every tool.before intercept: the typical session and calls the host allows, asks about or denies, parallel calls, and calls after an edit, a deny and a failure',
  }),
  hcheck({
    id: 'ti.serial-order',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-COMP-001'],
    title: 'Interceptors run serially in registration order',
    expectation:
      'with interceptors a, b, c registered in that order, each request arrives only after the previous interceptor answered, in the order a, b, c',
  }),
  hcheck({
    id: 'ti.deny-stops',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-DEC-002', 'AHP-COMP-001'],
    title: 'A valid deny stops the chain and the tool',
    expectation:
      'when b denies (fail-open and fail-closed subscriptions alike), c gets no hooks/intercept and the tool does not run',
  }),
  hcheck({
    id: 'ti.no-retry-after-decision',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-CORE-004', 'AHP-FAIL-002'],
    title: 'No retry after a deny or a no-effect result',
    expectation: 'a call answered with deny, or with an empty effect list, is sent to that interceptor exactly once',
  }),
  hcheck({
    id: 'ti.modify-input',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-EDIT-001', 'AHP-CAP-001'],
    title: 'modify of the tool input is applied exactly',
    expectation:
      'the sentinel runs with the input our applyModifyResponse computes: replace substitutes, merge is shallow and keeps null, and edits of two interceptors chain in order (the second interceptor is sent the input as the first edited it)',
  }),
  hcheck({
    id: 'ti.modify-atomic',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-EDIT-001', 'AHP-CORE-003'],
    title: 'An invalid later effect rejects every edit of the response',
    expectation:
      'a response whose second modify is invalid is rejected as a whole: under fail-open the tool runs with its original input',
  }),
  hcheck({
    id: 'ti.failure-policy',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-FAIL-001', 'AHP-COMP-001'],
    title: "Operational failures apply the subscription's failure policy",
    expectation:
      'for each failure class (a timeout among them), whose intercept provably reached the scripted backend: fail-open continues to the next interceptor and the tool runs; fail-closed denies the call, calls no later interceptor, and gives a generic reason; after each class a healthy call to the same hook is delivered and honoured; every failing phase is reported',
  }),
  hcheck({
    id: 'ti.deadline',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-FAIL-002', 'AHP-FAIL-001'],
    title: 'Deadlines are enforced and late replies ignored',
    expectation:
      'a reply that comes after timeoutMs is ignored: the failure policy decides, and the harness does not wait for the late reply',
  }),
  hcheck({
    id: 'ti.no-effects-result',
    level: 'MUST',
    profile: 'tool-interception',
    requirements: ['AHP-FAIL-001', 'AHP-COMP-001'],
    snapshots: ['draft@1d98c19'],
    title: 'A result without effects is no effect, not a failure',
    expectation:
      'under fail-closed, an intercept answered with a result that leaves out effects (valid in draft@1d98c19) lets the call continue: the next interceptor is called and the tool runs',
  }),
  // ---------------------------------------------------------------- lifecycle observation (harness side)
  hcheck({
    id: 'lo.notification-shape',
    level: 'MUST',
    profile: 'lifecycle-observation',
    requirements: ['AHP-RPC-002', 'AHP-VER-001'],
    title: 'Observations are schema-valid notifications without an id',
    expectation:
      'every hooks/observe is a JSON-RPC notification (no id) whose params validate against the observe-notification schema',
  }),
  hcheck({
    id: 'lo.observer-isolation',
    level: 'MUST',
    profile: 'lifecycle-observation',
    requirements: ['AHP-RPC-002', 'AHP-COMP-001'],
    title: 'A failing observer never affects the tool call',
    expectation:
      "an observer that fails, answers garbage or hangs neither denies nor holds up the tool call: with a hanging observer the tool runs as soon after the interceptor's reply as with a healthy one (within a tolerance measured in the same run)",
  }),
  hcheck({
    id: 'lo.call-identity',
    level: 'MUST',
    profile: 'lifecycle-observation',
    requirements: ['AHP-CORE-004', 'AHP-TB-001'],
    title: 'tool.after keeps the call identity of tool.before',
    expectation:
      'tool.after carries the call id of its tool.before; a denied call is reported with outcome "denied" and execution skipped for policy',
  }),
  hcheck({
    id: 'lo.effective-content',
    level: 'MUST',
    profile: 'lifecycle-observation',
    requirements: ['AHP-EDIT-001', 'AHP-RPC-002'],
    title: 'Observations carry the effective content after edits',
    expectation: 'the tool.after observation of a modified call carries the input the tool actually ran with',
  }),
  // ---------------------------------------------------------------- stdio binding (harness side)
  hcheck({
    id: 'stdio.harness-framing',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    title: 'The harness writes one JSON object per line',
    expectation:
      "every line on the backend's stdin is one complete JSON-RPC object ended by LF (no pretty-printing, no batches)",
  }),
  hcheck({
    id: 'stdio.literal-args',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    title: 'The backend command is started without a shell',
    expectation: 'arguments holding $HOME, ; and * reach the backend literally, exactly as the registration lists them',
  }),
  hcheck({
    id: 'stdio.framing-rejected',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001', 'AHP-FAIL-001'],
    transports: ['stdio'],
    title: 'Badly framed replies are operational failures',
    expectation:
      'a pretty-printed deny, or a deny after a banner line, is never honoured as a decision (fail-open: the tool runs), and is rejected as such: the tool runs about as soon after it as after a well-framed answer (within a tolerance measured in the same run), not at the deadline',
  }),
  hcheck({
    id: 'stdio.persistent-reuse',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    lifecycles: ['persistent'],
    title: 'A persistent backend process serves many events',
    expectation: 'all messages to a persistent backend arrive on one process',
  }),
  hcheck({
    id: 'stdio.one-outstanding',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001', 'AHP-COMP-001'],
    transports: ['stdio'],
    lifecycles: ['persistent'],
    title: 'At most one outstanding intercept per persistent backend',
    expectation:
      'with two tool calls issued at once, the second intercept reaches the persistent backend only after it answered the first',
  }),
  hcheck({
    id: 'stdio.per-event-eof',
    level: 'MUST',
    profile: 'stdio',
    requirements: ['AHP-STDIO-001'],
    transports: ['stdio'],
    lifecycles: ['per_event'],
    title: 'A per_event backend gets one message, then end of input',
    expectation:
      'every per_event backend process receives exactly one line and then EOF on stdin, before it answers (the scripted backend reads to end of input, bounded, before replying)',
  }),
  // ---------------------------------------------------------------- http binding (harness side)
  hcheck({
    id: 'http.post-json',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001'],
    transports: ['http'],
    title: 'Each message is one JSON POST to the exact URL',
    expectation:
      'method POST, the registered path and query unchanged, Content-Type application/json, one JSON object per body',
  }),
  hcheck({
    id: 'http.no-redirect',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-FAIL-001'],
    transports: ['http'],
    title: 'Redirects are not followed',
    expectation:
      'a 307 answer to an intercept is an operational failure: the redirect target gets no request and the failure policy applies',
  }),
  // ------------------------------------------------------------ authentication (backend)
  // A backend that claims bearer or OAuth authentication (backend.http.auth) refuses what
  // lacks a valid credential before it looks at the event (capability-auth.md, failure and timing).
  check({
    id: 'auth.refuses-unauthenticated',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-SEC-001'],
    transports: ['http'],
    auth: 'claimed',
    title: 'Requests without the credential are refused unprocessed',
    expectation:
      'an intercept with no Authorization header, or with the token only in the query string or the JSON body, gets HTTP 401 (400 for the token outside the header is accepted too) and no JSON-RPC result',
  }),
  check({
    id: 'auth.refuses-wrong-credentials',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-SEC-001'],
    transports: ['http'],
    auth: 'claimed',
    title: 'A wrong or duplicated credential is refused unprocessed',
    expectation:
      'an intercept (the first deny sample, where the claim gives one) with a wrong bearer token (for OAuth also JWTs for the endpoint signed by a key the issuer never published: plain, and pointing at their own key through a jwk header, a jku URL whose key set the runner serves, or an x5c self-signed certificate) gets HTTP 401 and no JSON-RPC result; with two Authorization headers (a wrong one and the right one) HTTP 400 or 401 and no result',
  }),
  check({
    id: 'auth.refusal-challenge',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001'],
    transports: ['http'],
    auth: 'claimed',
    title: 'A 401 carries a Bearer challenge',
    expectation:
      'every 401 (no credential, a wrong token) has a WWW-Authenticate header with a Bearer challenge; an error="invalid_token" for the wrong token is recommended (a warning note otherwise)',
  }),
  // An OAuth-protected backend (auth.type oauth): the runner is its authorization server
  // (drivers/auth/), and judges discovery (RFC 9728) and what its tokens are bound to (RFC 8707).
  check({
    id: 'auth.resource-metadata',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001'],
    transports: ['http'],
    auth: 'oauth',
    title: 'Protected-resource metadata names the resource and the issuer',
    expectation:
      "the 401's resource_metadata URL (without one: the RFC 9728 well-known locations, path-specific first, then the origin's) serves, without credentials, a JSON object whose resource is the endpoint URL and whose authorization_servers holds the runner's issuer",
  }),
  check({
    id: 'auth.token-binding',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-SEC-001'],
    transports: ['http'],
    auth: 'oauth',
    title: 'Tokens for another audience or none, expired, of another issuer or type, or without the scope are refused',
    expectation:
      'intercepts with a token of the runner\'s issuer for another resource (aud), one without aud, an expired one, one whose iss is another issuer, one whose JOSE header typ is "JWT" (RFC 9068 takes at+jwt or application/at+jwt only), and (where the claim names scopes) one without a required scope each get a 4xx and no JSON-RPC result; 401 with error="invalid_token" (403 error="insufficient_scope" for the scope) is recommended (a warning note otherwise)',
  }),
  hcheck({
    id: 'http.bearer',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-SEC-001'],
    transports: ['http'],
    title: 'The bearer token is sent once, in the header only',
    expectation:
      'every POST has exactly one Authorization: Bearer header with the token from tokenEnv, the token appears in no body and no adapter output, and with the variable unset nothing is sent',
  }),
  // ---------------------------------------------------------------- content upload (backend side)
  // Where a backend claims an upload receiver (`backend.upload`), served beside its HTTP endpoint.
  check({
    id: 'upload.receiver-receipt',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-CONTENT-002'],
    transports: ['http'],
    uploads: true,
    title: 'A well-framed upload gets a 201 receipt that matches the bytes',
    expectation:
      'a raw POST of binary bytes (and one of zero bytes) with Content-Type application/octet-stream, an exact Content-Length and the lowercase hex AHP-Content-SHA256 gets 201, Content-Type application/json and a receipt {ref, size, sha256} valid against the snapshot’s schema whose size and sha256 are those of the bytes',
  }),
  check({
    id: 'upload.receiver-rejects',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001'],
    transports: ['http'],
    uploads: true,
    title: 'A badly framed or oversized upload is rejected without a receipt',
    expectation:
      "uploads with a wrong, uppercase or missing AHP-Content-SHA256, a Content-Type other than application/octet-stream (a JSON-wrapped body too), a chunked body without Content-Length, or one byte more than the claimed maxBytes each get a 4xx status and no receipt (judged: any other status, or a ref in the answer, fails); the binding table's status is preferred, 400 for the framing and 413 for the size, and another 4xx passes with a warning",
  }),
  // A receiver that requires its own bearer token (`backend.upload.auth`): upload credentials
  // are separate from the event endpoint's and never inherited (capability-auth.md@40d064d,
  // "Registration" and "Failure and timing").
  check({
    id: 'upload.receiver-auth',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-SEC-001', 'AHP-HTTP-001'],
    transports: ['http'],
    uploads: true,
    auth: 'upload',
    title: 'The upload receiver refuses uploads without its own token',
    expectation:
      "a well-framed upload without credentials, with a wrong bearer token, or (where backend.http.auth is claimed) with the event endpoint's token gets a 4xx (401 with a Bearer WWW-Authenticate challenge recommended) and no receipt, while the same upload with the upload token gets its 201 receipt; no reply echoes either token",
  }),
  // ---------------------------------------------------------------- content upload (harness side)
  // The binary upload binding (spec/draft/content-upload.md@2b5da580; spec-core 13.5 "content-upload
  // checks"): where the claim says the harness uploads (`harness.uploads`), a user.message.inbound
  // step carries attachments as files and the interceptor's subscription has an `upload` binding
  // pointing at the runner's receiver (drivers/upload-receiver.ts). HTTP target only: the event hook
  // authenticates with a bearer token, so credential separation can be seen.
  hcheck({
    id: 'upload.request',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-CONTENT-002'],
    transports: ['http'],
    uploads: true,
    title: 'An upload is one raw POST to the exact endpoint with exact framing',
    expectation:
      'every upload is a POST to the configured endpoint path and query, Content-Type application/octet-stream, a Content-Length equal to the body, no Transfer-Encoding, and an AHP-Content-SHA256 that is the lowercase hex SHA-256 of the body; the media attachment arrives as its exact bytes, in one POST (never again after a confirmed upload)',
  }),
  hcheck({
    id: 'upload.no-redirect',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001'],
    transports: ['http'],
    uploads: true,
    title: 'A redirected upload is not followed',
    expectation: 'an upload answered 307 is not sent again to the Location (the redirect target receives nothing)',
  }),
  hcheck({
    id: 'upload.receipt',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-FAIL-001'],
    transports: ['http'],
    uploads: true,
    // Three adapter runs (202, 204, a mismatched receipt).
    launches: 3,
    title: 'Only a matching 201 receipt confirms an upload',
    expectation:
      'an upload answered 202, 204, or 201 with a receipt whose size and sha256 do not match the bytes is an upload failure: under fail-closed the step is not delivered, and no event carries a reference for the attachment',
  }),
  hcheck({
    id: 'upload.before-event',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-CONTENT-002'],
    transports: ['http'],
    uploads: true,
    title: 'The upload is confirmed before the event that refers to it',
    expectation:
      "the upload's 201 receipt is sent before the hooks/intercept that refers to the attachment arrives, and that event's attachment part carries body {ref} with the receipt's ref",
  }),
  hcheck({
    id: 'upload.credentials',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-HTTP-001', 'AHP-SEC-001'],
    transports: ['http'],
    uploads: true,
    title: 'Event credentials are not sent to the upload endpoint',
    expectation:
      "with bearer authentication on the event endpoint and no upload.auth, no upload request carries the event's token (in any header or the body)",
  }),
  hcheck({
    id: 'upload.media',
    level: 'MUST',
    profile: 'base',
    requirements: ['AHP-CONTENT-002'],
    transports: ['http'],
    uploads: true,
    title: 'Only media attachments are uploaded, never text or JSON',
    expectation:
      'of a message holding a text part, an image/png attachment, an application/json attachment and a text/plain attachment, only the image bytes are uploaded',
  }),
  // Endpoint authentication (issue 15): the runner plays the protected endpoint and its
  // OAuth authorization server over TLS (drivers/auth/), the harness trusts the run CA.
  hcheck({
    id: 'auth.portable-mechanisms',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-REG-001'],
    transports: ['http'],
    launches: 4, // three refused documents and the valid control
    title: 'Only bearer and oauth are accepted as endpoint authentication',
    expectation:
      'a registration whose hook authentication is mtls, workload or an unknown type is refused before anything is delivered',
  }),
  hcheck({
    id: 'auth.oauth-client-credentials',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-SEC-001'],
    transports: ['http'],
    launches: 2, // the run, and for a harness that refuses the binding the typical session (its manifest)
    title: 'An oauth preset gets a resource-bound token by client credentials',
    expectation:
      "the harness reads the preset issuer's metadata over TLS (trusting the run CA), asks the token endpoint with client_credentials, the preset client, the RFC 8707 resource and the preset scopes, sends exactly one Authorization: Bearer with that token on every POST, and neither the client secret nor the access token appears in a body or the adapter's output; a harness that never asks the authorization server (it refuses the oauth binding) passes only when it does not declare oauth (the claim's harness.authentication, else its session.start manifest), nothing reaches an oauth-bound hook, and the registration is refused or the failure policy applies (fail-closed: the calls do not run); with no declaration known it is incomplete",
  }),
  hcheck({
    id: 'auth.challenge',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-FAIL-001'],
    transports: ['http'],
    title: 'A 401 challenge without a configured identity is an operational failure',
    expectation:
      'without authentication the harness tries the endpoint once without a credential; after the 401 resource_metadata challenge nothing more is sent for the event (it has no client identity to get a token with) and the failure policy applies (fail-closed: the call does not run)',
  }),
  hcheck({
    id: 'auth.token-validation',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-SEC-001', 'AHP-FAIL-001'],
    transports: ['http'],
    launches: 6, // one run per misbehaviour of the authorization server, and the manifest's for a refusal
    title: 'Untrusted issuers and unusable tokens are refused',
    expectation:
      "with an issuer certificate of another CA, a metadata issuer that is not the preset issuer, a narrower scope (token response scope), an expired token (expires_in 0), or a token endpoint redirecting to another origin, no credentialed request reaches the backend, no redirect is followed, and the failure policy applies (fail-closed: the call does not run); a token for another audience is not judged here (a client sees it only inside the token); a harness that never asks the authorization server (it refuses the oauth binding) is judged by that refusal where it does not declare oauth (the claim's harness.authentication, else its session.start manifest): nothing reaches an oauth-bound hook, and the registration is refused or the failure policy applies; where it declares oauth, or nothing says, the check is incomplete",
  }),
  hcheck({
    id: 'auth.no-fallback',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-FAIL-001'],
    transports: ['http'],
    launches: 2, // the run, and for a harness that refuses the binding the typical session (its manifest)
    title: 'No unauthenticated fallback and no identity switch',
    expectation:
      "when the authorization server refuses the client, no request reaches the hook endpoints (neither without Authorization nor with another credential) and the failure policy applies (fail-closed: the call does not run); a harness that never asks the authorization server (it refuses the oauth binding) is judged by that refusal where it does not declare oauth (the claim's harness.authentication, else its session.start manifest): nothing reaches an oauth-bound hook, and the registration is refused or the failure policy applies; where it declares oauth, or nothing says, the check is incomplete",
  }),
  hcheck({
    id: 'auth.acquisition-deadline',
    level: 'MUST',
    profile: 'http',
    requirements: ['AHP-AUTH-001', 'AHP-FAIL-002'],
    transports: ['http'],
    launches: 2, // the run, and for a harness that refuses the binding the typical session (its manifest)
    title: 'Token acquisition is bounded by the dispatch deadline',
    expectation:
      "when the token endpoint stalls, the failure policy applies within the interceptor's deadline plus the tolerance measured in the run (fail-open: the next interceptor is called and the call runs); a harness that never asks the authorization server (it refuses the oauth binding) is judged by that refusal where it does not declare oauth (the claim's harness.authentication, else its session.start manifest): nothing reaches an oauth-bound hook, and the registration is refused or the failure policy applies (fail-open: the other interceptors are called and the calls run); where it declares oauth, or nothing says, the check is incomplete",
  }),
];

// ---------------------------------------------------------------- content boundaries
// The seed's eight canonical content and edit checks, live, per boundary and role
// (issue 14). Base profile: AHP-CONTENT-001/002 and AHP-EDIT-001 are base requirements;
// applicability is the claim's (`boundary`), declared, never decided at run time.
/** What the edits checks judge after a deny or a fail-closed stop (observation disposition, spec-events 9). */
const STOPPED_CHAIN =
  'after a deny or a fail-closed stop, the observer gets the event as hooks/observe with the content as the accepted responses left it, the interceptors already called get no second copy, and an interceptor not yet called that observes it (allowed, best effort: its absence is noted) sees the same settled content in its own view';

function harnessContentChecks(x: Boundary): CheckSpec[] {
  const at = `at ${x.label}`;
  const edits: CheckSpec = x.target
    ? hcheck({
        id: contentCheckId(x, 'edits'),
        boundary: x.event,
        level: 'MUST',
        profile: 'base',
        requirements: ['AHP-EDIT-001', 'AHP-CAP-001', 'AHP-REG-002'],
        title: `Edits ${at} are applied exactly, atomically and in order`,
        expectation: `every intercept advertises modify of ${x.target} with replace and merge; the ${x.receiver} sentinel gets the ${x.target} our applyModifyResponse computes from the answers under what the harness advertised and the hook's view: replace substitutes, list merge appends in order without deduplication, object merge is shallow and keeps a literal null, two interceptors' edits chain serially (the second is sent the value as the first left it), a response with an invalid later effect or a modify of a target the intercept did not advertise is rejected whole while the earlier accepted response stays, and a value of the wrong kind for ${x.target} changes nothing (seed edit checks 4, 5, 7); ${STOPPED_CHAIN}`,
      })
    : hcheck({
        id: contentCheckId(x, 'edits'),
        boundary: x.event,
        level: 'MUST',
        profile: 'base',
        requirements: ['AHP-EDIT-001', 'AHP-CONTENT-001', 'AHP-REG-002'],
        title: `No modification is applied ${at}`,
        expectation: `${x.event} advertises no modify target and a modify effect in an answer is not applied: the ${x.receiver} sentinel gets the request unchanged (seed edit check 8); ${STOPPED_CHAIN}`,
      });
  return [
    hcheck({
      id: contentCheckId(x, 'canonical'),
      boundary: x.event,
      level: 'MUST',
      profile: 'base',
      requirements: ['AHP-CONTENT-001'],
      title: `Content ${at} is sent in canonical form`,
      expectation: `${x.path} holds the scenario's content as canonical ${x.family === 'text-parts' ? 'text parts' : x.family === 'messages' ? 'messages (id, role, parts; parts without role or parent identity)' : 'inline MCP JSON in a body-selected text part'}: selected text parts are kind text, mediaType text/plain, selection body, inline text, no body reference; no JSON part (seed edit checks 1, 2${x.family.startsWith('mcp') ? ', 8' : ''})`,
    }),
    hcheck({
      id: contentCheckId(x, 'selection'),
      boundary: x.event,
      level: 'MUST',
      profile: 'base',
      requirements: ['AHP-CONTENT-002'],
      title: `Selected views ${at} hide what they hide`,
      expectation:
        x.family === 'workspace'
          ? `a workspace change is an object, not parts: the view decides only whether a hook may edit it, so edits answered from metadata and omit views are not applied, nor a value that is no object, while a valid edit beside it is (seed edit checks 4, 6)`
          : x.target
            ? `a hook subscribed with a metadata or omit view gets parts without text or body, selected as its view, and neither the hidden text nor an attachment reference anywhere else in its frame (intercepts, and observations after a stopped chain); edits answered from those views (a list merge, a whole-list replacement), edits of attachment bytes and unauthorized attachment references (or values the target does not take) are not applied, while a valid edit beside them is (seed edit checks 2, 3, 6)`
            : `a hook subscribed with a metadata or omit view gets ${x.path} without text or body, selected as its view, and the hidden request text nowhere else in its frame (intercepts, and observations after a stopped chain) (seed edit checks 2, 8)`,
    }),
    edits,
  ];
}

function backendContentChecks(x: Boundary): CheckSpec[] {
  const at = `at ${x.label}`;
  return [
    check({
      id: contentCheckId(x, 'canonical-edits'),
      boundary: x.event,
      level: 'MUST',
      profile: 'base',
      requirements: ['AHP-CONTENT-001', 'AHP-EDIT-001'],
      title: `Modify effects ${at} fit the pending boundary`,
      expectation: x.target
        ? `each content sample of ${x.event}, sent inline with replace and merge of ${x.target} advertised, gets at least one modify effect (the sample says the backend edits this content) that a harness applies: target ${x.target} with an advertised operation and a value of the boundary's kind (${x.family === 'mcp-result' ? 'the parsed MCP answer object of an accepted form result' : x.family === 'workspace' ? 'an object' : x.family === 'text-parts' ? 'canonical text parts' : `canonical messages${x.messageRole ? ` of role ${x.messageRole}` : ''}`}), judged by applyModifyResponse with the host-resolved edit context and the claim's snapshot's schemas (seed edit checks 1-5)`
        : `each content sample of ${x.event}, sent inline with every effect the boundary allows advertised, gets no modify effect: the request is no modification target (seed edit check 8)`,
    }),
    check({
      id: contentCheckId(x, 'hidden-untouched'),
      boundary: x.event,
      level: 'MUST',
      profile: 'base',
      requirements: ['AHP-CONTENT-002'],
      title: `Hidden content ${at} is not edited`,
      expectation: `each content sample, sent ${x.family === 'workspace' ? 'with the change withheld behind a gap' : `in a metadata and an omit view${x.family === 'messages' ? ', and inline with an attachment part' : x.family === 'text-parts' ? ', and inline next to a hidden text part' : ''}`}, gets no edit a harness must reject: no modify of a target that is not body-selected${x.family === 'messages' || x.family === 'text-parts' ? ', no whole-list replacement over hidden text, attachments only resubmitted unchanged or dropped' : ''} (seed edit checks 3, 6)`,
    }),
    check({
      id: contentCheckId(x, 'advertised-edits'),
      boundary: x.event,
      level: 'MUST',
      profile: 'base',
      requirements: ['AHP-EDIT-001', 'AHP-CAP-001'],
      title: `Edits ${at} stay within the advertised operation`,
      expectation: `the sample sent with modify not advertised, and with only one operation of the target advertised, gets no modify, or only the advertised operation (seed edit check 6)`,
    }),
  ];
}

const CONTENT_CHECKS: readonly CheckSpec[] = BOUNDARIES.flatMap((x) => [
  ...harnessContentChecks(x),
  ...backendContentChecks(x),
]);

const ALL_CHECKS: readonly CheckSpec[] = [...CHECKS_WITHOUT_CONTENT, ...CONTENT_CHECKS];

const byId = new Map(ALL_CHECKS.map((c) => [c.id, c]));

/** Every check, declared once: the rows above, then the content checks of each boundary. */
export const CHECKS: readonly CheckSpec[] = ALL_CHECKS;

export function checkSpec(id: string): CheckSpec {
  const c = byId.get(id);
  if (!c) throw new Error(`unknown check id ${id}`);
  return c;
}

/** The checks that apply to one (role, transport, lifecycle) of a claim with these capability profiles. */
export function applicableChecks(
  role: Role,
  transport: Transport,
  lifecycle: Lifecycle | undefined,
  profiles: readonly string[],
): CheckSpec[] {
  const claimed = new Set<string>(['base', transport, ...profiles]);
  return CHECKS.filter(
    (c) =>
      c.roles.includes(role) &&
      c.transports.includes(transport) &&
      claimed.has(c.profile) &&
      (transport !== 'stdio' || lifecycle === undefined || c.lifecycles.includes(lifecycle)),
  );
}
