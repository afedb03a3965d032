// The events the reference harness emits, in the draft (L2) shapes that
// src/checks/probes.ts uses. Builders are pure (apart from fresh ids and the clock) and
// exported so the self-test can check each against the event schemas; the harness itself
// does not validate at run time (every schema kind compiled costs start-up time).
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../src/protocol/json.js';
import { BOUNDARIES, type Boundary } from '../../src/checks/boundaries.js';
import { AUTH_MECHANISMS, eventSpec, type AuthMechanism } from '../../src/protocol/catalogue.js';
import type { ScenarioSession, SessionOutcome } from './config.js';
import { NO_FAULT, type HarnessFault } from './faults.js';

export const HARNESS = { name: 'reference-harness', version: '0.1.0' } as const;
/** adapter-identity fault: what events name instead of the harness. */
const ADAPTER = { name: 'reference-harness-adapter', version: '0.1.0' } as const;
export const SOURCE = 'ahp://ahp-conformance/reference-harness';

/** What the harness can enforce at tool.before, and advertises on every intercept. */
export const TOOL_BEFORE_CAPABILITIES = {
  effects: ['deny', 'modify'],
  modify: { input: { replace: true, merge: true } },
} as const;

/**
 * What every intercept of a content boundary advertises: its deny where the event has one,
 * and modify of its target (the harness applies those edits). user.elicitation.request has
 * no target: no modify (no request modification).
 */
export function boundaryCapabilities(boundary: Boundary): JsonObject {
  const allowed = eventSpec(boundary.event)?.effects ?? [];
  const effects = (['deny', 'modify'] as const).filter(
    (e) => allowed.includes(e) && (e !== 'modify' || boundary.target !== undefined),
  );
  return boundary.target !== undefined
    ? { effects, modify: { [boundary.target]: { replace: true, merge: true } } }
    : { effects };
}

export type AhpEvent = Record<string, unknown>;

export interface ToolCallIdentity {
  /** The tool.before event id (also its JSON-RPC id on intercept). */
  readonly eventId: string;
  readonly callId: string;
}

export const newEventId = (): string => `evt-${randomUUID()}`;
export const newCallId = (): string => `call-${randomUUID()}`;
const now = (): string => new Date().toISOString();

/** The manifest session.start carries: what this harness emits and can intercept, and how it authenticates. */
export const MANIFEST = {
  events: [
    { event: 'tool.before', modes: ['intercept', 'observe'], capabilities: TOOL_BEFORE_CAPABILITIES },
    { event: 'tool.after', modes: ['observe'] },
    { event: 'session.start', modes: ['observe'] },
    { event: 'session.end', modes: ['observe'] },
    // The content boundaries (adapter contract 2), with what their intercepts advertise.
    ...BOUNDARIES.map((b) => ({
      event: b.event,
      modes: ['intercept', 'observe'],
      capabilities: boundaryCapabilities(b),
    })),
  ],
  gaps: [],
  transports: ['stdio', 'http'],
  // What this harness supports (oauth: reference/harness/oauth.ts); a bearer-only run: manifestFor.
  authentication: [...AUTH_MECHANISMS] as AuthMechanism[],
  toolPaths: [],
  contentCategories: [],
  limits: { minTimeoutMs: 1, maxTimeoutMs: 30000 },
  managedPolicy: { scopes: ['user'], disableable: true },
  correlationIdentityFields: ['session.id', 'call.id'],
};

/**
 * The manifest of a harness supporting `authentication` (--authentication). The
 * oauth-declared-unsupported fault: a harness without OAuth lists it anyway.
 */
export function manifestFor(authentication: readonly AuthMechanism[], fault: HarnessFault = NO_FAULT): typeof MANIFEST {
  const listed =
    !authentication.includes('oauth') && fault.is('oauth-declared-unsupported')
      ? [...authentication, 'oauth' as const]
      : [...authentication];
  return { ...MANIFEST, authentication: listed };
}

function sessionOf(session: ScenarioSession): JsonObject {
  return session.cwd !== undefined ? { id: session.id, cwd: session.cwd } : { id: session.id };
}

/**
 * The common envelope. Faults: `no-harness-version` drops harness from every event but
 * session.start; `adapter-identity` names the adapter; `bare-extension-key` adds an
 * unnamespaced extension key.
 */
export function envelope(type: string, session: ScenarioSession, fault: HarnessFault, id = newEventId()): AhpEvent {
  const event: AhpEvent = { id, source: SOURCE, type, time: now() };
  if (type === 'session.start' || !fault.is('no-harness-version'))
    event.harness = { ...(fault.is('adapter-identity') ? ADAPTER : HARNESS) };
  event.session = sessionOf(session);
  if (fault.is('bare-extension-key')) event.extensions = { trace: 'ref-1' };
  return event;
}

export function sessionStartEvent(
  session: ScenarioSession,
  fault: HarnessFault = NO_FAULT,
  authentication: readonly AuthMechanism[] = AUTH_MECHANISMS,
): AhpEvent {
  return {
    ...envelope('session.start', session, fault),
    trigger: 'startup',
    permissionMode: 'default',
    manifest: manifestFor(authentication, fault),
    items: [],
  };
}

export function sessionEndEvent(
  session: ScenarioSession,
  outcome: SessionOutcome,
  fault: HarnessFault = NO_FAULT,
): AhpEvent {
  return { ...envelope('session.end', session, fault), outcome, reason: `the scenario ended the session (${outcome})` };
}

export interface ToolDescription {
  readonly name: string;
  readonly input: JsonObject;
}

export function toolBeforeEvent(
  session: ScenarioSession,
  ids: ToolCallIdentity,
  tool: ToolDescription,
  fault: HarnessFault = NO_FAULT,
): AhpEvent {
  return {
    ...envelope('tool.before', session, fault, ids.eventId),
    call: { id: ids.callId },
    tool: { name: tool.name, input: tool.input, origin: 'native' },
    path: tool.name,
  };
}

/** The same tool.before with another input (the effective value after accepted edits). */
export function withInput(event: AhpEvent, input: JsonObject): AhpEvent {
  return { ...event, tool: { ...(event.tool as Record<string, unknown>), input } };
}

export type Settlement = 'executed' | 'denied';

/** tool.after: a denied or refused call is `denied`, skipped for policy (lifecycle-observation LO5). */
export function toolAfterEvent(
  session: ScenarioSession,
  callId: string,
  tool: ToolDescription,
  settled: Settlement,
  fault: HarnessFault = NO_FAULT,
): AhpEvent {
  const executed = settled === 'executed';
  return {
    ...envelope('tool.after', session, fault),
    outcome: executed ? 'ok' : 'denied',
    execution: executed ? { status: 'executed' } : { status: 'skipped', reason: 'policy' },
    call: { id: fault.is('new-call-id-after') ? newCallId() : callId },
    tool: { name: tool.name, input: tool.input, origin: 'native' },
    path: tool.name,
    items: [],
  };
}
