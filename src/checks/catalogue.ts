// The conformance check catalogue: one row per observable check, declared once.
// Suites look their checks up here; reports read titles, levels, requirements and
// profiles from here. A new check is one row here plus one test in suites/.
//
// Numbering of base checks follows the seed (Base Protocol profile, checks 1-9).

export type Role = 'harness' | 'backend';
export type Transport = 'stdio' | 'http';
export type Lifecycle = 'persistent' | 'per_event';
export type Level = 'MUST' | 'SHOULD';
export type ProfileId = 'base' | 'tool-interception' | 'lifecycle-observation' | 'stdio' | 'http';

/** Capability profiles a claim may list; base and the bindings follow from role and transports. */
export const CAPABILITY_PROFILES = ['tool-interception', 'lifecycle-observation'] as const;
export type CapabilityProfile = (typeof CAPABILITY_PROFILES)[number];

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
}

const BOTH_T: Transport[] = ['stdio', 'http'];
const BOTH_L: Lifecycle[] = ['persistent', 'per_event'];

function check(spec: Omit<CheckSpec, 'transports' | 'lifecycles' | 'roles'> & Partial<Pick<CheckSpec, 'transports' | 'lifecycles' | 'roles'>>): CheckSpec {
  return { roles: ['backend'], transports: BOTH_T, lifecycles: BOTH_L, ...spec };
}

export const CHECKS: readonly CheckSpec[] = [
  // ---------------------------------------------------------------- base (backend side)
  check({
    id: 'base.jsonrpc-utf8', seed: 1, level: 'MUST', profile: 'base', requirements: ['AHP-RPC-001'],
    title: 'Every emitted message is UTF-8 JSON-RPC 2.0',
    expectation: 'each reply is valid UTF-8, parses as one JSON object (no batch) and is a JSON-RPC 2.0 response',
  }),
  check({
    id: 'base.protocol-version', seed: 2, level: 'MUST', profile: 'base', requirements: ['AHP-VER-001'],
    title: 'Successful results carry protocolVersion "draft"',
    expectation: 'result.protocolVersion is exactly "draft"',
  }),
  check({
    id: 'base.unsupported-version', seed: 2, level: 'MUST', profile: 'base', requirements: ['AHP-VER-001', 'AHP-CORE-003'],
    title: 'An unsupported protocolVersion gets error -32001',
    expectation: 'a request with params.protocolVersion "1999-01-01" gets a JSON-RPC error with code -32001 and the request id',
  }),
  check({
    id: 'base.unknown-fields', seed: 3, level: 'MUST', profile: 'base', requirements: ['AHP-CORE-003'],
    title: 'Unknown fields in open objects do not change the result',
    expectation: 'unknown members added to the message, params and event envelope give the same result as the clean request',
  }),
  check({
    id: 'base.unknown-event', seed: 3, level: 'MUST', profile: 'base', requirements: ['AHP-CORE-003'],
    title: 'An unknown event type gets error -32002',
    expectation: 'a request whose event type is not defined gets a JSON-RPC error with code -32002 and the request id',
  }),
  check({
    id: 'base.extension-keys', seed: 4, level: 'MUST', profile: 'base', requirements: ['AHP-EXT-001'],
    title: 'Extension keys and deny codes use reverse-DNS names',
    expectation: 'every extensions key in a result (and every deny code) is a reverse-DNS name',
  }),
  check({
    id: 'base.unknown-method', seed: 7, level: 'MUST', profile: 'base', requirements: ['AHP-RPC-001', 'AHP-RPC-002'],
    title: 'An unknown method gets a JSON-RPC error',
    expectation: 'a request for method "hooks/bogus" gets a JSON-RPC error with the request id',
  }),
  check({
    id: 'base.notification-silence', seed: 7, level: 'MUST', profile: 'base', requirements: ['AHP-RPC-002'],
    title: 'No reply to any notification',
    expectation: 'notifications with an unsupported version, an unknown event or an unknown method get no reply at all',
  }),
  check({
    id: 'base.invalid-params', seed: 7, level: 'SHOULD', profile: 'base', requirements: ['AHP-CORE-003'],
    title: 'Structurally invalid params get a JSON-RPC error',
    expectation: 'a hooks/intercept request whose params lack the event gets a JSON-RPC error with the request id',
  }),
  check({
    id: 'base.unparseable-input', seed: 7, level: 'MUST', profile: 'base', requirements: ['AHP-RPC-001'],
    title: 'Bytes that do not parse get -32700 with id null, or no reply',
    expectation: 'input that is not JSON gets either no reply or a JSON-RPC error -32700 with id null',
  }),
  check({
    id: 'base.no-secret-leak', level: 'MUST', profile: 'base', requirements: ['AHP-SEC-001'], transports: ['http'],
    title: 'Replies never carry credentials',
    expectation: 'the bearer token the runner sends never appears in any reply body, header, error message or error data',
  }),
  // ---------------------------------------------------------------- tool interception (backend side)
  check({
    id: 'ti.result-valid', level: 'MUST', profile: 'tool-interception', requirements: ['AHP-DEC-001', 'AHP-RPC-002'],
    title: 'A tool.before interception gets a valid intercept result',
    expectation: 'exactly one success response whose result is valid against the intercept-response schema',
  }),
  check({
    id: 'ti.response-id', level: 'MUST', profile: 'tool-interception', requirements: ['AHP-RPC-001', 'AHP-RPC-002'],
    title: 'The response id equals the request id',
    expectation: 'the response carries the same JSON-RPC id, of the same JSON type, as the request',
  }),
  check({
    id: 'ti.advertised-effects', level: 'MUST', profile: 'tool-interception', requirements: ['AHP-CAP-001', 'AHP-DEC-001'],
    title: 'Only advertised effects are returned',
    expectation: 'every returned effect type is in the request\'s capabilities.effects, also when a sample that would deny is sent with no effects advertised',
  }),
  check({
    id: 'ti.deny-samples', level: 'MUST', profile: 'tool-interception', requirements: ['AHP-DEC-001', 'AHP-DEC-002'],
    title: 'The claim\'s deny samples are denied with a valid deny effect',
    expectation: 'each deny sample gets a result holding a schema-valid deny with a non-empty reason',
  }),
  check({
    id: 'ti.modify-samples', level: 'MUST', profile: 'tool-interception', requirements: ['AHP-EDIT-001', 'AHP-CAP-001', 'AHP-CONTENT-001'],
    title: 'Modify effects fit the advertised target, operation and value shape',
    expectation: 'each modify sample gets modify effects the harness could apply: advertised target and operation, canonical value shape (seed edit checks 1-6)',
  }),
  check({
    id: 'ti.duplicate-delivery', level: 'SHOULD', profile: 'tool-interception', requirements: ['AHP-CORE-004'],
    title: 'A duplicate delivery of the same event is tolerated',
    expectation: 'sending the same request twice gives semantically equal results',
  }),
  // ---------------------------------------------------------------- lifecycle observation (backend side)
  check({
    id: 'lo.observe-silence', level: 'MUST', profile: 'lifecycle-observation', requirements: ['AHP-RPC-002'],
    title: 'Valid hooks/observe notifications get no reply',
    expectation: 'valid tool.after, session.start and session.end observations get no JSON-RPC response',
  }),
  // ---------------------------------------------------------------- stdio binding
  check({
    id: 'stdio.framing', level: 'MUST', profile: 'stdio', requirements: ['AHP-STDIO-001'], transports: ['stdio'],
    title: 'One JSON object per line on stdout',
    expectation: 'every stdout line is one complete JSON-RPC object ended by LF (no pretty-printing, no oversized line)',
  }),
  check({
    id: 'stdio.stdout-clean', level: 'MUST', profile: 'stdio', requirements: ['AHP-STDIO-001'], transports: ['stdio'],
    title: 'Nothing but protocol messages on stdout',
    expectation: 'no banner, log or progress output on stdout at start-up or between exchanges (stderr is free)',
  }),
  check({
    id: 'stdio.persistent-exchanges', level: 'MUST', profile: 'stdio', requirements: ['AHP-STDIO-001'], transports: ['stdio'], lifecycles: ['persistent'],
    title: 'A persistent process answers many exchanges',
    expectation: 'several sequential intercepts on one process each get exactly one reply line with the matching id',
  }),
  check({
    id: 'stdio.per-event-exit', level: 'MUST', profile: 'stdio', requirements: ['AHP-STDIO-001'], transports: ['stdio'], lifecycles: ['per_event'],
    title: 'A per_event process replies at most once and exits 0',
    expectation: 'after one request and end of input: exactly one reply line, then exit status 0; after a notification: no output and an exit',
  }),
  // ---------------------------------------------------------------- http binding
  check({
    id: 'http.intercept-response', level: 'MUST', profile: 'http', requirements: ['AHP-HTTP-001'], transports: ['http'],
    title: 'Requests get 200 with a JSON body holding one JSON-RPC object',
    expectation: 'status 200, Content-Type application/json (parameters allowed), body one JSON-RPC response object',
  }),
  check({
    id: 'http.observe-empty', level: 'MUST', profile: 'http', requirements: ['AHP-HTTP-001'], transports: ['http'],
    title: 'Notifications get 202 or 204 with an empty body',
    expectation: 'a hooks/observe POST gets status 202 or 204 and no body',
  }),
  check({
    id: 'http.error-status', level: 'SHOULD', profile: 'http', requirements: ['AHP-HTTP-001'], transports: ['http'],
    title: 'JSON-RPC errors travel with status 200',
    expectation: 'a JSON-RPC error response is sent with HTTP status 200 (another status is a warning)',
  }),
];

const byId = new Map(CHECKS.map((c) => [c.id, c]));

export function checkSpec(id: string): CheckSpec {
  const c = byId.get(id);
  if (!c) throw new Error(`unknown check id ${id}`);
  return c;
}

/** The checks that apply to one (role, transport, lifecycle) of a claim with these capability profiles. */
export function applicableChecks(role: Role, transport: Transport, lifecycle: Lifecycle | undefined, profiles: readonly string[]): CheckSpec[] {
  const claimed = new Set<string>(['base', transport, ...profiles]);
  return CHECKS.filter((c) =>
    c.roles.includes(role) && c.transports.includes(transport) && claimed.has(c.profile) &&
    (transport !== 'stdio' || lifecycle === undefined || c.lifecycles.includes(lifecycle)));
}
