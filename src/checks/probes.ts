// The messages the runner sends while playing the harness. Every message built here is
// validated with our own validator before it leaves (a runner that sends invalid AHP
// would blame the implementation for its own mistake); probes that are wrong on purpose
// are built by `deliberately()` and say so in their evidence.
import { randomUUID } from 'node:crypto';
import { METHODS, PROTOCOL_VERSION } from '../protocol/catalogue.js';
import { SNAPSHOT_IDS, type SnapshotId } from '../protocol/snapshots.js';
import { isWireValid, validate } from '../protocol/validator.js';

const RUNNER_HARNESS = { name: 'ahp-conformance', version: '0' } as const;
const RUNNER_SOURCE = 'ahp://ahp-conformance/runner';

type Obj = Record<string, unknown>;

class ProbeBugError extends Error {}

/**
 * Validate a message the runner built or changed (e.g. with unknown members added) before it
 * is sent: by the given snapshot, else by every snapshot the runner judges by, so that one
 * probe serves claims of any snapshot (a probe invalid under the claim's snapshot would blame
 * the implementation for refusing it).
 */
export function assertValid(kind: string, value: unknown, snapshot?: SnapshotId): void {
  for (const s of snapshot ? [snapshot] : SNAPSHOT_IDS) {
    const findings = validate(kind, value, { wireOnly: true, snapshot: s });
    if (!isWireValid(findings)) {
      // A bug in the runner, never the implementation's fault.
      throw new ProbeBugError(
        `ahp-conformance built an invalid ${kind} (${s}): ${findings.map((f) => `${f.path} ${f.message}`).join('; ')}`,
      );
    }
  }
}

const now = (): string => new Date().toISOString();
export const newId = (prefix = 'evt'): string => `${prefix}-${randomUUID()}`;

/** The envelope of every event the runner sends as a harness (content events too: suites/support/content-events.ts). */
export function envelope(type: string, id: string): Obj {
  return {
    id,
    source: RUNNER_SOURCE,
    type,
    time: now(),
    harness: { ...RUNNER_HARNESS },
    session: { id: 'ahp-conformance-session' },
  };
}

export interface ToolCall {
  name: string;
  input: Obj;
  kind?: string;
}

export function toolBeforeEvent(tool: ToolCall, id = newId()): Obj {
  return {
    ...envelope('tool.before', id),
    call: { id: `call-${id}` },
    tool: { name: tool.name, input: tool.input, origin: 'native', ...(tool.kind ? { kind: tool.kind } : {}) },
    path: tool.name,
  };
}

/** A neutral tool call no policy should act on. */
export const HARMLESS_TOOL: ToolCall = { name: 'ahp_conformance_probe', input: { note: 'a harmless probe call' } };

export function interceptRequest(event: Obj, capabilities: Obj = { effects: ['deny'] }): Obj {
  const msg = {
    jsonrpc: '2.0',
    id: event.id,
    method: METHODS.intercept,
    params: { protocolVersion: PROTOCOL_VERSION, event, capabilities },
  };
  assertValid('intercept-request', msg);
  return msg;
}

/** A hooks/configuration request: only in snapshots that have the method (draft@1d98c19). */
export function configurationRequest(snapshot: SnapshotId, id: string | number = newId('configuration')): Obj {
  const msg = { jsonrpc: '2.0', id, method: METHODS.configuration, params: { protocolVersion: PROTOCOL_VERSION } };
  assertValid('configuration-request', msg, snapshot);
  return msg;
}

export function observeNotification(event: Obj): Obj {
  const msg = { jsonrpc: '2.0', method: METHODS.observe, params: { protocolVersion: PROTOCOL_VERSION, event } };
  assertValid('observe-notification', msg);
  return msg;
}

const MINIMAL_MANIFEST = {
  events: [{ event: 'tool.before', modes: ['intercept', 'observe'], capabilities: { effects: ['deny'] } }],
  gaps: [],
  transports: ['stdio', 'http'],
  authentication: ['bearer'],
  toolPaths: ['ahp_conformance_probe'],
  contentCategories: ['text'],
  limits: {},
  managedPolicy: { scopes: ['user'], disableable: true },
  correlationIdentityFields: ['session.id'],
};

/** Lifecycle events a backend observes: tool.after, session.start, session.end. */
export function lifecycleEvents(): Obj[] {
  const callId = newId('call');
  return [
    {
      ...envelope('session.start', newId()),
      trigger: 'startup',
      permissionMode: 'default',
      manifest: MINIMAL_MANIFEST,
      items: [],
    },
    {
      ...envelope('tool.after', newId()),
      outcome: 'ok',
      execution: { status: 'executed' },
      call: { id: callId },
      tool: { ...HARMLESS_TOOL, origin: 'native' },
      path: HARMLESS_TOOL.name,
      items: [
        {
          id: 'm1',
          role: 'tool',
          parts: [{ id: 'p1', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'done' }],
        },
      ],
    },
    { ...envelope('session.end', newId()), outcome: 'completed', reason: 'the conformance probe ended the session' },
  ];
}

/** A claim's sample call (src/claims/load.ts) as the runner asks about it. */
export interface SampleCall {
  tool: ToolCall;
  effects?: string[];
  modify?: Obj;
}

/** The intercept for a claim's sample: its own advertisement, else `kind` (modify with replace and merge on input). */
export function sampleRequest(s: SampleCall, kind: 'deny' | 'modify', id = newId()): Obj {
  const effects = s.effects ?? [kind];
  const capabilities: Obj = { effects };
  if (effects.includes('modify')) capabilities.modify = s.modify ?? { input: { replace: true, merge: true } };
  return interceptRequest(toolBeforeEvent(s.tool, id), capabilities);
}

/** A message that is wrong on purpose; `why` goes into the evidence. */
export interface DeliberateProbe {
  message: Obj | string;
  deliberate: string;
}

export function deliberately(message: Obj | string, why: string): DeliberateProbe {
  return { message, deliberate: why };
}
