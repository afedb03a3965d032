// The draft's requirement ids, each in our words, with its level and profile, so reports
// can show every requirement, including those no check covers yet. Wording is ours
// (paraphrased from the upstream requirement list and the spec notes); the ids are the
// upstream ones. Roles: whose duty the requirement is.
import type { ProfileId, Role } from './catalogue.js';

export interface Requirement {
  readonly id: string;
  readonly level: 'MUST' | 'MUST NOT';
  readonly profile: ProfileId;
  readonly roles: readonly Role[];
  readonly text: string;
  /** Why no runtime check covers it (shown instead of "not covered" where it is checked elsewhere). */
  readonly coveredBy?: string;
}

const BOTH: Role[] = ['harness', 'backend'];

export const REQUIREMENTS: readonly Requirement[] = [
  {
    id: 'AHP-CORE-001',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'A conformance claim names its role, each transport binding and each capability profile.',
    coveredBy: 'claim validation (a claim without them is refused or incomplete)',
  },
  {
    id: 'AHP-CORE-002',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'A Base Protocol claim comes with at least one capability profile.',
    coveredBy: 'claim validation (verdict incomplete without one)',
  },
  { id: 'AHP-RPC-001', level: 'MUST', profile: 'base', roles: BOTH, text: 'Messages are UTF-8 JSON-RPC 2.0.' },
  {
    id: 'AHP-RPC-002',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'A decision is a hooks/intercept request; a one-way event is a hooks/observe notification that gets no response.',
  },
  {
    id: 'AHP-VER-001',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'Every request, notification and successful result carries protocolVersion "draft"; an unsupported version in a request gets error -32001.',
  },
  {
    id: 'AHP-CORE-003',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'Unknown fields of open objects are ignored and recognized ones validated; unknown events, effects and enum values are unsupported semantics, and an effect with an unknown member is rejected whole.',
  },
  {
    id: 'AHP-EXT-001',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'Extension keys are reverse-DNS names; core behaviour never depends on undeclared extensions.',
  },
  {
    id: 'AHP-CORE-004',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'A retry keeps the event, session and call identity and the event content; a backend tolerates duplicate deliveries.',
  },
  {
    id: 'AHP-REG-001',
    level: 'MUST',
    profile: 'base',
    roles: ['harness'],
    text: 'A registration declares protocolVersion "draft" and an ordered, non-empty hooks list, and the harness validates it before use.',
  },
  {
    id: 'AHP-REG-002',
    level: 'MUST',
    profile: 'base',
    roles: ['harness'],
    text: 'An event is sent only on a subscription whose event name and mode match the delivery method; the one exception: after a deny or a fail-closed stop, the intercept subscriptions not yet called may observe the settled event, best effort.',
  },
  {
    id: 'AHP-SEC-001',
    level: 'MUST NOT',
    profile: 'base',
    roles: BOTH,
    text: 'No AHP result weakens host authorization, permissions, approval or sandboxing; credentials never appear in messages.',
  },
  {
    id: 'AHP-CONTENT-001',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'Content a model sees is canonical: messages with their roles and parts in order; ordinary text travels inline, structured content is serialized into text, and no part is JSON.',
  },
  {
    id: 'AHP-CONTENT-002',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'Authorization and the body, metadata and omit views govern inline text and attachments alike, with no way around them through a duplicate of the content; uploads are only for immutable media attachments that are neither text nor JSON.',
  },
  {
    id: 'AHP-EDIT-001',
    level: 'MUST',
    profile: 'base',
    roles: BOTH,
    text: 'Within exactly the advertised target and operation: a list replace substitutes the whole list, a list merge appends in order without removing duplicates, an object merge is shallow and only where target and value are objects; accepted edits chain one after another, and a response is accepted whole or not at all.',
  },
  {
    id: 'AHP-TB-001',
    level: 'MUST',
    profile: 'tool-interception',
    roles: ['harness'],
    text: 'tool.before describes the final call before it runs, with the required envelope, session and tool fields.',
  },
  {
    id: 'AHP-CAP-001',
    level: 'MUST',
    profile: 'tool-interception',
    roles: BOTH,
    text: 'A harness advertises only effects it enforces; a backend returns only advertised effects.',
  },
  {
    id: 'AHP-CAP-002',
    level: 'MUST',
    profile: 'tool-interception',
    roles: ['harness'],
    text: 'Every intercept carries capabilities.effects, including deny for tool.before.',
  },
  {
    id: 'AHP-DEC-001',
    level: 'MUST',
    profile: 'tool-interception',
    roles: ['backend'],
    text: 'A successful result holds an ordered list of valid, advertised effects.',
  },
  {
    id: 'AHP-DEC-002',
    level: 'MUST',
    profile: 'tool-interception',
    roles: BOTH,
    text: 'An accepted, valid deny stops the operation.',
  },
  {
    id: 'AHP-DEC-003',
    level: 'MUST NOT',
    profile: 'tool-interception',
    roles: ['harness'],
    text: 'An empty effect list grants nothing and bypasses no host control.',
  },
  {
    id: 'AHP-COMP-001',
    level: 'MUST',
    profile: 'tool-interception',
    roles: ['harness'],
    text: 'Interceptors run serially in registration order; a deny or a fail-closed failure stops the chain.',
  },
  {
    id: 'AHP-FAIL-001',
    level: 'MUST',
    profile: 'tool-interception',
    roles: ['harness'],
    text: 'Each intercept subscription declares fail-open or fail-closed, and the harness applies it to every operational failure.',
  },
  {
    id: 'AHP-FAIL-002',
    level: 'MUST',
    profile: 'tool-interception',
    roles: ['harness'],
    text: 'The harness enforces each deadline, ignores late replies, and retries only inside the original deadline.',
  },
  {
    id: 'AHP-STDIO-001',
    level: 'MUST',
    profile: 'stdio',
    roles: BOTH,
    text: 'stdio carries one UTF-8 JSON-RPC object per line, nothing else on stdout, commands started without a shell, in the registered lifecycle.',
  },
  {
    id: 'AHP-HTTP-001',
    level: 'MUST',
    profile: 'http',
    roles: BOTH,
    text: 'HTTP carries one JSON-RPC object per POST with a JSON media type, at most one response, 202/204 for notifications, no redirects, bearer credentials by reference.',
  },
  {
    id: 'AHP-AUTH-001',
    level: 'MUST',
    profile: 'http',
    roles: BOTH,
    // Our words for the snapshot's text (requirements.json @ 2b5da580, capability-auth.md
    // "Deployment-specific authentication"); the runtime rules are that document's bindings.
    text: 'Portable endpoint authentication is `bearer` or `oauth` only (client certificates, workload identity and federation are deployment-specific, not portable variants); a binding is followed as specified, and a failure to use it is an operational failure, never unauthenticated delivery or another identity.',
  },
];

const byId = new Map(REQUIREMENTS.map((r) => [r.id, r]));
export const requirement = (id: string): Requirement | undefined => byId.get(id);
